/* Letting a request into the proxy (entry.h): the companion's path split, who asks (bearer token,
 * ?token= once then the cookie), whether they may (the companion's namespace), cross-site checks,
 * the companion found and Ready; then forward.c or upgrade.c. */
#include "gateway/proxy/entry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gateway/auth/auth.h"
#include "gateway/auth/request.h"
#include "gateway/http/http.h"
#include "gateway/limits/limits.h"
#include "gateway/proxy/call.h"

bool proxy_request(const struct http_req *req) { return proxy_is_path(req->path); }

/* A refusal: 401 and 403 are audited like the API's when there is a core to post them to. */
static bool refuse(struct http_req *req, const struct api_status *st)
{
    if (req->gw->core && (st->code == 401 || st->code == 403))
        auth_respond_status(req, st);
    else
        http_respond_status(req, st);
    return true;
}

static bool not_found(struct http_req *req)
{
    struct api_status st = {0};
    api_fail(&st, 404, "NotFound", "the server could not find the requested resource");
    return refuse(req, &st);
}

static bool is_upgrade(const struct http_req *req)
{
    const char *up = http_header(req, "Upgrade"), *conn = http_header(req, "Connection");
    return up && strcasecmp(up, "websocket") == 0 && conn && strcasestr(conn, "upgrade");
}

static bool unsafe_method(const char *m)
{
    return strcmp(m, "GET") != 0 && strcmp(m, "HEAD") != 0 && strcmp(m, "OPTIONS") != 0;
}

/* Whether origin (an Origin header) is this server's own or one of --cors's. */
static bool origin_allowed(const struct http_req *req, const char *origin)
{
    return proxy_same_origin(origin, http_header(req, "Host"), false) ||
           (req->gw->cors && cors_origin_match(req->gw->cors, origin));
}

/* Cross-site checks: a WebSocket upgrade from another origin, or an unsafe method carried by the
 * cookie from another site. Returns true when it answered 403. */
static bool cross_site(struct http_req *req, const struct proxy_call *call)
{
    const char *origin = http_header(req, "Origin"), *referer = http_header(req, "Referer");
    struct api_status st = {0};
    if (call->upgrade && origin && !origin_allowed(req, origin)) {
        api_fail(&st, 403, "Forbidden",
                 "a WebSocket upgrade from the origin \"%.200s\" is refused: only this server's own "
                 "origin and the --cors origins may open one",
                 origin);
        return refuse(req, &st);
    }
    if (!call->via_cookie || !unsafe_method(req->method))
        return false;
    bool ok = origin ? origin_allowed(req, origin)
                     : !referer || proxy_same_origin(referer, http_header(req, "Host"), true);
    if (ok)
        return false;
    api_fail(&st, 403, "Forbidden",
             "a %s carried by the proxy's cookie from another site (%.200s) is refused: send the "
             "bearer token, or call from this server's own pages",
             req->method, origin ? origin : referer);
    return refuse(req, &st);
}

/* Authenticates from the bearer token, ?token= or the cookie, and authorizes the companion's
 * namespace. Returns true when it answered (401, 403, or the 302 that sets the cookie). */
