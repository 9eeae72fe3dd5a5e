/* YAML 1.1 scalar resolution as Kubernetes reads manifests (sigs.k8s.io/yaml over go-yaml v2): which
 * plain scalars are null, booleans, integers or floats, and which explicit tags are understood. */
#include "adapters/intake/internal.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define YAML_TAG_PREFIX "tag:yaml.org,2002:"

/* YAML 1.1's words for null, booleans and non-finite floats. Every plain scalar is looked up, keys
 * included, so the words carry their lengths and a scalar longer than the longest is none of them at
 * a glance; a word longer than WORD_MAX does not compile. */
#define WORD_MAX 5 /* "false", "+.inf" */
enum word_kind { WORD_NULL, WORD_TRUE, WORD_FALSE, WORD_INF, WORD_MINUS_INF, WORD_NAN };
struct word {
    char text[WORD_MAX]; /* a word of WORD_MAX bytes has no NUL */
    unsigned char len;
    enum word_kind kind;
};
#define WORD(s, kind)         \
    {                         \
        s, sizeof s - 1, kind \
    }
static const struct word words[] = {
    WORD("", WORD_NULL),           WORD("~", WORD_NULL),          WORD("null", WORD_NULL),
    WORD("Null", WORD_NULL),       WORD("NULL", WORD_NULL),       WORD("y", WORD_TRUE),
    WORD("Y", WORD_TRUE),          WORD("yes", WORD_TRUE),        WORD("Yes", WORD_TRUE),
    WORD("YES", WORD_TRUE),        WORD("true", WORD_TRUE),       WORD("True", WORD_TRUE),
    WORD("TRUE", WORD_TRUE),       WORD("on", WORD_TRUE),         WORD("On", WORD_TRUE),
    WORD("ON", WORD_TRUE),         WORD("n", WORD_FALSE),         WORD("N", WORD_FALSE),
    WORD("no", WORD_FALSE),        WORD("No", WORD_FALSE),        WORD("NO", WORD_FALSE),
    WORD("false", WORD_FALSE),     WORD("False", WORD_FALSE),     WORD("FALSE", WORD_FALSE),
    WORD("off", WORD_FALSE),       WORD("Off", WORD_FALSE),       WORD("OFF", WORD_FALSE),
    WORD(".inf", WORD_INF),        WORD(".Inf", WORD_INF),        WORD(".INF", WORD_INF),
    WORD("+.inf", WORD_INF),       WORD("+.Inf", WORD_INF),       WORD("+.INF", WORD_INF),
    WORD("-.inf", WORD_MINUS_INF), WORD("-.Inf", WORD_MINUS_INF), WORD("-.INF", WORD_MINUS_INF),
    WORD(".nan", WORD_NAN),        WORD(".NaN", WORD_NAN),        WORD(".NAN", WORD_NAN),
};

/* For each first byte and each length, the words that have it (one bit per word): a scalar is
 * compared with the few words that have both (test_intake reads every word), most keys and values
 * with none. */
_Static_assert(sizeof words / sizeof *words <= 64, "one bit per word");
static uint64_t words_starting[256], words_of_len[WORD_MAX + 1];

__attribute__((constructor)) static void index_words(void)
{
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        if (words[i].len > 0)
            words_starting[(unsigned char)words[i].text[0]] |= (uint64_t)1 << i;
        words_of_len[words[i].len] |= (uint64_t)1 << i;
    }
}

/* The bytes a number may start with. */
static const bool number_start[256] = {
    ['+'] = true, ['-'] = true, ['.'] = true, ['0'] = true, ['1'] = true, ['2'] = true, ['3'] = true,
    ['4'] = true, ['5'] = true, ['6'] = true, ['7'] = true, ['8'] = true, ['9'] = true,
};

static const struct word *find_word(const char *text, size_t len)
{
    if (len > WORD_MAX)
        return NULL;
    uint64_t candidates = words_of_len[len] & (len == 0 ? ~(uint64_t)0 : words_starting[(unsigned char)text[0]]);
    for (; candidates; candidates &= candidates - 1) {
        const struct word *w = &words[__builtin_ctzll(candidates)];
        if (memcmp(w->text, text, len) == 0)
            return w;
    }
    return NULL;
}

