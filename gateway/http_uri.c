/* A request's URI as the client sent it, checked before libmicrohttpd decodes it (libmicrohttpd leaves
 * a bad %xx as it is, decodes %00 into a NUL that cuts the string, and hands on bytes that are not
 * UTF-8, which no JSON answer can then repeat). */
#include "gateway/http_uri.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The bytes of a UTF-8 sequence still expected after lead byte b (0 for ASCII), or -1 when b cannot
 * start one (a continuation byte, an overlong 0xC0/0xC1 lead, or one beyond U+10FFFF). */
static int utf8_continuations(uint8_t b)
{
    return b < 0x80 ? 0 : b < 0xC2 ? -1 : b < 0xE0 ? 1 : b < 0xF0 ? 2 : b < 0xF5 ? 3 : -1;
}

/* Whether a continuation byte may follow lead at position i (1-based) of its sequence: excludes
 * overlong three- and four-byte forms, surrogates and code points past U+10FFFF. */
static bool utf8_continuation_ok(uint8_t lead, int i, uint8_t b)
{
    if ((b & 0xC0) != 0x80)
        return false;
    if (i != 1)
        return true;
    return !((lead == 0xE0 && b < 0xA0) || (lead == 0xED && b > 0x9F) || (lead == 0xF0 && b < 0x90) ||
             (lead == 0xF4 && b > 0x8F));
}

/* Decodes [s, end) as a URL component would be: each %XX a byte, the rest as it is. Returns NULL when
 * the decoded bytes are well-formed UTF-8 without NUL, else what is wrong. */
static const char *component_problem(const char *s, const char *end)
{
    uint8_t lead = 0;
    int pending = 0, seen = 0;
    for (const char *p = s; p < end; p++) {
        uint8_t b = (uint8_t)*p;
        if (*p == '%') {
            int hi = p + 1 < end ? hex_value(p[1]) : -1, lo = p + 2 < end ? hex_value(p[2]) : -1;
            if (hi < 0 || lo < 0)
                return "a '%' not followed by two hexadecimal digits";
            b = (uint8_t)(hi << 4 | lo);
            if (b == 0)
                return "an encoded NUL (%00)";
            p += 2;
        }
        if (pending > 0) {
            if (!utf8_continuation_ok(lead, ++seen, b))
                return "bytes that are not UTF-8";
            pending--;
            continue;
        }
        pending = utf8_continuations(b);
        if (pending < 0)
            return "bytes that are not UTF-8";
        lead = b;
        seen = 0;
    }
    return pending > 0 ? "bytes that are not UTF-8 (a character cut short)" : NULL;
}

/* The parameter's name for a message: its key as sent when that is short and plain, else its place. */
static void describe_param(const char *key, size_t key_len, size_t index, char *out, size_t len)
{
    bool plain = key_len > 0 && key_len <= 64;
    for (size_t i = 0; plain && i < key_len; i++)
        plain = (key[i] >= 'a' && key[i] <= 'z') || (key[i] >= 'A' && key[i] <= 'Z') ||
                (key[i] >= '0' && key[i] <= '9') || key[i] == '_' || key[i] == '-' || key[i] == '.';
    if (plain)
        snprintf(out, len, "query parameter \"%.*s\"", (int)key_len, key);
    else
        snprintf(out, len, "query parameter %zu", index + 1);
}

int http_uri_check(const char *raw, size_t *nparams, char *why, size_t whylen)
{
    const char *query = strchr(raw, '?');
    const char *path_end = query ? query : raw + strlen(raw);
    *nparams = 0;
    const char *problem = component_problem(raw, path_end);
    if (problem) {
        snprintf(why, whylen, "the URL's path has %s", problem);
        return 400;
    }
    if (!query)
        return 0;
    size_t count = 0;
    for (const char *p = query + 1; *p;) {
        const char *amp = strchr(p, '&');
        const char *param_end = amp ? amp : p + strlen(p);
        if (param_end > p)
            count++;
        p = amp ? amp + 1 : param_end;
    }
    *nparams = count;
    if (count > HTTP_MAX_QUERY_PARAMS) {
        snprintf(why, whylen, "the URL's query has %zu parameters; this server reads at most %d", count,
                 HTTP_MAX_QUERY_PARAMS);
        return 414;
    }
    size_t index = 0;
    for (const char *p = query + 1; *p; index++) {
        const char *amp = strchr(p, '&');
        const char *param_end = amp ? amp : p + strlen(p);
        const char *eq = memchr(p, '=', (size_t)(param_end - p));
        const char *key_end = eq ? eq : param_end;
        problem = component_problem(p, param_end);
        if (problem) {
            char name[96];
            describe_param(p, (size_t)(key_end - p), index, name, sizeof name);
            snprintf(why, whylen, "the URL's %s has %s", name, problem);
            return 400;
        }
        p = amp ? amp + 1 : param_end;
    }
    return 0;
}