static bool authenticate(struct http_req *req, struct proxy_call *call)
{
    struct auth *a = req->gw->auth;
    if (!a)
        return false; /* nobody is asked, as for every other path */
    size_t len = 0;
    const char *token = http_bearer_token(req, &len);
    bool from_query = false;
    if (!token && (token = proxy_query_token(call->path.query, &len)) != NULL)
        from_query = true;
    if (!token && (token = proxy_cookie_token(http_header(req, "Cookie"), &len)) != NULL)
        call->via_cookie = true;
    struct api_status st = {0};
    if (auth_authenticate_token(a, token, len, auth_address_is_loopback(http_client_address(req)), &req->who, &st) != 0)
        return refuse(req, &st);
    if (!principal_writes_namespace(req->who, call->path.ns)) {
        api_fail(&st, 403, "Forbidden",
                 "companions.caldera.io \"%s\" is forbidden: User \"%s\" cannot proxy to companions in the "
                 "namespace \"%s\"",
                 call->path.name, principal_user(req->who), call->path.ns);
        api_set_details(&st, "companions", "caldera.io", call->path.name);
        return refuse(req, &st);
    }
    /* ?token= once in a browser tab: the cookie is set and the tab sent back without the token. A
     * WebSocket or a write with ?token= goes on (the token is not forwarded): a redirect would lose it. */
    if (!from_query || call->upgrade || (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0))
        return false;
    char location[HTTP_MAX_PATH + 4096], cookie[PROXY_NAME_MAX * 2 + 512];
    if (proxy_uri_without_token(req->raw_uri, location, sizeof location) < 0 ||
        proxy_set_cookie(call->path.prefix, token, len, cookie, sizeof cookie) < 0) {
        api_fail(&st, 400, "BadRequest", "the token or the URI is too long");
        return refuse(req, &st);
    }
    http_respond_redirect_with(req, location, "Set-Cookie", cookie);
    return true;
}

/* Finds the companion; answers 404 (none), 503 (not Ready) and returns true, or false. */
static bool resolve(struct http_req *req, struct proxy_call *call)
{
    struct api_status st = {0};
    if (call->resolver->resolve(call->resolver->ctx, call->path.ns, call->path.name, &call->target, &st) != 0) {
        if (!st.code)
            api_fail(&st, 404, "NotFound", "companions.caldera.io \"%s\" not found", call->path.name);
        return refuse(req, &st);
    }
    if (strcmp(call->target.phase, "Ready") != 0) {
        req->retry_after_s = 5;
        api_fail(&st, 503, "ServiceUnavailable", "the companion \"%s\" in the namespace \"%s\" is not ready: %s",
                 call->path.name, call->path.ns, call->target.phase[0] ? call->target.phase : "Unknown");
        return refuse(req, &st);
    }
    if (call->target.port <= 0 || call->target.port > 65535) {
        api_fail(&st, 502, "BadGateway", "the companion \"%s\" has no port", call->path.name);
        return refuse(req, &st);
    }
    return false;
}

bool proxy_admit(struct http_req *req)
{
    const struct proxy_resolver *r = req->gw->proxy;
    struct proxy_call *call = calloc(1, sizeof *call);
    if (!call) {
        struct api_status st = {0};
        api_fail(&st, 500, "InternalError", "out of memory");
        return refuse(req, &st);
    }
    call->upstream_fd = -1;
    call->resolver = r;
    req->ext = call;
    if (!r || !r->resolve || !req->raw_uri || !proxy_split(req->raw_uri, &call->path))
        return not_found(req);
    call->upgrade = is_upgrade(req);
    if (authenticate(req, call) || cross_site(req, call) || resolve(req, call))
        return true;
    if (call->path.rest_len == 0 && !call->upgrade &&
        (strcmp(req->method, "GET") == 0 || strcmp(req->method, "HEAD") == 0)) {
        /* /proxy/ns/name: the companion's pages are under /proxy/ns/name/ */
        char location[HTTP_MAX_PATH + 4096];
        snprintf(location, sizeof location, "%s/%s%s", call->path.prefix, call->path.query ? "?" : "",
                 call->path.query ? call->path.query : "");
        http_respond_redirect(req, location);
        return true;
    }
    return !call->upgrade && proxy_forward_begin(req, call) != 0;
}

void proxy_dispatch(struct http_req *req)
{
    struct proxy_call *call = req->ext;
    if (!call) {
        not_found(req);
        return;
    }
    if (call->upgrade)
        proxy_upgrade(req, call);
    else
        proxy_forward(req, call);
}

void proxy_release(struct http_req *req)
{
    struct proxy_call *call = req->ext;
    if (!call)
        return;
    proxy_forward_release(call);
    proxy_upgrade_release(call);
    free(call);
    req->ext = NULL;
}
