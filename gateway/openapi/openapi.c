/* The OpenAPI 3 document at GET /openapi/v3: paths from the rows of the route table (the generic
 * routes of the other dialects once per dialect, as Kubernetes' own document has each resource),
 * components from the schema and parameter tables. */
#include "gateway/openapi/openapi.h"

#include <stdio.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "gateway/auth/access.h"
#include "gateway/http/http.h"
#include "gateway/openapi/internal.h"
#include "gateway/router/router.h"

#define OPENAPI_VERSION "3.0.3"
#define DOCUMENT_VERSION "v1"

/* Placeholders whose name in the document differs from the route's. */
static const struct {
    const char *placeholder;
    const char *name;
} renamed[] = {{"ns", "namespace"}, {"n", "attempt"}};

/* Appends text (len bytes) to out at *at; false when it does not fit. */
static bool append(char *out, size_t size, size_t *at, const char *text, size_t len)
{
    if (*at + len + 1 > size)
        return false;
    memcpy(out + *at, text, len);
    *at += len;
    out[*at] = '\0';
    return true;
}

/* What placeholder {name} (len bytes) becomes: the dialect's own group, version or plural, or the
 * placeholder by its document name. */
static bool append_placeholder(char *out, size_t size, size_t *at, const char *name, size_t len,
                               const struct dialect *d)
{
    const char *own = NULL;
    if (d && len == 5 && strncmp(name, "group", 5) == 0)
        own = d->group;
    else if (d && len == 7 && strncmp(name, "version", 7) == 0)
        own = d->version;
    else if (d && len == 6 && strncmp(name, "plural", 6) == 0)
        own = d->plural;
    if (own)
        return append(out, size, at, own, strlen(own));
    for (size_t i = 0; i < sizeof renamed / sizeof renamed[0]; i++)
        if (strlen(renamed[i].placeholder) == len && strncmp(renamed[i].placeholder, name, len) == 0) {
            name = renamed[i].name;
            len = strlen(name);
            break;
        }
    return append(out, size, at, "{", 1) && append(out, size, at, name, len) && append(out, size, at, "}", 1);
}

int openapi_path(const char *pattern, const struct dialect *d, char *out, size_t len)
{
    size_t at = 0;
    if (len == 0)
        return -1;
    out[0] = '\0';
    for (const char *p = pattern; *p;) {
        const char *open = strchr(p, '{');
        const char *close = open ? strchr(open, '}') : NULL;
        if (!open || !close)
            return append(out, len, &at, p, strlen(p)) ? 0 : -1;
        if (!append(out, len, &at, p, (size_t)(open - p)) ||
            !append_placeholder(out, len, &at, open + 1, (size_t)(close - open - 1), d))
            return -1;
        p = close + 1;
    }
    return 0;
}

/* text with "{kind}", "{group}" and "{version}" as dialect d's (d NULL: text as it is). */
static const char *expand(const char *text, const struct dialect *d, char *out, size_t len)
{
    if (!d)
        return text;
    static const char *const keys[] = {"{kind}", "{group}", "{version}"};
    size_t at = 0;
    out[0] = '\0';
    for (const char *p = text; *p;) {
        const char *value = NULL;
        size_t key_len = 0;
        for (size_t k = 0; k < 3 && !value; k++)
            if (strncmp(p, keys[k], strlen(keys[k])) == 0) {
                value = k == 0 ? d->kind : k == 1 ? d->group : d->version;
                key_len = strlen(keys[k]);
            }
        if (value ? !append(out, len, &at, value, strlen(value)) : !append(out, len, &at, p, 1))
            break; /* too long: cut, and the tests see a name that does not resolve */
        p += value ? key_len : 1;
    }
    return out;
}

/* The path item's parameters: a reference for each placeholder of the document's path. */
static json_t *path_parameters(const char *path)
{
    json_t *params = json_array();
    for (const char *p = strchr(path, '{'); p; p = strchr(p + 1, '{')) {
        const char *close = strchr(p, '}');
        if (!close)
            break;
        char key[64];
        snprintf(key, sizeof key, "path-%.*s", (int)(close - p - 1), p + 1);
        json_array_append_new(params, openapi_ref("parameters", key));
    }
    return params;
}

