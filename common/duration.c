/* Parsing durations: seconds as numbers, or Go/Kubernetes duration strings, converted to whole
 * milliseconds with integer arithmetic so "0.1s" is exactly 100 ms. */
#include "common/duration.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Fraction digits kept exactly; any further non-zero digit is finer than a millisecond. */
#define FRACTION_DIGITS 9

struct unit {
    const char *name;
    int64_t ms;
};

static const struct unit units[] = {{"h", 3600000}, {"m", 60000}, {"s", 1000}, {"ms", 1}};

/* Reads "<digits>[.<digits>]" at *p as a count of unit_ms and advances *p. */
static int parse_decimal(const char **p, int64_t unit_ms, int64_t *out, const char **why)
{
    const char *s = *p;
    int64_t whole = 0, frac = 0, scale = 1;
    int digits = 0;
    for (; isdigit((unsigned char)*s); s++, digits++) {
        whole = whole * 10 + (*s - '0');
        if (whole > DURATION_MAX_MS) {
            *why = "must be at most 100 years";
            return -1;
        }
    }
    bool finer = false;
    if (*s == '.') {
        for (s++; isdigit((unsigned char)*s); s++, digits++) {
            if (scale < 1000000000) {
                frac = frac * 10 + (*s - '0');
                scale *= 10;
            } else if (*s != '0') {
                finer = true;
            }
        }
    }
    if (digits == 0) {
        *why = "must be a number of seconds or a duration such as 90s, 5m or 1h30m";
        return -1;
    }
    int64_t part = frac * unit_ms;
    if (finer || part % scale != 0) {
        *why = "must be a whole number of milliseconds";
        return -1;
    }
    if (whole > DURATION_MAX_MS / unit_ms) {
        *why = "must be at most 100 years";
        return -1;
    }
    *out = whole * unit_ms + part / scale;
    *p = s;
    return 0;
}

static const struct unit *find_unit(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == len && strncmp(units[i].name, s, len) == 0)
            return &units[i];
    return NULL;
}

int duration_parse(const char *text, int64_t *ms, const char **why)
{
    const char *p = text;
    if (*p == '-') {
        *why = "must not be negative";
        return -1;
    }
    if (*p == '+')
        p++;
    size_t number_len = strspn(p, "0123456789.");
    if (number_len > 0 && p[number_len] == '\0')
        return parse_decimal(&p, 1000, ms, why); /* a bare number: seconds */
    int64_t total = 0;
    if (!*p) {
        *why = "must not be empty";
        return -1;
    }
    while (*p) {
        const char *num = p;
        size_t unit_len;
        const struct unit *u;
        p += strspn(p, "0123456789.");
        unit_len = strspn(p, "abcdefghijklmnopqrstuvwxyz");
        u = find_unit(p, unit_len);
        if (p == num || !u) {
            *why = unit_len > 0 && p != num ? "must use the units h, m, s or ms"
                                            : "must be a number of seconds or a duration such as 90s, 5m or 1h30m";
            return -1;
        }
        const char *q = num;
        int64_t part;
        if (parse_decimal(&q, u->ms, &part, why) != 0)
            return -1;
        if (q != p) {
            *why = "must be a number of seconds or a duration such as 90s, 5m or 1h30m";
            return -1;
        }
        total += part;
        if (total > DURATION_MAX_MS) {
            *why = "must be at most 100 years";
            return -1;
        }
        p += unit_len;
    }
    *ms = total;
    return 0;
}

const char *duration_text(int64_t ms, char *buf, size_t len)
{
    char frac[8] = "";
    if (ms % 1000) {
        snprintf(frac, sizeof frac, ".%03lld", (long long)(ms % 1000));
        for (size_t n = strlen(frac); frac[n - 1] == '0'; n--)
            frac[n - 1] = '\0';
    }
    snprintf(buf, len, "%lld%ss", (long long)(ms / 1000), frac);
    return buf;
}

