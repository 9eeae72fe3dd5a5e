/* The hooks the gateway starts http/ with: the order in which limits, the router and auth see a
 * request, kept here so that http/, limits/ and auth/ need not know of each other. Paths under
 * /proxy/ go to the companions' proxy, which authenticates and authorizes them itself. */
#include "gateway/hooks.h"

#include "gateway/auth/principal.h"
#include "gateway/auth/request.h"
#include "gateway/limits/limits.h"
#include "gateway/proxy/entry.h"
#include "gateway/router/router.h"

static bool screen(struct http_req *req) { return limits_answer_preflight(req) || limits_refuse_rate(req); }

static bool admit(struct http_req *req)
{
    if (proxy_request(req))
        return proxy_admit(req);
    route_match(req);
    return auth_check_request(req, req->match == ROUTE_FOUND ? req->route->pattern : NULL);
}

static void dispatch(struct http_req *req)
{
    if (proxy_request(req))
        proxy_dispatch(req);
    else
        route_dispatch(req);
}

static void release(struct http_req *req)
{
    proxy_release(req);
    principal_release(req->who);
}

const struct http_hooks gateway_http_hooks = {
    .screen = screen, .admit = admit, .dispatch = dispatch, .decorate = limits_decorate, .release = release};
