/* libFuzzer target: Kubernetes quantities. The input as text goes through resource_parse for every
 * resource kind: what is accepted is not negative, renders (render_resources) to text that parses back
 * to the same value, and the kinds and suffixes agree with each other. Its first 9 bytes, read as a
 * value and a scale, go through quantity_format and back through quantity_parse unchanged. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "adapters/objects/render.h"
#include "model/quantity.h"
#include "model/resource.h"
#include "tests/fuzz/support/fuzz.h"

#define MAX_TEXT 256

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    resource_register("example.com/fpga"); /* an extended resource, as a nodes file registers them */
    return 0;
}

static int64_t ceil_thousandth(int64_t milli) { return milli / 1000 + (milli % 1000 > 0); }

/* render_resources shows a non-zero value as text that parses back to it; zero is left out. */
static void check_rendering(int index, const char *text, int64_t value)
{
    struct resvec r = {0};
    r.v[index] = value;
    json_t *rendered = render_resources(&r, false);
    const char *shown = json_string_value(json_object_get(rendered, resource_name(index)));
    if (value == 0) {
        FUZZ_CHECK(shown == NULL, "%s: \"%s\" is 0, rendered as \"%s\"", resource_name(index), text, shown);
    } else {
        int64_t again = 0;
        const char *why = "";
        int rc = shown ? resource_parse(index, shown, &again, &why) : -1;
        FUZZ_CHECK(rc == 0 && again == value,
                   "%s: \"%s\" is %" PRId64 ", rendered \"%s\", which parses back as %" PRId64 " (%s)",
                   resource_name(index), text, value, shown ? shown : "(nothing)", again, rc == 0 ? "ok" : why);
    }
    json_decref(rendered);
}

static bool whole_kind(int index) { return index == RES_PODS || index == RES_GPU || index >= RES_FIRST_EXTENDED; }

/* Every kind on its own, then the kinds against each other. */
static void check_kinds(const char *text)
{
    int64_t v[RES_MAX] = {0};
    bool ok[RES_MAX] = {0};
    for (int i = 0; i < resource_count(); i++) {
        const char *why = NULL;
        ok[i] = resource_parse(i, text, &v[i], &why) == 0;
        FUZZ_CHECK(ok[i] || (why && *why), "%s: \"%s\" refused without a reason", resource_name(i), text);
        if (!ok[i])
            continue;
        FUZZ_CHECK(v[i] >= 0, "%s: \"%s\" accepted as %" PRId64, resource_name(i), text, v[i]);
        check_rendering(i, text, v[i]);
    }
    FUZZ_CHECK(ok[RES_MEMORY] == ok[RES_EPHEMERAL] && v[RES_MEMORY] == v[RES_EPHEMERAL],
               "\"%s\": memory and ephemeral-storage disagree", text);
    for (int i = 0; i < resource_count(); i++)
        FUZZ_CHECK(!whole_kind(i) || (ok[i] == ok[RES_PODS] && v[i] == v[RES_PODS]), "\"%s\": %s and pods disagree",
                   text, resource_name(i));
    if (ok[RES_CPU])
        FUZZ_CHECK(ok[RES_MEMORY] && v[RES_MEMORY] == ceil_thousandth(v[RES_CPU]),
                   "\"%s\" is %" PRId64 " millicores but %" PRId64 " bytes", text, v[RES_CPU], v[RES_MEMORY]);
    if (ok[RES_PODS]) {
        FUZZ_CHECK(ok[RES_MEMORY] && v[RES_MEMORY] == v[RES_PODS], "\"%s\": a whole number of pods, not of bytes",
                   text);
        FUZZ_CHECK(!ok[RES_CPU] || v[RES_CPU] == v[RES_PODS] * 1000,
                   "\"%s\": %" PRId64 " pods but %" PRId64 " millicores", text, v[RES_PODS], v[RES_CPU]);
    }
    if (ok[RES_CPU] && v[RES_CPU] % 1000 == 0)
        FUZZ_CHECK(ok[RES_PODS], "\"%s\" is %" PRId64 " millicores, yet not a whole number of pods", text, v[RES_CPU]);
}

/* quantity_parse's outcome as one comparable pair. */
struct parsed {
    int err;
    int64_t value;
};

static struct parsed parse_at(const char *text, int scale10)
{
    struct parsed p = {0, 0};
    p.err = quantity_parse(text, scale10, &p.value);
    if (p.err != QTY_OK)
        p.value = 0;
    return p;
}

