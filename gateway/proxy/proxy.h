/* The companions' reverse proxy: /proxy/{ns}/{companion}/... forwarded to the companion's loopback
 * port with the companion's own secret added; where a companion is and its traffic go through a resolver. */
#ifndef CALDERA_GATEWAY_PROXY_H
#define CALDERA_GATEWAY_PROXY_H

#include <stdbool.h>
#include <stdint.h>

struct api_status;

#define PROXY_MAX_HEADERS 8
#define PROXY_HEADER_MAX 512

/* Where a companion is, as the proxy needs it. */
struct proxy_target {
    int port;                                        /* on 127.0.0.1 */
    char phase[16];                                  /* "Ready" is forwarded; any other is answered 503 */
    bool strip_prefix;                               /* forward the path without /proxy/{ns}/{name} */
    int nheaders;
    char headers[PROXY_MAX_HEADERS][PROXY_HEADER_MAX]; /* "Name: value" added to every forwarded request */
};

/* How the proxy learns about companions: the daemon sets one backed by the core; tests their own. */
struct proxy_resolver {
    /* Fills t for companion `name` of namespace ns: 0, or -1 with st set (404 NotFound when there is
     * none). Called on the request's connection thread; may block briefly. */
    int (*resolve)(void *ctx, const char *ns, const char *name, struct proxy_target *t, struct api_status *st);
    /* The proxy carried traffic for the companion at now_ms (wall clock, ms); called at most once a
     * second per companion and connection. May be NULL. */
    void (*touched)(void *ctx, const char *ns, const char *name, int64_t now_ms);
    void *ctx;
};

#endif