static size_t digit_run(const char *s)
{
    size_t n = 0;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    return n;
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

/* strconv.ParseInt(s, 0, 64), and ParseUint for values above INT64_MAX (which JSON gets as reals):
 * "0x" hex, "0b" binary, "0o" or a leading 0 octal, otherwise decimal. */
static bool parse_go_integer(const char *s, struct yscalar *out)
{
    bool negative = *s == '-', signed_ = *s == '-' || *s == '+';
    s += signed_;
    if (!*s)
        return false;
    unsigned base = 10;
    if (s[0] == '0') {
        char c = (char)tolower((unsigned char)s[1]);
        bool prefixed = s[1] && s[2] && (c == 'b' || c == 'o' || c == 'x');
        base = !prefixed ? 8 : c == 'b' ? 2 : c == 'o' ? 8 : 16;
        s += prefixed ? 2 : 1;
    }
    uint64_t u = 0;
    for (; *s; s++) {
        unsigned d = (unsigned)digit_value(*s);
        if (d >= base || u > (UINT64_MAX - d) / base)
            return false; /* not a number here, or beyond uint64: go-yaml then tries a float */
        u = u * base + d;
    }
    if (negative && u > (uint64_t)INT64_MAX + 1)
        return false;
    if (negative || u <= (uint64_t)INT64_MAX) {
        out->kind = YS_INT;
        out->integer = negative ? (json_int_t)(0 - u) : (json_int_t)u;
        return true;
    }
    if (signed_) /* ParseUint takes no sign */
        return false;
    out->kind = YS_REAL;
    out->real = (double)u;
    out->integral = true;
    return true;
}

/* go-yaml's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool looks_like_float(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    size_t whole = digit_run(s);
    s += whole;
    if (*s == '.') {
        size_t frac = digit_run(++s);
        if (whole == 0 && frac == 0)
            return false;
        s += frac;
    } else if (whole == 0) {
        return false;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        size_t exp = digit_run(s);
        if (exp == 0)
            return false;
        s += exp;
    }
    return *s == '\0';
}

/* The text with every '_' dropped, as go-yaml reads numbers ("1_000"); NULL when out of memory. */
static char *without_underscores(const char *text, size_t len, char *small, size_t small_len)
{
    char *buf = len < small_len ? small : malloc(len + 1);
    if (!buf)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] != '_')
            buf[n++] = text[i];
    buf[n] = '\0';
    return buf;
}

/* Integers, then floats; strtod reads '.' as the decimal point because the server never changes
 * LC_NUMERIC from "C". A float too large for a double stays a string, as in go-yaml. */
static int resolve_number(const char *text, size_t len, struct yscalar *out)
{
    char small[128];
    char *clean = without_underscores(text, len, small, sizeof small);
    if (!clean)
        return -1;
    if (!parse_go_integer(clean, out) && looks_like_float(clean)) {
        double d = strtod(clean, NULL);
        if (!isinf(d)) {
            out->kind = YS_REAL;
            out->real = d;
        }
    }
    if (clean != small)
        free(clean);
    return 0;
}

/* Implicit resolution of an untagged plain scalar (and of tagged text that must resolve to the tag). */
static int resolve_implicit(const char *text, size_t len, struct yscalar *out)
{
    out->kind = YS_STRING;
    const struct word *w = find_word(text, len);
    if (w && w->kind == WORD_NULL) {
        out->kind = YS_NULL;
    } else if (w && (w->kind == WORD_TRUE || w->kind == WORD_FALSE)) {
        out->kind = YS_BOOL;
        out->boolean = w->kind == WORD_TRUE;
    } else if (w) {
        out->kind = YS_NONFINITE;
        out->real = w->kind == WORD_NAN ? NAN : w->kind == WORD_INF ? INFINITY : -INFINITY;
    } else if (len == 2 && memcmp(text, "<<", 2) == 0) {
        out->kind = YS_MERGE;
    } else if (len > 0 && number_start[(unsigned char)text[0]] && !memchr(text, '\0', len)) {
        return resolve_number(text, len, out);
    }
    return 0;
}

