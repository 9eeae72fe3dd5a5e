/* What a route of the table says of itself besides method, pattern and handler: what the OpenAPI
 * document shows of it (operationId, summary, parameters, body, answers) and discovery's short names. */
#ifndef CALDERA_ROUTE_DOC_H
#define CALDERA_ROUTE_DOC_H

/* Query parameters an operation takes; each is components.parameters["query-<name>"]. A GET of a
 * collection that takes OQ_WATCH is discovery's "watch" verb. */
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
    OQ_FOLLOW = 1 << 17,
    OQ_OWNER_UID = 1 << 18,
    OQ_INCLUDE_OBJECT = 1 << 19,
    OQ_FIELD_VALIDATION = 1 << 20,
    OQ_FIELD_MANAGER = 1 << 21,
    OQ_FORCE = 1 << 22,
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

/* In a dialect route (its pattern holds {plural}) "{kind}" in id, summary, body and answer stands
 * for the dialect's kind. The tag is the route's API group and version, read from its pattern. */
struct route_doc {
    const char *id; /* operationId */
    const char *summary;
    unsigned query;          /* enum openapi_query */
    const char *body;        /* schema of the request body (JSON or YAML); NULL: none */
    int code;                /* the success code */
    const char *answer;      /* schema of the success answer (a list's is "<Kind>List"); NULL: none, or media's text */
    const char *media;       /* the success answer's media type; NULL: application/json */
    unsigned errors;         /* enum openapi_error */
    const char *short_names; /* discovery's, space-separated, on one route of the resource; NULL: none */
};

#endif
