/* The token check of every request (header, query, cookie, in that order) and the Origin check that
 * keeps another site's page from opening a terminal with the browser's cookie. */
#include "tools/terminal/auth.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#define MAX_VALUE 1024

static bool same_token(const char *given, size_t len, const char *token)
{
    size_t n = strlen(token);
    unsigned char diff = (unsigned char)(len != n);
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(token[i] ^ (i < len ? given[i] : 0));
    return diff == 0;
}

static bool header_value(struct lws *wsi, enum lws_token_indexes h, char *out, size_t len)
{
    int total = lws_hdr_total_length(wsi, h);
    return total > 0 && (size_t)total < len && lws_hdr_copy(wsi, out, (int)len, h) >= 0;
}

static bool from_header(struct lws *wsi, const char *token)
{
    char v[MAX_VALUE];
    if (!header_value(wsi, WSI_TOKEN_HTTP_AUTHORIZATION, v, sizeof v))
        return false;
    const char *t = NULL;
    if (strncasecmp(v, "token ", 6) == 0)
        t = v + 6;
    else if (strncasecmp(v, "bearer ", 7) == 0)
        t = v + 7;
    while (t && *t == ' ')
        t++;
    return t && same_token(t, strlen(t), token);
}

static bool from_query(struct lws *wsi, const char *token)
{
    char arg[MAX_VALUE];
    for (int i = 0; i < 16; i++) {
        int n = lws_hdr_copy_fragment(wsi, arg, sizeof arg, WSI_TOKEN_HTTP_URI_ARGS, i);
        if (n < 0) {
            if (lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, i) <= 0)
                return false;
            continue; /* too long to be ours */
        }
        if (strncmp(arg, "token=", 6) == 0 && same_token(arg + 6, (size_t)n - 6, token))
            return true;
    }
    return false;
}

static bool from_cookie(struct lws *wsi, const char *token)
{
    char v[MAX_VALUE];
    if (!header_value(wsi, WSI_TOKEN_HTTP_COOKIE, v, sizeof v))
        return false;
    static const char name[] = TERMINAL_COOKIE "=";
    for (char *p = v; p && *p;) {
        while (*p == ' ' || *p == ';')
            p++;
        char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > sizeof name - 1 && strncmp(p, name, sizeof name - 1) == 0 &&
            same_token(p + sizeof name - 1, len - (sizeof name - 1), token))
            return true;
        p = end;
    }
    return false;
}

enum term_auth term_auth_check(struct lws *wsi, const char *token)
{
    if (from_header(wsi, token))
        return TERM_AUTH_HEADER;
    if (from_query(wsi, token))
        return TERM_AUTH_QUERY;
    if (from_cookie(wsi, token))
        return TERM_AUTH_COOKIE;
    return TERM_AUTH_NONE;
}

int term_auth_same_origin(struct lws *wsi)
{
    char origin[MAX_VALUE], host[MAX_VALUE];
    if (lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) <= 0)
        return 1; /* not a browser */
    if (!header_value(wsi, WSI_TOKEN_ORIGIN, origin, sizeof origin))
        return 0;
    if (lws_hdr_custom_copy(wsi, host, (int)sizeof host, "x-forwarded-host:", 17) <= 0 &&
        !header_value(wsi, WSI_TOKEN_HOST, host, sizeof host))
        return 0;
    const char *o = strstr(origin, "://");
    return o && strcasecmp(o + 3, host) == 0;
}