int duration_from_json(const json_t *v, int64_t *ms, const char **why)
{
    if (json_is_string(v))
        return duration_parse(json_string_value(v), ms, why);
    if (json_is_integer(v)) {
        json_int_t s = json_integer_value(v);
        if (s < 0) {
            *why = "must not be negative";
            return -1;
        }
        if (s > DURATION_MAX_MS / 1000) {
            *why = "must be at most 100 years";
            return -1;
        }
        *ms = (int64_t)s * 1000;
        return 0;
    }
    if (json_is_real(v)) {
        double s = json_real_value(v);
        if (s < 0) {
            *why = "must not be negative";
            return -1;
        }
        if (s * 1000 > (double)DURATION_MAX_MS) {
            *why = "must be at most 100 years";
            return -1;
        }
        double r = round(s * 1000);
        if (fabs(s * 1000 - r) > 1e-6) {
            *why = "must be a whole number of milliseconds";
            return -1;
        }
        *ms = (int64_t)r;
        return 0;
    }
    *why = "must be a number of seconds or a duration such as 90s, 5m or 1h30m";
    return -1;
}

/* Go's units in nanoseconds (time.ParseDuration's unitMap). */
static const struct {
    const char *name;
    int64_t ns;
} go_units[] = {{"ns", 1},       {"us", 1000},        {"\xc2\xb5s", 1000},  {"\xce\xbcs", 1000},
                {"ms", 1000000}, {"s", 1000000000LL}, {"m", 60000000000LL}, {"h", 3600000000000LL}};

#define GO_NS_MAX INT64_MAX

__attribute__((format(printf, 3, 4))) static int go_fail(char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return -1;
}

/* One <decimal><unit> at *p, added to *total in nanoseconds. */
static int go_component(const char **p, const char *text, int64_t *total, char *why, size_t why_len)
{
    const char *s = *p;
    int64_t whole = 0, frac = 0, scale = 1;
    bool digits = false, overflow = false;
    for (; isdigit((unsigned char)*s); s++, digits = true) {
        if (whole > (GO_NS_MAX - 9) / 10)
            overflow = true;
        else
            whole = whole * 10 + (*s - '0');
    }
    if (*s == '.') {
        for (s++; isdigit((unsigned char)*s); s++, digits = true) {
            if (scale < 1000000000000000000LL) { /* further digits cannot matter below a nanosecond */
                frac = frac * 10 + (*s - '0');
                scale *= 10;
            }
        }
    }
    if (!digits || overflow)
        return go_fail(why, why_len, "time: invalid duration \"%s\"", text);
    const char *u = s;
    while (*s && *s != '.' && !isdigit((unsigned char)*s))
        s++;
    size_t ulen = (size_t)(s - u);
    if (ulen == 0)
        return go_fail(why, why_len, "time: missing unit in duration \"%s\"", text);
    int64_t unit = 0;
    for (size_t i = 0; i < sizeof go_units / sizeof go_units[0]; i++)
        if (strlen(go_units[i].name) == ulen && strncmp(go_units[i].name, u, ulen) == 0)
            unit = go_units[i].ns;
    if (!unit) {
        char name[16];
        snprintf(name, sizeof name, "%.*s", (int)(ulen < 15 ? ulen : 15), u);
        return go_fail(why, why_len, "time: unknown unit \"%s\" in duration \"%s\"", name, text);
    }
    if (whole > GO_NS_MAX / unit)
        return go_fail(why, why_len, "time: invalid duration \"%s\"", text);
    int64_t v = whole * unit;
    /* frac / scale * unit, without overflow: unit <= 3.6e12 and frac < scale */
    long double part = (long double)frac * (long double)unit / (long double)scale;
    v += (int64_t)part;
    if (v < 0 || *total > GO_NS_MAX - v)
        return go_fail(why, why_len, "time: invalid duration \"%s\"", text);
    *total += v;
    *p = s;
    return 0;
}

int duration_parse_go(const char *text, int64_t *ms, char *why, size_t why_len)
{
    const char *p = text;
    bool negative = false;
    if (*p == '-' || *p == '+')
        negative = *p++ == '-';
    if (strcmp(p, "0") == 0) {
        *ms = 0;
        return 0;
    }
    if (!*p)
        return go_fail(why, why_len, "time: invalid duration \"%s\"", text);
    int64_t ns = 0;
    while (*p)
        if (go_component(&p, text, &ns, why, why_len) != 0)
            return -1;
    if (negative && ns > 0)
        return go_fail(why, why_len, "must not be negative");
    if (ns % 1000000 != 0)
        return go_fail(why, why_len, "must be a whole number of milliseconds");
    if (ns / 1000000 > DURATION_MAX_MS)
        return go_fail(why, why_len, "must be at most 100 years");
    *ms = ns / 1000000;
    return 0;
}
