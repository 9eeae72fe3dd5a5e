/* The server's OpenAPI 3 document (GET /openapi/v3): every route of gateway/routes.c with its
 * parameters, bodies and answers, built with Jansson from the routes' own rows. */
#ifndef CALDERA_OPENAPI_H
#define CALDERA_OPENAPI_H

#include <jansson.h>
#include <stddef.h>

struct dialect;
struct route;

/* The whole document of a route table (a new reference), or NULL when memory runs out. */
json_t *openapi_document(const struct route *routes);

/* A route's pattern as a path of the document: every placeholder by its document name ({ns} is
 * {namespace}, {n} {attempt}, the others keep theirs); for a
 * dialect route and d non-NULL, {group}, {version} and {plural} as d's own. Returns 0, or -1 when
 * out is too small. */
int openapi_path(const char *pattern, const struct dialect *d, char *out, size_t len);

/* The handlers of gateway/routes.c this folder serves. */
struct http_req;
/* openapi.c: GET /openapi/v3/all, the whole document */
void handle_openapi_v3_all(struct http_req *req);
/* openapi_groups.c: GET /openapi/v3 (the index), the document of one group version, /openapi/v2 */
void handle_openapi_v3(struct http_req *req);
void handle_openapi_v3_core(struct http_req *req);
void handle_openapi_v3_group(struct http_req *req);
void handle_openapi_v2(struct http_req *req);
/* The document of the paths under prefix ("/apis/batch.volcano.sh/v1alpha1/", "/api/v1/") taken from
 * the whole document: parameters written out in each operation, and each operation that reads or
 * writes an object marked with its x-kubernetes-group-version-kind, as Kubernetes' are. NULL when no
 * path has the prefix. */
json_t *openapi_group_document(const json_t *all, const char *prefix);
/* discovery.c: /api, /apis and their resource lists */
void handle_api_versions(struct http_req *req);
void handle_api_core_resources(struct http_req *req);
void handle_api_groups(struct http_req *req);
void handle_api_group(struct http_req *req);
void handle_api_group_resources(struct http_req *req);

#endif
