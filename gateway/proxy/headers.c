/* The proxy's pure parts (headers.h): paths, queries, cookies, origins, and which headers cross to
 * the companion and back. */
#include "gateway/proxy/headers.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gateway/proxy/proxy.h"

bool proxy_is_path(const char *path) { return path && strncmp(path, PROXY_PREFIX, strlen(PROXY_PREFIX)) == 0; }

static bool plain_name(const char *s, size_t n)
{
    if (n == 0 || n > PROXY_NAME_MAX || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
              c == '_'))
            return false;
    }
    return true;
}

bool proxy_split(const char *raw_uri, struct proxy_path *out)
{
    memset(out, 0, sizeof *out);
    if (!proxy_is_path(raw_uri))
        return false;
    const char *q = strchr(raw_uri, '?');
    size_t path_len = q ? (size_t)(q - raw_uri) : strlen(raw_uri);
    const char *ns = raw_uri + strlen(PROXY_PREFIX), *end = raw_uri + path_len;
    const char *slash = memchr(ns, '/', (size_t)(end - ns));
    if (!slash)
        return false;
    const char *name = slash + 1;
    const char *name_end = memchr(name, '/', (size_t)(end - name));
    if (!name_end)
        name_end = end;
    size_t nlen = (size_t)(slash - ns), mlen = (size_t)(name_end - name);
    if (!plain_name(ns, nlen) || !plain_name(name, mlen))
        return false;
    memcpy(out->ns, ns, nlen);
    memcpy(out->name, name, mlen);
    snprintf(out->prefix, sizeof out->prefix, "/proxy/%s/%s", out->ns, out->name);
    out->rest = name_end;
    out->rest_len = (size_t)(end - name_end);
    out->query = q ? q + 1 : NULL;
    return true;
}

/* Whether a query parameter (up to '&' or the end) is token=... */
static bool is_token_param(const char *p, size_t n) { return n >= 6 && strncmp(p, "token=", 6) == 0; }

/* Appends query without token= to out at *pos (with the '?' when anything is left). */
static int append_query_without_token(const char *query, char *out, size_t outlen, size_t *pos)
{
    bool first = true;
    for (const char *p = query; p && *p;) {
        size_t n = strcspn(p, "&");
        if (n > 0 && !is_token_param(p, n)) {
            if (*pos + n + 2 > outlen)
                return -1;
            out[(*pos)++] = first ? '?' : '&';
            memcpy(out + *pos, p, n);
            *pos += n;
            first = false;
        }
        p += n;
        if (*p == '&')
            p++;
    }
    out[*pos] = '\0';
    return 0;
}

int proxy_upstream_uri(const struct proxy_path *p, bool strip_prefix, char *out, size_t outlen)
{
    size_t pos = 0;
    const char *path = strip_prefix ? p->rest : p->rest - strlen(p->prefix);
    size_t len = strip_prefix ? p->rest_len : p->rest_len + strlen(p->prefix);
    if (strip_prefix && len == 0) {
        path = "/";
        len = 1;
    }
    if (len + 1 > outlen)
        return -1;
    memcpy(out, path, len);
    pos = len;
    out[pos] = '\0';
    if (append_query_without_token(p->query, out, outlen, &pos) != 0)
        return -1;
    return (int)pos;
}

int proxy_uri_without_token(const char *raw_uri, char *out, size_t outlen)
{
    const char *q = strchr(raw_uri, '?');
    size_t len = q ? (size_t)(q - raw_uri) : strlen(raw_uri);
    if (len + 1 > outlen)
        return -1;
    memcpy(out, raw_uri, len);
    out[len] = '\0';
    if (q && append_query_without_token(q + 1, out, outlen, &len) != 0)
        return -1;
    return (int)len;
}

const char *proxy_query_token(const char *query, size_t *len)
{
    for (const char *p = query; p && *p;) {
        size_t n = strcspn(p, "&");
        if (is_token_param(p, n) && n > 6) {
            *len = n - 6;
            return p + 6;
        }
        p += n;
        if (*p == '&')
            p++;
    }
    return NULL;
}

/* Walks "a=1; b=2": calls back with each pair's start and length (spaces trimmed). */
static const char *next_pair(const char *p, size_t *n)
{
    while (*p == ' ' || *p == ';' || *p == '\t')
        p++;
    if (!*p)
        return NULL;
    *n = strcspn(p, ";");
    while (*n > 0 && (p[*n - 1] == ' ' || p[*n - 1] == '\t'))
        (*n)--;
    return p;
}

static bool is_ours(const char *pair, size_t n)
{
    size_t k = strlen(PROXY_COOKIE);
    return n > k && strncmp(pair, PROXY_COOKIE, k) == 0 && pair[k] == '=';
}

const char *proxy_cookie_token(const char *cookie_header, size_t *len)
{
    size_t n;
    for (const char *p = cookie_header; p && (p = next_pair(p, &n)) != NULL; p += n) {
        if (is_ours(p, n) && n > strlen(PROXY_COOKIE) + 1) {
            *len = n - strlen(PROXY_COOKIE) - 1;
            return p + strlen(PROXY_COOKIE) + 1;
        }
        if (n == 0)
            break;
    }
    return NULL;
}

