/* One proxied request as the proxy's files share it: where it goes and how it was let in, kept in
 * req->ext from admit to the end of the request. */
#ifndef CALDERA_PROXY_CALL_H
#define CALDERA_PROXY_CALL_H

#include <stdbool.h>
#include <stddef.h>

#include "gateway/proxy/headers.h"
#include "gateway/proxy/proxy.h"

struct http_req;
struct forward;

struct proxy_call {
    const struct proxy_resolver *resolver;
    struct proxy_path path; /* its pointers into req->raw_uri */
    struct proxy_target target;
    bool via_cookie;     /* authenticated by the proxy's cookie */
    bool upgrade;        /* a WebSocket upgrade */
    struct forward *fwd; /* forward.c: the transfer from admit to dispatch */
    int upstream_fd;     /* upgrade.c: the companion's socket once connected, else -1 */
    char *leftover;      /* upgrade.c: what the companion sent after its 101's head */
    size_t leftover_len;
};

/* forward.c: sets the transfer up once the headers are in, so that the body streams to the companion
 * as it arrives (req->body_sink, which slows the client down to the companion's pace). Returns 0,
 * or -1 having answered (out of memory). */
int proxy_forward_begin(struct http_req *req, struct proxy_call *call);
/* forward.c: once the body is in: the companion's answer, streamed back. */
void proxy_forward(struct http_req *req, struct proxy_call *call);
/* forward.c: frees a transfer that never reached proxy_forward. */
void proxy_forward_release(struct proxy_call *call);
/* upgrade.c: connects to the companion, relays the upgrade, then the bytes both ways. */
void proxy_upgrade(struct http_req *req, struct proxy_call *call);
/* upgrade.c: frees what proxy_upgrade left in call. */
void proxy_upgrade_release(struct proxy_call *call);

/* The headers every forwarded request carries besides the client's own (forward.c): the target's,
 * X-Forwarded-Host/Proto/Prefix; each(ctx, "Name: value") for each. */
void proxy_added_headers(const struct http_req *req, const struct proxy_call *call,
                         void (*each)(void *ctx, const char *line), void *ctx);

#endif
