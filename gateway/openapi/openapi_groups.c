/* OpenAPI as Kubernetes serves it to kubectl: GET /openapi/v3 is an index of one document per API
 * group version (what `kubectl explain` and kubectl's check for fieldValidation read), each document
 * the whole one's paths under that group version with their parameters written out and the
 * x-kubernetes-group-version-kind of each operation; /openapi/v2 the schemas as Swagger 2.0 JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "gateway/http/http.h"
#include "gateway/openapi/openapi.h"
#include "gateway/router/router.h"

static const char *const methods[] = {"get", "put", "post", "patch", "delete", NULL};

/* A "$ref" to components.parameters replaced by the parameter itself. */
static void inline_parameters(json_t *params, const json_t *components)
{
    size_t i;
    json_t *p;
    json_array_foreach(params, i, p)
    {
        const char *ref = json_string_value(json_object_get(p, "$ref"));
        if (!ref || strncmp(ref, "#/components/parameters/", 24) != 0)
            continue;
        json_t *param = json_object_get(json_object_get(components, "parameters"), ref + 24);
        if (param)
            json_array_set_new(params, i, json_deep_copy(param));
    }
}

/* The schema named by the first "$ref" of a content map, or NULL. */
static const json_t *content_schema(const json_t *content, const json_t *components)
{
    const char *media;
    json_t *m;
    json_object_foreach((json_t *)content, media, m)
    {
        const char *ref = json_string_value(json_object_get(json_object_get(m, "schema"), "$ref"));
        if (ref && strncmp(ref, "#/components/schemas/", 21) == 0)
            return json_object_get(json_object_get(components, "schemas"), ref + 21);
    }
    return NULL;
}

/* The group, version and kind of the object an operation writes or reads, as an object, or NULL. */
static json_t *operation_gvk(const json_t *op, const json_t *components)
{
    const json_t *schema = content_schema(json_object_get(json_object_get(op, "requestBody"), "content"), components);
    const json_t *responses = json_object_get(op, "responses");
    if (!schema)
        schema = content_schema(json_object_get(json_object_get(responses, "200"), "content"), components);
    if (!schema)
        schema = content_schema(json_object_get(json_object_get(responses, "201"), "content"), components);
    json_t *gvk = json_array_get(json_object_get(schema, "x-kubernetes-group-version-kind"), 0);
    return gvk ? json_deep_copy(gvk) : NULL;
}

json_t *openapi_group_document(const json_t *all, const char *prefix)
{
    const json_t *components = json_object_get(all, "components");
    json_t *paths = json_object();
    const char *path;
    json_t *item;
    size_t plen = strlen(prefix);
    json_object_foreach(json_object_get(all, "paths"), path, item)
    {
        if (strncmp(path, prefix, plen) != 0 || strncmp(path + plen, "{", 1) == 0)
            continue;
        json_t *copy = json_deep_copy(item);
        inline_parameters(json_object_get(copy, "parameters"), components);
        for (const char *const *m = methods; *m; m++) {
            json_t *op = json_object_get(copy, *m);
            if (!op)
                continue;
            inline_parameters(json_object_get(op, "parameters"), components);
            json_t *gvk = operation_gvk(op, components);
            if (gvk)
                json_object_set_new(op, "x-kubernetes-group-version-kind", gvk);
        }
        json_object_set_new(paths, path, copy);
    }
    if (json_object_size(paths) == 0) {
        json_decref(paths);
        return NULL;
    }
    return json_pack("{s:O, s:O, s:o, s:O}", "openapi", json_object_get(all, "openapi"), "info",
                     json_object_get(all, "info"), "paths", paths, "components", components);
}

