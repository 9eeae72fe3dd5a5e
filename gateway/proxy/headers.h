/* The proxy's pure parts: the path split, the query without the token, the cookie, the origin checks
 * and which headers cross the proxy in each direction. No I/O; unit-tested. */
#ifndef CALDERA_PROXY_HEADERS_H
#define CALDERA_PROXY_HEADERS_H

#include <stdbool.h>
#include <stddef.h>

struct proxy_target;

#define PROXY_PREFIX "/proxy/"
#define PROXY_COOKIE "caldera_proxy"
#define PROXY_NAME_MAX 254

/* A /proxy/{ns}/{name}/{rest} URI as sent (still percent-encoded, query included), split. */
struct proxy_path {
    char ns[PROXY_NAME_MAX + 1];
    char name[PROXY_NAME_MAX + 1];
    char prefix[2 * PROXY_NAME_MAX + 16]; /* "/proxy/{ns}/{name}" */
    const char *rest;                     /* into the URI: "/..." after the name ("" when none) */
    const char *query;                    /* into the URI: after '?', or NULL */
    size_t rest_len;                      /* rest's length up to the query */
};

/* Whether path (decoded or not) is under /proxy/. */
bool proxy_is_path(const char *path);
/* Splits raw_uri; false when it has no namespace or no name, or either is not a plain name
 * (letters, digits, '-', '.', '_'), or too long. */
bool proxy_split(const char *raw_uri, struct proxy_path *out);
/* The path and query forwarded upstream: rest (or "/" when empty) when strip_prefix, else the
 * whole path; the query kept without any token= parameter. Returns the length written, or -1 when
 * out is too small. */
int proxy_upstream_uri(const struct proxy_path *p, bool strip_prefix, char *out, size_t outlen);
/* The same URI as the client should see it again without token=: the redirect after ?token=. */
int proxy_uri_without_token(const char *raw_uri, char *out, size_t outlen);
/* The value of ?token= in a raw query (percent-decoding not needed: tokens are id.secret in
 * [a-z0-9.]); its length in *len; NULL when none. */
const char *proxy_query_token(const char *query, size_t *len);
/* The value of the proxy cookie in a Cookie header; its length in *len; NULL when none. */
const char *proxy_cookie_token(const char *cookie_header, size_t *len);
/* The Cookie header forwarded: the client's without the proxy's cookie, nor any cookie named as one
 * of `added` ("a=1; b=2": the cookies the companion's type adds, NULL for none), which a browser
 * cookie of the same name would otherwise shadow (servers read the first). Returns the length, 0 when
 * nothing is left (send none), -1 when out is too small. */
int proxy_cookie_without_ours(const char *cookie_header, const char *added, char *out, size_t outlen);
/* The value of the companion type's own "Cookie:" header in t, or NULL. */
const char *proxy_added_cookie(const struct proxy_target *t);
/* The Set-Cookie value for a token: HttpOnly, SameSite=Strict, Path=<prefix>/. */
int proxy_set_cookie(const char *prefix, const char *token, size_t len, char *out, size_t outlen);

/* Whether origin ("scheme://host[:port]", or a Referer URL) names host as the client sent it in
 * Host: http:// or https:// followed by exactly host, then nothing, or (referer) '/' or '?'. */
bool proxy_same_origin(const char *origin, const char *host, bool is_referer);

/* Request headers the proxy never forwards as the client sent them: hop-by-hop ones (Connection,
 * Keep-Alive, Proxy-*, TE, Trailer, Transfer-Encoding, Upgrade), Authorization, Cookie (forwarded
 * without ours), Content-Length and Expect (curl's), the X-Forwarded-* the proxy sets, and any
 * the target sets itself. upgrade: Connection and Upgrade are written by the proxy anyway. */
bool proxy_request_header_dropped(const char *name, const struct proxy_target *t);
/* Response headers not copied to the client: hop-by-hop ones, Content-Length (the server's own),
 * and any header whose value carries one of the target's secrets. */
bool proxy_response_header_dropped(const char *name, const char *value, const struct proxy_target *t);
/* A Location from a companion that strips the prefix: an absolute path ("/x") or a URL on
 * 127.0.0.1:port gets the prefix back. Returns true with the rewritten value in out. */
bool proxy_location_rewrite(const char *location, const char *prefix, int port, char *out, size_t outlen);

#endif
