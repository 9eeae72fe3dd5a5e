/* The route table: method + path pattern ("/api/v1/namespaces/{ns}/pods/{name}") -> handler, each
 * route with what the OpenAPI document and discovery say of it; and matching a request against it. */
#ifndef CALDERA_ROUTER_H
#define CALDERA_ROUTER_H

#include "gateway/http/http.h"
#include "gateway/router/route_doc.h"

struct route {
    const char *method;
    const char *pattern;
    http_handler handler;
    struct route_doc doc; /* what GET /openapi/v3 and discovery (gateway/openapi/discovery_resources.c) read */
    /* Handled while the server's start is not over (the core answers what it can then: a Job's GET);
     * any other route waits for the start first (gateway/limits/start_gate.c). */
    bool before_start;
};

/* true for the generic routes of the other dialects (/apis/{group}/{version}/.../{plural}...), which
 * the OpenAPI document and discovery show once per dialect. */
bool route_is_dialect(const char *pattern);

enum route_match { ROUTE_FOUND, ROUTE_NO_PATH, ROUTE_WRONG_METHOD, ROUTE_PATH_TOO_LONG };

/* Finds the route for method + path and fills params (pointers into scratch, which must hold a
 * copy of path's length + 1). */
enum route_match route_find(const struct route *routes, const char *method, const char *path, char *scratch,
                            const char **params, int *nparams, const struct route **found);

/* Matches the request against the gateway's route table (req->gw->routes) once (later calls do nothing): req->match, and when
 * found req->route and its params. */
void route_match(struct http_req *req);
/* Dispatches a complete request: the handler, or a 404/405/414 Status. */
void route_dispatch(struct http_req *req);

#endif