/* "!!int" for the YAML core tags, the tag itself otherwise: how users wrote it. */
static void tag_display(const char *tag, char *buf, size_t len)
{
    size_t prefix = strlen(YAML_TAG_PREFIX);
    if (strncmp(tag, YAML_TAG_PREFIX, prefix) == 0)
        snprintf(buf, len, "!!%s", tag + prefix);
    else
        snprintf(buf, len, "%s", tag);
}

static const char *core_tag_name(const char *tag)
{
    size_t prefix = strlen(YAML_TAG_PREFIX);
    return strncmp(tag, YAML_TAG_PREFIX, prefix) == 0 ? tag + prefix : NULL;
}

static int unknown_tag(const char *tag, char *why, size_t why_len)
{
    char shown[128];
    tag_display(tag, shown, sizeof shown);
    snprintf(why, why_len, "unknown tag %s", shown);
    return -1;
}

/* The text under an explicit core tag must resolve to that tag's type; !!float also takes integers. */
static int resolve_tagged(const char *name, const char *tag, struct yscalar *out, char *why, size_t why_len)
{
    if (strcmp(name, "str") == 0 || strcmp(name, "binary") == 0) {
        out->kind = YS_STRING; /* !!binary stays base64 text, as Kubernetes' []byte fields expect */
        return 0;
    }
    if (strcmp(name, "map") == 0 || strcmp(name, "seq") == 0) {
        snprintf(why, why_len, "tag !!%s cannot be used on a scalar", name);
        return -1;
    }
    enum yscalar_kind want;
    if (strcmp(name, "null") == 0)
        want = YS_NULL;
    else if (strcmp(name, "bool") == 0)
        want = YS_BOOL;
    else if (strcmp(name, "int") == 0)
        want = YS_INT;
    else if (strcmp(name, "float") == 0)
        want = YS_REAL;
    else
        return unknown_tag(tag, why, why_len);
    if (resolve_implicit(out->text, out->len, out) != 0)
        return -1;
    if (want == YS_REAL && out->kind == YS_INT) {
        out->kind = YS_REAL;
        out->real = (double)out->integer;
    }
    bool fits = out->kind == want || (want == YS_REAL && out->kind == YS_NONFINITE) ||
                (want == YS_INT && out->kind == YS_REAL && out->integral);
    if (!fits) {
        snprintf(why, why_len, "\"%.*s\" is not a valid !!%s", out->len > 64 ? 64 : (int)out->len, out->text, name);
        return -1;
    }
    return 0;
}

int yscalar_resolve(const char *tag, const char *text, size_t len, bool plain, struct yscalar *out, char *why,
                    size_t why_len)
{
    *out = (struct yscalar){.kind = YS_STRING, .text = text, .len = len};
    if (!tag)
        return plain ? resolve_implicit(text, len, out) : 0;
    if (strcmp(tag, "!") == 0) /* the non-specific tag: a string, whatever it looks like */
        return 0;
    const char *name = core_tag_name(tag);
    if (!name)
        return unknown_tag(tag, why, why_len);
    return resolve_tagged(name, tag, out, why, why_len);
}

int ytag_check_collection(const char *tag, bool mapping, char *why, size_t why_len)
{
    if (!tag || strcmp(tag, "!") == 0)
        return 0;
    const char *name = core_tag_name(tag);
    if (name && strcmp(name, mapping ? "map" : "seq") == 0)
        return 0;
    if (name && (strcmp(name, "map") == 0 || strcmp(name, "seq") == 0 || strcmp(name, "str") == 0 ||
                 strcmp(name, "int") == 0 || strcmp(name, "float") == 0 || strcmp(name, "bool") == 0 ||
                 strcmp(name, "null") == 0 || strcmp(name, "binary") == 0)) {
        snprintf(why, why_len, "tag !!%s cannot be used on a %s", name, mapping ? "mapping" : "sequence");
        return -1;
    }
    return unknown_tag(tag, why, why_len);
}

void format_real(double d, char *buf, size_t len)
{
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(buf, len, "%.*g", precision, d);
        if (strtod(buf, NULL) == d)
            return;
    }
}
