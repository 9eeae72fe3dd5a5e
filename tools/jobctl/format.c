/* Pure text helpers for jobctl's output: kubectl's HumanDuration, JSON scalars as cells, dotted
 * paths into JSON documents, percent-encoding and line-preserving document slices. */
#include "tools/jobctl/format.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"

/* "<a><unit_a>" followed by "<b><unit_b>" unless b is zero: "2m5s", "3h", "1y12d". */
static const char *two_units(char *buf, size_t len, int64_t a, const char *unit_a, int64_t b, const char *unit_b)
{
    if (b)
        snprintf(buf, len, "%" PRId64 "%s%" PRId64 "%s", a, unit_a, b, unit_b);
    else
        snprintf(buf, len, "%" PRId64 "%s", a, unit_a);
    return buf;
}

/* Follows k8s.io/apimachinery/pkg/util/duration.HumanDuration: two units while short, one later. */
static const char *age_hours(int64_t hours, char *buf, size_t len, int64_t minutes)
{
    int64_t days = hours / 24;
    if (hours < 8)
        return two_units(buf, len, hours, "h", minutes % 60, "m");
    if (hours < 48)
        return two_units(buf, len, hours, "h", 0, "");
    if (hours < 24 * 8)
        return two_units(buf, len, days, "d", hours % 24, "h");
    if (hours < 24 * 365 * 2)
        return two_units(buf, len, days, "d", 0, "");
    if (hours < 24 * 365 * 8)
        return two_units(buf, len, days / 365, "y", days % 365, "d");
    return two_units(buf, len, days / 365, "y", 0, "");
}

const char *human_age(int64_t ms, char *buf, size_t len)
{
    int64_t seconds = ms / 1000, minutes = seconds / 60;
    if (seconds < -1) {
        snprintf(buf, len, "<invalid>");
        return buf;
    }
    if (seconds < 0)
        return two_units(buf, len, 0, "s", 0, "");
    if (seconds < 120)
        return two_units(buf, len, seconds, "s", 0, "");
    if (minutes < 10)
        return two_units(buf, len, minutes, "m", seconds % 60, "s");
    if (minutes < 180)
        return two_units(buf, len, minutes, "m", 0, "");
    return age_hours(minutes / 60, buf, len, minutes);
}

const char *age_since(const json_t *ts, int64_t now_ms, char *buf, size_t len)
{
    int64_t then;
    if (!json_is_string(ts) || rfc3339_parse(json_string_value(ts), &then) != 0) {
        snprintf(buf, len, "<unknown>");
        return buf;
    }
    return human_age(now_ms - then, buf, len);
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* One step of a dotted path: an object member, or an array element for a numeric segment. */
static json_t *json_step(const json_t *v, const char *seg, size_t n)
{
    if (json_is_object(v)) {
        char key[128];
        if (n >= sizeof key)
            return NULL;
        memcpy(key, seg, n);
        key[n] = '\0';
        return json_object_get(v, key);
    }
    if (json_is_array(v) && all_digits(seg, n))
        return json_array_get(v, strtoul(seg, NULL, 10));
    return NULL;
}

json_t *json_at(const json_t *root, const char *path)
{
    json_t *v = (json_t *)root;
    const char *p = path;
    while (v && *p) {
        size_t n = strcspn(p, ".");
        v = json_step(v, p, n);
        p += n;
        if (*p == '.')
            p++;
    }
    return v;
}

const char *json_cell(const json_t *v, char *buf, size_t len)
{
    if (json_is_string(v) && json_string_value(v)[0])
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%g", json_real_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else if (json_is_object(v))
        snprintf(buf, len, "<object>");
    else if (json_is_array(v))
        snprintf(buf, len, "<array>");
    else
        snprintf(buf, len, "<none>");
    return buf;
}

const char *json_count(const json_t *v, char *buf, size_t len)
{
    if (!v || json_is_null(v)) {
        snprintf(buf, len, "0");
        return buf;
    }
    return json_cell(v, buf, len);
}

void url_escape(struct sbuf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (isalnum(*p) || strchr("-._~", *p)) {
            sbuf_append(b, p, 1);
        } else {
            char enc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            sbuf_append(b, enc, 3);
        }
    }
}

char *slice_keeping_lines(const char *data, size_t start, size_t end, size_t *len)
{
    struct sbuf b = {0};
    for (size_t i = 0; i < start; i++)
        if (data[i] == '\n')
            sbuf_append(&b, "\n", 1);
    sbuf_append(&b, data + start, end - start);
    *len = b.len;
    return sbuf_take(&b);
}