static json_t *body_content(const struct route *r, const char *schema)
{
    if (strcmp(r->method, "PATCH") == 0 && route_is_dialect(r->pattern)) /* a JSON merge patch of the object */
        return json_pack("{s:{s:o}}", "application/merge-patch+json", "schema", openapi_ref("schemas", schema));
    if (strcmp(r->method, "PATCH") == 0) /* strategic merge is taken but not said: kubectl apply merges as for CRDs */
        return json_pack("{s:{s:o}, s:{s:{s:s}}, s:{s:o}}", "application/merge-patch+json", "schema",
                         openapi_ref("schemas", schema), "application/json-patch+json", "schema", "type", "array",
                         "application/apply-patch+yaml", "schema", openapi_ref("schemas", schema));
    return json_pack("{s:{s:o}, s:{s:o}}", "application/json", "schema", openapi_ref("schemas", schema),
                     "application/yaml", "schema", openapi_ref("schemas", schema));
}

/* The success answer's schema: for a dialect's object, with ?as=volcano the Volcano Job behind it
 * too, and only that for a dialect whose POST answers with it (the training request). */
static json_t *answer_schema(const struct route *r, const struct dialect *d)
{
    char buf[128];
    const char *name = expand(r->doc.answer, d, buf, sizeof buf);
    if (!d || !strstr(r->doc.answer, "{kind}"))
        return openapi_ref("schemas", name);
    char volcano[128];
    snprintf(volcano, sizeof volcano, "Job%s", r->doc.answer + strlen("{kind}"));
    if (strcmp(r->method, "POST") == 0 && d->answer_as_volcano)
        return openapi_ref("schemas", volcano);
    if (!(r->doc.query & OQ_AS))
        return openapi_ref("schemas", name);
    return json_pack("{s:[o, o]}", "oneOf", openapi_ref("schemas", name), openapi_ref("schemas", volcano));
}

static const char *code_description(int code)
{
    switch (code) {
    case 201: return "Created";
    case 302: return "Found: see Location";
    default: return "OK";
    }
}

static json_t *responses(const struct route *r, const struct dialect *d)
{
    const struct route_doc *doc = &r->doc;
    json_t *success = json_pack("{s:s}", "description", code_description(doc->code));
    if (doc->answer)
        json_object_set_new(
            success, "content",
            json_pack("{s:{s:o}}", doc->media ? doc->media : "application/json", "schema", answer_schema(r, d)));
    else if (doc->media)
        json_object_set_new(success, "content", json_pack("{s:{s:{s:s}}}", doc->media, "schema", "type", "string"));
    if (doc->code == 302)
        json_object_set_new(success, "headers", json_pack("{s:{s:{s:s}}}", "Location", "schema", "type", "string"));
    char code[8];
    snprintf(code, sizeof code, "%d", doc->code);
    json_t *out = json_object();
    json_object_set_new(out, code, success);
    /* Who asks is checked on every path but the public ones (gateway/auth/access.c). */
    unsigned errors = doc->errors | (access_public_pattern(r->pattern) ? 0 : OE_401 | OE_403);
    openapi_add_error_responses(out, errors);
    return out;
}

/* The tag of a route: its API group and version ("core_v1", "batch.volcano.sh_v1alpha1",
 * "{group}_{version}" for the dialects' routes), "discovery" for the other paths under /api and
 * /apis, "server" for the rest. */
static const char *tag_of(const char *pattern, char *out, size_t len)
{
    const char *rest;
    if (strncmp(pattern, "/api/v1/", 8) == 0)
        return "core_v1";
    if (strncmp(pattern, "/apis/", 6) != 0)
        return strcmp(pattern, "/api") == 0 || strcmp(pattern, "/api/v1") == 0 || strcmp(pattern, "/apis") == 0
                   ? "discovery"
                   : "server";
    const char *group = pattern + 6, *version = strchr(group, '/');
    if (!version || !(rest = strchr(version + 1, '/')))
        return "discovery"; /* /apis/{group}/{version} */
    snprintf(out, len, "%.*s_%.*s", (int)(version - group), group, (int)(rest - version - 1), version + 1);
    return out;
}

