/* A request's URI as the client sent it, checked before libmicrohttpd decodes it (libmicrohttpd leaves
 * a bad %xx as it is, decodes %00 into a NUL that cuts the string, and hands on bytes that are not
 * UTF-8, which no JSON answer can then repeat). */
#include "gateway/http/uri.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

static int hex_value(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Decodes [s, end) as a URL component would be: each %XX a byte, the rest as it is. Returns NULL when
 * the decoded bytes are well-formed UTF-8 without NUL, else what is wrong. */
static const char *component_problem(const char *s, const char *end)
{
    char stack[1024], *decoded = (size_t)(end - s) <= sizeof stack ? stack : malloc((size_t)(end - s));
    if (!decoded)
        return "more than this server can decode";
    const char *problem = NULL;
    size_t n = 0;
    for (const char *p = s; p < end && !problem; p++) {
        if (*p != '%') {
            decoded[n++] = *p;
            continue;
        }
        int hi = p + 1 < end ? hex_value(p[1]) : -1, lo = p + 2 < end ? hex_value(p[2]) : -1;
        if (hi < 0 || lo < 0)
            problem = "a '%' not followed by two hexadecimal digits";
        else if (hi == 0 && lo == 0)
            problem = "an encoded NUL (%00)";
        else
            decoded[n++] = (char)(hi << 4 | lo);
        p += 2;
    }
    if (!problem && !utf8_valid(decoded, n))
        problem = "bytes that are not UTF-8";
    if (decoded != stack)
        free(decoded);
    return problem;
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