/* Whether the cookie pair's name is the name of one of the pairs in list. */
static bool named_in(const char *pair, size_t n, const char *list)
{
    size_t name_len = strcspn(pair, "=");
    if (name_len > n)
        name_len = n;
    size_t m;
    for (const char *q = list; q && (q = next_pair(q, &m)) != NULL && m > 0; q += m) {
        size_t q_len = strcspn(q, "=");
        if (q_len > m)
            q_len = m;
        if (q_len == name_len && strncmp(q, pair, name_len) == 0)
            return true;
    }
    return false;
}

const char *proxy_added_cookie(const struct proxy_target *t)
{
    for (int i = 0; i < t->nheaders; i++)
        if (strncasecmp(t->headers[i], "Cookie:", 7) == 0)
            return t->headers[i] + 7 + strspn(t->headers[i] + 7, " \t");
    return NULL;
}

int proxy_cookie_without_ours(const char *cookie_header, const char *added, char *out, size_t outlen)
{
    size_t pos = 0, n;
    if (outlen == 0)
        return -1;
    out[0] = '\0';
    for (const char *p = cookie_header; p && (p = next_pair(p, &n)) != NULL; p += n) {
        if (n == 0)
            break;
        if (is_ours(p, n) || named_in(p, n, added))
            continue;
        if (pos + n + 3 > outlen)
            return -1;
        if (pos > 0) {
            out[pos++] = ';';
            out[pos++] = ' ';
        }
        memcpy(out + pos, p, n);
        pos += n;
        out[pos] = '\0';
    }
    return (int)pos;
}

int proxy_set_cookie(const char *prefix, const char *token, size_t len, char *out, size_t outlen)
{
    int n = snprintf(out, outlen, "%s=%.*s; Path=%s/; HttpOnly; SameSite=Strict", PROXY_COOKIE, (int)len, token,
                     prefix);
    return n < 0 || (size_t)n >= outlen ? -1 : n;
}

bool proxy_same_origin(const char *origin, const char *host, bool is_referer)
{
    if (!origin || !host || !*host)
        return false;
    const char *rest = strncasecmp(origin, "http://", 7) == 0    ? origin + 7
                       : strncasecmp(origin, "https://", 8) == 0 ? origin + 8
                                                                 : NULL;
    size_t hlen = strlen(host);
    if (!rest || strncasecmp(rest, host, hlen) != 0)
        return false;
    char after = rest[hlen];
    return after == '\0' || (is_referer && (after == '/' || after == '?' || after == '#'));
}

static bool header_named(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcasecmp(name, *list) == 0)
            return true;
    return false;
}

static const char *const hop_by_hop[] = {"Connection",         "Keep-Alive", "Proxy-Connection",
                                         "Proxy-Authenticate", "TE",         "Trailer",
                                         "Transfer-Encoding",  "Upgrade",    NULL};
static const char *const request_dropped[] = {
    "Authorization",     "Proxy-Authorization", "Cookie",          "Content-Length", "Expect", "X-Forwarded-Host",
    "X-Forwarded-Proto", "X-Forwarded-Prefix",  "X-Forwarded-For", "Forwarded",      NULL};

/* Whether one of t's "Name: value" headers has this name. */
static bool target_sets(const char *name, const struct proxy_target *t)
{
    size_t n = strlen(name);
    for (int i = 0; t && i < t->nheaders; i++)
        if (strncasecmp(t->headers[i], name, n) == 0 && t->headers[i][n] == ':')
            return true;
    return false;
}

bool proxy_request_header_dropped(const char *name, const struct proxy_target *t)
{
    return header_named(name, hop_by_hop) || header_named(name, request_dropped) || target_sets(name, t);
}

bool proxy_response_header_dropped(const char *name, const char *value, const struct proxy_target *t)
{
    if (header_named(name, hop_by_hop) || strcasecmp(name, "Content-Length") == 0)
        return true;
    for (int i = 0; t && value && i < t->nheaders; i++) {
        const char *colon = strchr(t->headers[i], ':');
        if (!colon)
            continue;
        const char *secret = colon + 1;
        while (*secret == ' ')
            secret++;
        const char *space = strrchr(secret, ' '); /* "token <secret>": the secret is the last word */
        const char *word = space ? space + 1 : secret;
        if (strlen(word) >= 8 && strstr(value, word))
            return true;
    }
    return false;
}

bool proxy_location_rewrite(const char *location, const char *prefix, int port, char *out, size_t outlen)
{
    char upstream[48];
    snprintf(upstream, sizeof upstream, "http://127.0.0.1:%d/", port);
    const char *path = NULL;
    if (strncmp(location, upstream, strlen(upstream)) == 0)
        path = location + strlen(upstream) - 1;
    else if (location[0] == '/' && location[1] != '/')
        path = location;
    if (!path)
        return false;
    int n = snprintf(out, outlen, "%s%s", prefix, path);
    return n > 0 && (size_t)n < outlen;
}
