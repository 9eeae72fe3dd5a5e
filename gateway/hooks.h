/* The hooks the gateway starts http/ with: limits first, then the route and who asks, then the
 * route's handler; the one place where the layers above HTTP meet it. */
#ifndef CALDERA_GATEWAY_HOOKS_H
#define CALDERA_GATEWAY_HOOKS_H

#include "gateway/http/http.h"

/* screen: a CORS preflight, a client over its rate (gateway/limits/limits.h); admit: the route
 * matched, then authentication and authorization (gateway/auth/request.h), or for a path under
 * /proxy/ the companions' proxy's own (gateway/proxy/entry.h); dispatch: the router, or the proxy;
 * decorate: Retry-After and CORS headers; release: the request's principal. */
extern const struct http_hooks gateway_http_hooks;

#endif