static json_t *operation(const struct route *r, const struct dialect *d)
{
    const struct route_doc *doc = &r->doc;
    char id[128], tag[128], tag_text[128], summary[256];
    json_t *obj = json_pack(
        "{s:[s], s:s, s:s}", "tags", expand(tag_of(r->pattern, tag_text, sizeof tag_text), d, tag, sizeof tag),
        "summary", expand(doc->summary, d, summary, sizeof summary), "operationId", expand(doc->id, d, id, sizeof id));
    json_t *params = json_array();
    openapi_add_query_params(params, doc->query);
    if (json_array_size(params) > 0)
        json_object_set_new(obj, "parameters", params);
    else
        json_decref(params);
    if (doc->body) {
        char body[128];
        json_object_set_new(obj, "requestBody",
                            json_pack("{s:b, s:o}", "required", 1, "content",
                                      body_content(r, expand(doc->body, d, body, sizeof body))));
    }
    json_object_set_new(obj, "responses", responses(r, d));
    if (access_public_pattern(r->pattern)) /* no token needed, even with --auth */
        json_object_set_new(obj, "security", json_array());
    return obj;
}

static int add_operation(json_t *paths, const struct route *r, const struct dialect *d)
{
    char path[512], method[16];
    if (openapi_path(r->pattern, d, path, sizeof path) != 0)
        return -1;
    json_t *item = json_object_get(paths, path);
    if (!item) {
        item = json_pack("{s:o}", "parameters", path_parameters(path));
        if (json_object_set_new(paths, path, item) != 0)
            return -1;
    }
    size_t i;
    for (i = 0; r->method[i] && i + 1 < sizeof method; i++)
        method[i] = (char)(r->method[i] | 0x20); /* methods are upper-case ASCII letters */
    method[i] = '\0';
    return json_object_set_new(item, method, operation(r, d));
}

/* A dialect's PUT row serves only a dialect with an update rule (a DebugSession's). Its PATCH row is
 * documented for every dialect, answering 405 where nothing may change: kubectl looks for a PATCH
 * operation of the kind to learn that the server validates fields, and without one falls back to
 * the protobuf /openapi/v2, which Caldera does not serve. */
static bool dialect_route_serves(const struct route *r, const struct dialect *d)
{
    return d->update || strcmp(r->method, "PUT") != 0;
}

static json_t *paths(const struct route *routes)
{
    json_t *out = json_object();
    for (const struct route *r = routes; r->pattern; r++) {
        if (!route_is_dialect(r->pattern)) {
            add_operation(out, r, NULL);
            continue;
        }
        for (const struct dialect *const *d = dialects; *d; d++)
            if (dialect_route_serves(r, *d))
                add_operation(out, r, *d);
    }
    return out;
}

json_t *openapi_document(const struct route *routes)
{
    return json_pack("{s:s, s:{s:s, s:s, s:s}, s:o, s:[{s:[]}], s:{s:o, s:o, s:o, s:{s:{s:s, s:s, s:s}}}}", "openapi",
                     OPENAPI_VERSION, "info", "title", "Caldera", "version", DOCUMENT_VERSION, "description",
                     "Caldera's job server: Volcano's batch API (Jobs, Queues, PodGroups, Commands), the Kubernetes "
                     "objects it shows (Pods, Nodes, PriorityClasses, ResourceQuotas), the other job dialects "
                     "(Kubeflow, KubeRay, Spark operator, training requests) and Caldera's own caldera.io API "
                     "(history, actions, tokens). Every failure is answered with a Kubernetes Status. Requests carry "
                     "a bearer token (Authorization: Bearer <token>); without --auth the server also takes "
                     "anonymous requests from loopback, as an admin.",
                     "paths", paths(routes), "security", "bearerToken", "components", "schemas", openapi_schemas(),
                     "parameters", openapi_parameters(), "responses", openapi_error_responses(), "securitySchemes",
                     "bearerToken", "type", "http", "scheme", "bearer", "description",
                     "a token of caldera.io/v1 tokens (<id>.<secret>), or one the --auth-webhook resolves");
}

void handle_openapi_v3_all(struct http_req *req)
{
    json_t *doc = openapi_document(req->gw->routes);
    if (!doc) {
        struct api_status st = {0};
        api_fail(&st, 500, "InternalError", "out of memory building the OpenAPI document");
        http_respond_status(req, &st);
        return;
    }
    http_respond_json(req, 200, doc);
}