static void check_same(const char *a, int scale_a, const char *b, int scale_b)
{
    struct parsed x = parse_at(a, scale_a), y = parse_at(b, scale_b);
    FUZZ_CHECK(x.err == y.err && x.value == y.value,
               "\"%s\" at scale %d gives (%d, %" PRId64 ") but \"%s\" at scale %d gives (%d, %" PRId64 ")", a, scale_a,
               x.err, x.value, b, scale_b, y.err, y.value);
}

/* Scales and suffixes: the same amount written two ways is one value, rounded up the same way. */
static void check_scales(const char *text)
{
    struct parsed whole = parse_at(text, 0), milli = parse_at(text, 3);
    bool bad_text = whole.err == QTY_EMPTY || whole.err == QTY_SYNTAX || whole.err == QTY_SUFFIX;
    FUZZ_CHECK(!bad_text || milli.err == whole.err, "\"%s\": error %d at scale 0, %d at scale 3", text, whole.err,
               milli.err);
    if (milli.err == QTY_OK)
        FUZZ_CHECK(whole.err == QTY_OK && whole.value == ceil_thousandth(milli.value),
                   "\"%s\" is %" PRId64 " at scale 3 but %" PRId64 " (error %d) at scale 0", text, milli.value,
                   whole.value, whole.err);
    size_t len = strlen(text);
    if (len == 0 || strspn(text, "+-0123456789.") != len || whole.err != QTY_OK)
        return; /* the suffix checks below need a plain number */
    char with[MAX_TEXT + 8];
    snprintf(with, sizeof with, "%sk", text);
    check_same(with, 0, text, 3);
    snprintf(with, sizeof with, "%se3", text);
    check_same(with, 0, text, 3);
    snprintf(with, sizeof with, "%sm", text);
    check_same(with, 3, text, 0);
    snprintf(with, sizeof with, "%se-3", text);
    check_same(with, 3, text, 0);
    char other[MAX_TEXT + 8];
    snprintf(with, sizeof with, "%sM", text);
    snprintf(other, sizeof other, "%sk", text);
    check_same(with, 0, other, 3);
    /* A whole number (ceil(x) == floor(x) == -ceil(-x)): Ki is exactly 1024 of it. */
    snprintf(other, sizeof other, "%c%s", text[0] == '-' ? '+' : '-', text + (text[0] == '-' || text[0] == '+'));
    struct parsed negated = parse_at(other, 0);
    if (negated.err == QTY_OK && negated.value != INT64_MIN && whole.value == -negated.value) {
        int64_t expect;
        snprintf(with, sizeof with, "%sKi", text);
        struct parsed kibi = parse_at(with, 0);
        if (!__builtin_mul_overflow(whole.value, 1024, &expect))
            FUZZ_CHECK(kibi.err == QTY_OK && kibi.value == expect, "\"%s\" is %" PRId64 " but \"%s\" is %" PRId64, text,
                       whole.value, with, kibi.value);
        else
            FUZZ_CHECK(kibi.err == QTY_RANGE, "\"%s\" is beyond int64 yet parsed as %" PRId64, with, kibi.value);
    }
}

/* quantity_format writes any value at any scale as text that parses back to it. */
static void check_format(const uint8_t *data, size_t size)
{
    if (size < 9)
        return;
    int64_t value;
    memcpy(&value, data, sizeof value);
    int scale10 = (int8_t)data[8] % 25;
    for (int binary = 0; binary <= 1; binary++) {
        char buf[64];
        int n = quantity_format(value, scale10, binary, buf, sizeof buf);
        FUZZ_CHECK(n > 0 && (size_t)n == strlen(buf), "%" PRId64 " at scale %d does not format", value, scale10);
        struct parsed back = parse_at(buf, scale10);
        FUZZ_CHECK(back.err == QTY_OK && back.value == value,
                   "%" PRId64 " at scale %d%s formats as \"%s\", which parses back as (%d, %" PRId64 ")", value,
                   scale10, binary ? " (binary)" : "", buf, back.err, back.value);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[MAX_TEXT + 1];
    size_t len = size < MAX_TEXT ? size : MAX_TEXT;
    memcpy(text, data, len);
    text[len] = '\0'; /* a NUL in the input ends the text */
    check_kinds(text);
    check_scales(text);
    check_format(data, size);
    return 0;
}
