/* core/v1 Namespaces over HTTP: list, get and create. A namespace exists when it was created here
 * (kept as a Namespace record), when something lives in it (a job, quota or companion), and
 * "default" always; the caller sees only its own namespaces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/intake/meta_limits.h"
#include "adapters/objects/namespace.h"
#include "common/clock.h"
#include "common/namespace_set.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"
#include "gateway/watch/watch.h"
#include "store/history.h"
#include "store/store.h"

struct found {
    json_t *by_name; /* name -> Namespace */
    const struct namespace_set *visible;
};

static void add(struct found *f, const char *name, json_t *ns)
{
    if (!ns)
        return;
    if (!name || !*name || json_object_get(f->by_name, name) || !namespace_set_has(f->visible, name))
        json_decref(ns);
    else
        json_object_set_new(f->by_name, name, ns);
}

static int stored_row(void *ctx, const struct store_object_row *row, struct api_status *st)
{
    (void)st;
    add(ctx, row->name, json_loads(row->json, 0, NULL));
    return 0;
}

/* The namespaces of the items of one of the core's lists across namespaces. */
static int from_core(struct http_req *req, enum core_op op, struct found *f, struct api_status *st)
{
    struct core_request creq = {.op = op, .visible = f->visible};
    if (core_call(req->gw->core, &creq) != 0) {
        *st = creq.status;
        return -1;
    }
    store_wait(req->gw->store, creq.durable_seq, req->gw->durable_timeout_ms);
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(creq.body, "items"), i, item)
    {
        const json_t *meta = json_object_get(item, "metadata");
        const char *ns = json_string_value(json_object_get(meta, "namespace"));
        if (ns && !json_object_get(f->by_name, ns))
            add(f, ns, namespace_render(ns, NULL, json_string_value(json_object_get(meta, "creationTimestamp")), NULL));
    }
    json_decref(creq.body);
    return 0;
}

/* Every namespace the caller sees, by name. Returns 0, or -1 with st. */
static int collect(struct http_req *req, struct found *f, struct api_status *st)
{
    f->visible = gateway_visible(req);
    f->by_name = json_object();
    if (!f->by_name)
        return api_fail(st, 500, "InternalError", "out of memory listing namespaces");
    struct store_reader *r = NULL;
    if (store_reader_open(req->gw->db_path, &r, st) != 0 ||
        store_read_objects(r, NAMESPACE_KIND, stored_row, f, st) != 0) {
        store_reader_close(r);
        json_decref(f->by_name);
        return -1;
    }
    store_reader_close(r);
    if (from_core(req, CORE_JOB_LIST, f, st) != 0 || from_core(req, CORE_QUOTA_LIST, f, st) != 0 ||
        from_core(req, CORE_COMPANION_LIST, f, st) != 0) {
        json_decref(f->by_name);
        return -1;
    }
    if (!json_object_get(f->by_name, "default")) /* always there; created with the first thing in it */
        add(f, "default", namespace_render("default", NULL, NULL, NULL));
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

void handle_namespace_list(struct http_req *req)
{
    struct api_status st = {0};
    struct found f;
    if (watch_requested(req)) { /* a list made up at each request has no changes to stream */
        api_fail(&st, 405, "MethodNotAllowed", "namespaces cannot be watched here: list them again instead");
        http_respond_status(req, &st);
        return;
    }
    if (collect(req, &f, &st) != 0) {
        http_respond_status(req, &st);
        return;
    }
    size_t n = json_object_size(f.by_name), i = 0;
    const char **names = calloc(n ? n : 1, sizeof *names);
    const char *key;
    json_t *value;
    json_object_foreach(f.by_name, key, value) names[i++] = key;
    qsort(names, n, sizeof *names, by_name);
    json_t *items = json_array();
    for (i = 0; names && i < n; i++)
        json_array_append(items, json_object_get(f.by_name, names[i]));
    free(names);
    char rv[24];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)store_committed_seq(req->gw->store));
    json_t *list = json_pack("{s:s, s:s, s:{s:s}, s:o}", "apiVersion", "v1", "kind", "NamespaceList", "metadata",
                             "resourceVersion", rv, "items", items);
    json_decref(f.by_name);
    http_respond_json(req, 200, list);
}

static void not_found(struct http_req *req, const char *name)
{
    struct api_status st = {0};
    api_fail(&st, 404, "NotFound", "namespaces \"%.253s\" not found", name);
    api_set_details(&st, "namespaces", "", name);
    http_respond_status(req, &st);
}

void handle_namespace_get(struct http_req *req)
{
    struct api_status st = {0};
    struct found f;
    if (collect(req, &f, &st) != 0) {
        http_respond_status(req, &st);
        return;
    }
    json_t *ns = json_object_get(f.by_name, req->params[0]);
    if (ns)
        http_respond_json(req, 200, json_incref(ns));
    else
        not_found(req, req->params[0]);
    json_decref(f.by_name);
}

/* Keeps the new Namespace as a record and waits until it is durable. */
static int record(struct http_req *req, const char *name, const json_t *ns, struct api_status *st)
{
    char *json = json_dumps(ns, JSON_COMPACT);
    struct core_request creq = {
        .op = CORE_RECORD_PUT,
        .ns = "",
        .name = name,
        .record = {.kind = NAMESPACE_KIND, .reason = "Created", .message = "namespace created", .json = json}};
    int rc = json ? core_call(req->gw->core, &creq) : api_fail(st, 500, "InternalError", "out of memory");
    free(json);
    if (json && rc != 0) {
        *st = creq.status;
        return -1;
    }
    json_decref(creq.body);
    if (rc == 0 && store_wait(req->gw->store, creq.durable_seq, req->gw->durable_timeout_ms) != 0) {
        char why[512];
        store_failure_kind(req->gw->store, why, sizeof why);
        return api_fail(st, 503, "ServiceUnavailable", "the job database did not record the namespace in time: %s",
                        why);
    }
    return rc;
}

void handle_namespace_create(struct http_req *req)
{
    struct api_status st = {0};
    struct intake in = {0};
    char created[RFC3339_LEN];
    json_t *ns = NULL;
    struct found f = {0};
    if (gateway_read_document(req, NAMESPACE_KIND, &in, &st) != 0) {
        http_respond_status(req, &st);
        return;
    }
    int rc = namespace_from_json(in.docs[0].root, rfc3339(clock_wall_ms(), created), &ns, &st);
    intake_free(&in);
    const char *name = rc == 0 ? json_string_value(json_object_get(json_object_get(ns, "metadata"), "name")) : NULL;
    if (rc == 0)
        rc = collect(req, &f, &st);
    if (rc == 0 && json_object_get(f.by_name, name)) {
        api_fail(&st, 409, "AlreadyExists", "namespaces \"%s\" already exists", name);
        api_set_details(&st, "namespaces", "", name);
        rc = -1;
    }
    if (rc == 0 && !namespace_set_has(gateway_visible(req), name))
        rc = api_fail(&st, 403, "Forbidden", "namespaces \"%s\" is forbidden: outside the caller's namespaces", name);
    json_decref(f.by_name);
    if (rc == 0)
        rc = record(req, name, ns, &st);
    if (rc == 0)
        http_respond_json(req, 201, ns);
    else {
        json_decref(ns);
        http_respond_status(req, &st);
    }
}