/* FNV-1a of the document's text, in hex: the index's hash, which changes when the document does. */
static void document_hash(const json_t *doc, char out[17])
{
    char *text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = text ? text : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    free(text);
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* "/apis/<group>/<version>/" (or "/api/v1/") of a document path into out; false for other paths. */
static bool group_prefix(const char *path, char *out, size_t len)
{
    if (strncmp(path, "/api/v1/", 8) == 0) {
        snprintf(out, len, "/api/v1/");
        return true;
    }
    if (strncmp(path, "/apis/", 6) != 0)
        return false;
    const char *group = path + 6, *version = strchr(group, '/');
    const char *end = version ? strchr(version + 1, '/') : NULL;
    if (!end || group[0] == '{' || version[1] == '{')
        return false;
    snprintf(out, len, "%.*s", (int)(end - path + 1), path);
    return true;
}

static void respond_document(struct http_req *req, json_t *doc, int code_when_missing)
{
    if (!doc) {
        struct api_status st = {0};
        api_fail(&st, code_when_missing, code_when_missing == 404 ? "NotFound" : "InternalError",
                 "no OpenAPI document for %s", req->path);
        http_respond_status(req, &st);
        return;
    }
    http_respond_json(req, 200, doc);
}

void handle_openapi_v3(struct http_req *req)
{
    json_t *all = openapi_document(req->gw->routes);
    json_t *index = json_object();
    const char *path;
    json_t *item;
    json_object_foreach(json_object_get(all, "paths"), path, item)
    {
        char prefix[256];
        if (!group_prefix(path, prefix, sizeof prefix))
            continue;
        char key[256];
        snprintf(key, sizeof key, "%.*s", (int)strlen(prefix) - 2, prefix + 1); /* "apis/g/v" */
        if (json_object_get(index, key))
            continue;
        json_t *doc = openapi_group_document(all, prefix);
        char hash[17], url[512];
        document_hash(doc, hash);
        json_decref(doc);
        snprintf(url, sizeof url, "/openapi/v3/%s?hash=%s", key, hash);
        json_object_set_new(index, key, json_pack("{s:s}", "serverRelativeURL", url));
    }
    json_decref(all);
    respond_document(req, json_pack("{s:o}", "paths", index), 500);
}

static void group_document(struct http_req *req, const char *prefix)
{
    json_t *all = openapi_document(req->gw->routes);
    json_t *doc = all ? openapi_group_document(all, prefix) : NULL;
    json_decref(all);
    respond_document(req, doc, 404);
}

void handle_openapi_v3_core(struct http_req *req)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "/api/%s/", req->params[0]);
    group_document(req, prefix);
}

void handle_openapi_v3_group(struct http_req *req)
{
    char prefix[256];
    snprintf(prefix, sizeof prefix, "/apis/%s/%s/", req->params[0], req->params[1]);
    group_document(req, prefix);
}

/* Text with every "#/components/schemas/" as "#/definitions/" (a new string, or NULL). */
static char *swagger_refs(const char *text)
{
    static const char from[] = "#/components/schemas/", to[] = "#/definitions/";
    char *out = malloc(strlen(text) + 1); /* "#/definitions/" is shorter: the text only shrinks */
    if (!out)
        return NULL;
    char *w = out;
    for (const char *p = text; *p;) {
        if (strncmp(p, from, sizeof from - 1) == 0) {
            memcpy(w, to, sizeof to - 1);
            w += sizeof to - 1;
            p += sizeof from - 1;
        } else {
            *w++ = *p++;
        }
    }
    *w = '\0';
    return out;
}

void handle_openapi_v2(struct http_req *req)
{
    const char *accept = http_header(req, "Accept");
    if (accept && strstr(accept, "protobuf") && !strstr(accept, "json") && !strstr(accept, "*/*")) {
        struct api_status st = {0};
        api_fail(&st, 406, "NotAcceptable", "only application/json is served at /openapi/v2");
        http_respond_status(req, &st);
        return;
    }
    json_t *all = openapi_document(req->gw->routes);
    char *text = all ? json_dumps(json_object_get(json_object_get(all, "components"), "schemas"), JSON_COMPACT) : NULL;
    char *swagger = text ? swagger_refs(text) : NULL;
    json_t *definitions = swagger ? json_loads(swagger, 0, NULL) : NULL;
    free(text);
    free(swagger);
    json_t *doc = definitions ? json_pack("{s:s, s:O, s:{}, s:o}", "swagger", "2.0", "info",
                                          json_object_get(all, "info"), "paths", "definitions", definitions)
                              : NULL;
    json_decref(all);
    respond_document(req, doc, 500);
}
