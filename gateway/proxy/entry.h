/* The proxy as the gateway's hooks see it: /proxy/{ns}/{name}/... is let in (who asks, their
 * namespace, the cookie, cross-site checks, the companion's phase) before its body is read, then
 * forwarded (HTTP) or tunnelled (WebSocket). */
#ifndef CALDERA_PROXY_ENTRY_H
#define CALDERA_PROXY_ENTRY_H

#include <stdbool.h>

struct http_req;

/* Whether the request is the proxy's (its path is under /proxy/). */
bool proxy_request(const struct http_req *req);
/* Once the headers are in: answers a request that goes no further (404 unknown, 401, 403, 302 after
 * ?token=, 503 not Ready) and returns true; else keeps what it learnt in req->ext and returns false. */
bool proxy_admit(struct http_req *req);
/* Once the body is in: forwards it. */
void proxy_dispatch(struct http_req *req);
/* When the request completes: frees req->ext. */
void proxy_release(struct http_req *req);

#endif
