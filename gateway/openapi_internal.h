/* What the files of the OpenAPI document share: the table of operations (one per route), and the
 * builders of components.schemas, components.parameters and components.responses. */
#ifndef CALDERA_OPENAPI_INTERNAL_H
#define CALDERA_OPENAPI_INTERNAL_H

#include <jansson.h>

/* Query parameters an operation takes; each is components.parameters["query-<name>"]. */
enum openapi_query {
    OQ_PRETTY = 1 << 0,
    OQ_LABEL_SELECTOR = 1 << 1,
    OQ_LIMIT = 1 << 2,
    OQ_CONTINUE = 1 << 3,
    OQ_AS = 1 << 4,
    OQ_PREVIOUS = 1 << 5,
    OQ_ATTEMPT = 1 << 6,
    OQ_PHASE = 1 << 7,
    OQ_SINCE = 1 << 8,
    OQ_UNTIL = 1 << 9,
    OQ_UID = 1 << 10,
    OQ_FIELD_SELECTOR = 1 << 11,
    OQ_WATCH = 1 << 12,
    OQ_RESOURCE_VERSION = 1 << 13,
    OQ_TIMEOUT_SECONDS = 1 << 14,
    OQ_ALLOW_WATCH_BOOKMARKS = 1 << 15,
    OQ_SEND_INITIAL_EVENTS = 1 << 16,
};

/* Error answers an operation documents besides "default"; each is components.responses[<code>],
 * a Status. */
enum openapi_error {
    OE_400 = 1 << 0,
    OE_404 = 1 << 1,
    OE_409 = 1 << 2,
    OE_413 = 1 << 3,
    OE_415 = 1 << 4,
    OE_422 = 1 << 5,
    OE_503 = 1 << 6,
    OE_507 = 1 << 7,
    OE_401 = 1 << 8, /* every operation but the public ones says 401 and 403: openapi.c adds them */
    OE_403 = 1 << 9,
    OE_410 = 1 << 10,
    OE_504 = 1 << 11,
};

/* One route as the document describes it. In a dialect route (openapi_is_dialect_route) "{kind}"
 * in id, summary, body and answer stands for the dialect's kind. */
struct openapi_operation {
    const char *method;
    const char *pattern; /* exactly as in gateway_routes[] */
    const char *id;      /* operationId */
    const char *tag;
    const char *summary;
    unsigned query;     /* enum openapi_query */
    const char *body;   /* schema of the request body (JSON or YAML); NULL: none */
    int code;           /* the success code */
    const char *answer; /* schema of the success answer; NULL: none, or media's text */
    const char *media;  /* the success answer's media type; NULL: application/json */
    unsigned errors;    /* enum openapi_error */
};

/* Every operation, ended by a NULL method. */
extern const struct openapi_operation openapi_operations[];

/* components.schemas, components.parameters, components.responses: new references, NULL when
 * memory runs out. */
json_t *openapi_schemas(void);
json_t *openapi_parameters(void);
json_t *openapi_error_responses(void);

/* {"$ref": "#/components/<section>/<name>"} */
json_t *openapi_ref(const char *section, const char *name);
/* The query parameters of flags, as references, appended to params. */
void openapi_add_query_params(json_t *params, unsigned flags);
/* The error responses of flags (and "default"), as references, set in responses. */
void openapi_add_error_responses(json_t *responses, unsigned flags);

#endif
