/* Matching a path against the route table segment by segment. A literal segment must be equal; a
 * {placeholder} takes any non-empty segment. The table is small, so a linear scan is enough. */
#include "gateway/router/router.h"

#include <stdio.h>
#include <string.h>

#include "gateway/http/query_params.h"
#include "gateway/limits/gates.h"

bool route_is_dialect(const char *pattern) { return strstr(pattern, "{plural}") != NULL; }

static bool match_pattern(const char *pattern, char *path, const char **params, int *nparams)
{
    const char *p = pattern;
    char *s = path;
    *nparams = 0;
    while (*p == '/' && *s == '/') {
        p++;
        s++;
        const char *pend = strchr(p, '/');
        size_t plen = pend ? (size_t)(pend - p) : strlen(p);
        char *send = strchr(s, '/');
        size_t slen = send ? (size_t)(send - s) : strlen(s);
        if (plen > 1 && p[0] == '{' && p[plen - 1] == '}') {
            if (slen == 0 || *nparams == HTTP_MAX_PARAMS)
                return false;
            params[(*nparams)++] = s;
        } else if (plen != slen || strncmp(p, s, plen) != 0) {
            return false;
        }
        p += plen;
        s += slen;
    }
    return *p == '\0' && *s == '\0';
}

enum route_match route_find(const struct route *routes, const char *method, const char *path, char *scratch,
                            const char **params, int *nparams, const struct route **found)
{
    enum route_match result = ROUTE_NO_PATH;
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') /* "/apis/" is "/apis" */
        len--;
    for (const struct route *r = routes; r->pattern; r++) {
        memcpy(scratch, path, len);
        scratch[len] = '\0';
        const char *p[HTTP_MAX_PARAMS];
        int n;
        if (!match_pattern(r->pattern, scratch, p, &n))
            continue;
        if (strcmp(r->method, method) != 0 && !(strcmp(method, "HEAD") == 0 && strcmp(r->method, "GET") == 0)) {
            result = ROUTE_WRONG_METHOD;
            continue;
        }
        /* Split the placeholders in place now that this route is the one. */
        for (int i = 0; i < n; i++) {
            char *slash = strchr((char *)p[i], '/');
            if (slash)
                *slash = '\0';
            params[i] = p[i];
        }
        *nparams = n;
        *found = r;
        return ROUTE_FOUND;
    }
    return result;
}

void route_match(struct http_req *req)
{
    if (req->matched)
        return;
    req->matched = true;
    if (strlen(req->path) >= sizeof req->scratch) {
        req->match = ROUTE_PATH_TOO_LONG;
        return;
    }
    req->match = (int)route_find(req->gw->routes, req->method, req->path, req->scratch, req->params, &req->nparams,
                                 &req->route);
}

void route_dispatch(struct http_req *req)
{
    struct api_status st = {0};
    route_match(req);
    switch ((enum route_match)req->match) {
    case ROUTE_FOUND:
        if (query_check_flags(req, &st) != 0) { /* a boolean ParseBool refuses: 400 before any handler */
            http_respond_status(req, &st);
            return;
        }
        if ((!req->route->before_start && gateway_wait_for_start(req)) || gateway_refuse_write_while_failing(req) ||
            gateway_refuse_bad_namespace(req, req->route->pattern)) /* before the handler */
            return;
        req->route->handler(req);
        if (!req->answered) {
            api_fail(&st, 500, "InternalError", "the handler for %s %s gave no answer", req->method, req->path);
            http_respond_status(req, &st);
        }
        return;
    case ROUTE_WRONG_METHOD:
        api_fail(&st, 405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
        break;
    case ROUTE_NO_PATH: api_fail(&st, 404, "NotFound", "the server could not find the requested resource"); break;
    case ROUTE_PATH_TOO_LONG:
        api_fail(&st, 414, "RequestURITooLong", "the request path is longer than %d bytes", HTTP_MAX_PATH - 1);
        break;
    }
    http_respond_status(req, &st);
}
