/* PATCH of the objects clients write (Volcano Jobs and Queues, PriorityClasses, ResourceQuotas,
 * ConfigMaps and Secrets), as the API server does it: the stored object is read from the core, the
 * patch applied to it (a JSON merge patch, a JSON patch or a strategic merge patch, by Content-Type),
 * and the result goes through the kind's PUT, with the same validation, storage and answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/strategic_merge.h"
#include "common/json_patch.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"
#include "gateway/resources/patch.h"
#include "model/config_object.h"

enum patch_type { PATCH_MERGE, PATCH_JSON, PATCH_STRATEGIC, PATCH_APPLY };

/* One kind as PATCH sees it: how to read the stored object, and its PUT handler. */
struct patch_kind {
    enum core_op get;
    void (*put)(struct http_req *req);
    void (*post)(struct http_req *req); /* an apply of an object that does not exist creates it */
    int ns_param, name_param;           /* -1: cluster-scoped */
    int config_kind;                    /* CORE_CONFIG_GET: enum config_kind */
};

static int patch_type_of(struct http_req *req, enum patch_type *type, struct api_status *st)
{
    const char *ct = http_header(req, "Content-Type");
    static const struct {
        const char *media;
        enum patch_type type;
    } types[] = {{"application/merge-patch+json", PATCH_MERGE},
                 {"application/json-patch+json", PATCH_JSON},
                 {"application/strategic-merge-patch+json", PATCH_STRATEGIC},
                 {"application/apply-patch+yaml", PATCH_APPLY}};
    for (size_t i = 0; ct && i < sizeof types / sizeof types[0]; i++)
        if (strncmp(ct, types[i].media, strlen(types[i].media)) == 0) {
            *type = types[i].type;
            return 0;
        }
    return api_fail(st, 415, "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media types include: "
                    "application/json-patch+json, application/merge-patch+json, "
                    "application/strategic-merge-patch+json, application/apply-patch+yaml");
}

/* The stored object as the core renders it (a new reference), or NULL with the Status in st. */
static json_t *stored_object(struct http_req *req, const struct patch_kind *k, struct api_status *st)
{
    struct core_request creq = {.op = k->get,
                                .ns = k->ns_param >= 0 ? req->params[k->ns_param] : NULL,
                                .name = req->params[k->name_param],
                                .config_kind = k->config_kind};
    creq.visible = gateway_visible(req);
    if (core_call(req->gw->core, &creq) != 0) {
        *st = creq.status;
        return NULL;
    }
    return creq.body; /* ours now */
}

/* The patched object, or NULL with the Status in st. */
static json_t *patched(struct http_req *req, enum patch_type type, const json_t *stored, struct api_status *st)
{
    json_error_t err;
    json_t *patch = json_loadb(req->body.data ? req->body.data : "", req->body.len, 0, &err);
    if (!patch) {
        api_fail(st, 400, "BadRequest", "the patch is not JSON: %s (line %d, column %d)", err.text, err.line,
                 err.column);
        return NULL;
    }
    json_t *out = NULL;
    /* The Python client (kubernetes 22, Debian's) sends every patch_*_custom_object body as
     * application/merge-patch+json, a list of operations too. No merge patch of an object is a list,
     * nor a JSON patch an object, so the body's shape decides, with a warning; the API server
     * refuses both. */
    if (type == PATCH_JSON && json_is_object(patch)) {
        http_add_warning(req, "a JSON object sent as a JSON patch was applied as a JSON merge patch");
        type = PATCH_MERGE;
    } else if ((type == PATCH_MERGE || type == PATCH_STRATEGIC) && json_is_array(patch)) {
        http_add_warning(req, "a list sent as a merge patch was applied as a JSON patch (application/json-patch+json)");
        type = PATCH_JSON;
    }
    if (type == PATCH_JSON) {
        out = json_patch_apply(stored, patch, st);
    } else if (!json_is_object(patch)) {
        api_fail(st, 400, "BadRequest", "the patch is not a JSON object");
    } else if (type == PATCH_MERGE) {
        out = json_merge_patch(stored, patch);
    } else {
        out = strategic_merge_patch(stored, patch, st);
    }
    json_decref(patch);
    if (out && !json_is_object(out)) {
        json_decref(out);
        api_fail(st, 422, "Invalid", "the patched object is not a JSON object");
        return NULL;
    }
    return out;
}

/* How often a patch without a resourceVersion of its own is tried again when the object moved
 * between reading and writing (a running job's version moves with each of its pods' changes). */
#define PATCH_TRIES 5

/* One try: read, patch, write through the kind's PUT. Returns 1 when the write met a newer version
 * and the patch set none (nothing answered: try again), else 0 (answered). */
