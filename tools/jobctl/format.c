/* Pure text helpers for jobctl's output (ages are common/age.c's): JSON scalars as cells, dotted
 * paths into JSON documents, percent-encoding and line-preserving document slices. */
#include "tools/jobctl/format.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"

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