static int patch_once(struct http_req *req, const struct patch_kind *k, enum patch_type type, const struct sbuf *patch,
                      bool last)
{
    struct api_status st = {0};
    req->warning[0] = '\0'; /* a try's warnings are its own */
    sbuf_free(&req->body);
    sbuf_append(&req->body, patch->data ? patch->data : "", patch->len); /* each try starts from the patch */
    json_t *stored = stored_object(req, k, &st);
    if (!stored && type == PATCH_APPLY && st.code == 404) {
        st = (struct api_status){0};
        if (patch_apply_body(req, req->params[k->name_param], &st) != 0)
            http_respond_status(req, &st);
        else
            k->post(req);
        return 0;
    }
    json_t *now = NULL;
    if (stored && type == PATCH_APPLY)
        now = patch_apply_merge(req, stored, &st);
    else if (stored)
        now = patched(req, type, stored, &st);
    if (!now) {
        json_decref(stored);
        http_respond_status(req, &st);
        return 0;
    }
    /* Server-set fields are not the client's to patch: the update keeps its own. A resourceVersion
     * the patch set stays, as a precondition; else the stored one is, so a change made meanwhile is
     * seen (and the patch tried again) rather than lost. */
    json_object_del(now, "status");
    json_t *meta = json_object_get(now, "metadata");
    json_t *stored_rv = json_object_get(json_object_get(stored, "metadata"), "resourceVersion");
    json_t *rv = json_object_get(meta, "resourceVersion");
    bool ours = json_is_object(meta) && (!rv || json_equal(rv, stored_rv));
    if (json_is_object(meta) && !rv)
        json_object_set(meta, "resourceVersion", stored_rv);
    json_decref(stored);
    char *text = json_dumps(now, JSON_COMPACT);
    json_decref(now);
    if (!text) {
        api_fail(&st, 500, "InternalError", "out of memory");
        http_respond_status(req, &st);
        return 0;
    }
    sbuf_free(&req->body);
    sbuf_puts(&req->body, text);
    free(text);
    gateway_hold_stale_conflicts(ours && !last);
    k->put(req); /* the body is the whole object now: PUT's checks, storage and answer */
    bool again = gateway_stale_conflict_held();
    gateway_hold_stale_conflicts(false);
    return again ? 1 : 0;
}

static void patch_object(struct http_req *req, const struct patch_kind *k)
{
    struct api_status st = {0};
    enum patch_type type = PATCH_MERGE;
    if (http_query(req, "dryRun")) /* never write what a client asked only to try */
        api_fail(&st, 400, "BadRequest", "dryRun is not supported: the request would change the object");
    if (st.code || patch_type_of(req, &type, &st) != 0 || (type == PATCH_APPLY && patch_apply_check(req, &st) != 0)) {
        http_respond_status(req, &st);
        return;
    }
    struct sbuf patch = {0};
    sbuf_append(&patch, req->body.data ? req->body.data : "", req->body.len);
    for (int i = 0; i < PATCH_TRIES && patch_once(req, k, type, &patch, i + 1 == PATCH_TRIES) == 1; i++)
        ;
    sbuf_free(&patch);
}

static const struct patch_kind job_kind = {CORE_JOB_GET, handle_job_update, handle_job_create, 0, 1};
static const struct patch_kind queue_kind = {CORE_QUEUE_GET, handle_queue_update, handle_queue_create, -1, 0};
static const struct patch_kind priority_class_kind = {CORE_PRIORITYCLASS_GET, handle_priorityclass_update,
                                                      handle_priorityclass_create, -1, 0};
static const struct patch_kind quota_kind = {CORE_QUOTA_GET, handle_quota_update, handle_quota_create, 0, 1};

void handle_job_patch(struct http_req *req) { patch_object(req, &job_kind); }
void handle_queue_patch(struct http_req *req) { patch_object(req, &queue_kind); }
void handle_priorityclass_patch(struct http_req *req) { patch_object(req, &priority_class_kind); }
void handle_quota_patch(struct http_req *req) { patch_object(req, &quota_kind); }

static const struct patch_kind configmap_kind = {
    CORE_CONFIG_GET, handle_configmap_update, handle_configmap_create, 0, 1, CONFIG_MAP};
static const struct patch_kind secret_kind = {CORE_CONFIG_GET, handle_secret_update, handle_secret_create, 0, 1,
                                              CONFIG_SECRET};
void handle_configmap_patch(struct http_req *req) { patch_object(req, &configmap_kind); }
void handle_secret_patch(struct http_req *req) { patch_object(req, &secret_kind); }
