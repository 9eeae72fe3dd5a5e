/* PodGroups over HTTP: each job's (the core's, named <job>-<uid>), and those posted on their own,
 * kept as records and shown after the jobs' (adapters/objects/podgroup_posted.h: no pod names them,
 * so they stay Pending). Posting one whose name a job's PodGroup has is a 409; deleting a job's is
 * a 409 too (delete the job). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/podgroup.h"
#include "adapters/objects/podgroup_posted.h"
#include "common/clock.h"
#include "common/namespace_set.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"
#include "gateway/watch/watch.h"
#include "store/history.h"
#include "store/store.h"

struct posted {
    const char *ns, *name; /* NULL: any */
    const struct namespace_set *visible;
    json_t *items;
};

static int posted_row(void *ctx, const struct store_object_row *row, struct api_status *st)
{
    (void)st;
    struct posted *p = ctx;
    if ((p->ns && strcmp(row->ns, p->ns) != 0) || (p->name && strcmp(row->name, p->name) != 0) ||
        !namespace_set_has(p->visible, row->ns))
        return 0;
    json_t *pg = json_loads(row->json, 0, NULL);
    if (pg)
        json_array_append_new(p->items, pg);
    return 0;
}

/* The posted PodGroups of ns (NULL: every namespace the caller sees), or only the one named. */
static json_t *posted_podgroups(struct http_req *req, const char *ns, const char *name, struct api_status *st)
{
    struct posted p = {ns, name, gateway_visible(req), json_array()};
    struct store_reader *r = NULL;
    if (!p.items || store_reader_open(req->gw->db_path, &r, st) != 0 ||
        store_read_objects(r, PODGROUP_POSTED_KIND, posted_row, &p, st) != 0) {
        store_reader_close(r);
        json_decref(p.items);
        if (!st->code)
            api_fail(st, 500, "InternalError", "out of memory reading the PodGroups");
        return NULL;
    }
    store_reader_close(r);
    return p.items;
}

static void list(struct http_req *req, const char *ns)
{
    struct api_status st = {0};
    json_t *extra = posted_podgroups(req, ns, NULL, &st);
    if (!extra) {
        http_respond_status(req, &st);
        return;
    }
    struct core_request creq = {.op = CORE_PODGROUP_LIST, .ns = ns};
    gateway_answer_list_with(req, &creq, &(struct list_kind){PODGROUP_API_VERSION, "PodGroup", NULL}, extra);
    json_decref(extra);
}

void handle_podgroup_list(struct http_req *req) { list(req, req->params[0]); }
void handle_podgroup_list_all(struct http_req *req) { list(req, NULL); }

void handle_podgroup_get(struct http_req *req)
{
    struct api_status st = {0};
    json_t *found = posted_podgroups(req, req->params[0], req->params[1], &st);
    if (!found) {
        http_respond_status(req, &st);
        return;
    }
    json_t *pg = json_incref(json_array_get(found, 0));
    json_decref(found);
    if (pg)
        http_respond_json(req, 200, pg);
    else
        gateway_ask(req, CORE_PODGROUP_GET, req->params[0], req->params[1]);
}

/* Whether a job's PodGroup answers to name in ns: 0 no, 1 yes, -1 with st. */
static int a_jobs(struct http_req *req, const char *ns, const char *name, struct api_status *st)
{
    struct core_request creq = {.op = CORE_PODGROUP_GET, .ns = ns, .name = name};
    if (core_call(req->gw->core, &creq) == 0) {
        json_decref(creq.body);
        return 1;
    }
    if (creq.status.code == 404)
        return 0;
    *st = creq.status;
    return -1;
}

/* Records the posted PodGroup (json NULL: its removal) and waits until it is durable. */
static int record(struct http_req *req, const char *ns, const char *name, const json_t *pg, struct api_status *st)
{
    char *json = pg ? json_dumps(pg, JSON_COMPACT) : NULL;
    if (pg && !json)
        return api_fail(st, 500, "InternalError", "out of memory");
    struct core_request creq = {.op = pg ? CORE_RECORD_PUT : CORE_RECORD_DELETE,
                                .ns = ns,
                                .name = name,
                                .record = {.kind = PODGROUP_POSTED_KIND,
                                           .reason = pg ? "Created" : "Deleted",
                                           .message = pg ? "podgroup created on its own" : "podgroup deleted",
                                           .json = json}};
    int rc = core_call(req->gw->core, &creq);
    free(json);
    if (rc != 0) {
        *st = creq.status;
        return -1;
    }
    json_decref(creq.body);
    if (store_wait(req->gw->store, creq.durable_seq, req->gw->durable_timeout_ms) != 0) {
        char why[512];
        store_failure_kind(req->gw->store, why, sizeof why);
        return api_fail(st, 503, "ServiceUnavailable", "the job database did not record the PodGroup in time: %s", why);
    }
    return 0;
}

static int already_exists(struct api_status *st, const char *name)
{
    api_fail(st, 409, "AlreadyExists", "podgroups.scheduling.volcano.sh \"%s\" already exists", name);
    api_set_details(st, "podgroups", "scheduling.volcano.sh", name);
    return -1;
}

void handle_podgroup_create(struct http_req *req)
{
    const char *ns = req->params[0];
    struct api_status st = {0};
    struct intake in = {0};
    char created[RFC3339_LEN];
    json_t *pg = NULL, *same = NULL;
    if (gateway_read_document(req, "PodGroup", &in, &st) != 0) {
        http_respond_status(req, &st);
        return;
    }
    int rc = podgroup_posted_from_doc(&in.docs[0], ns, rfc3339(clock_wall_ms(), created), &pg, &st);
    intake_free(&in);
    const char *name = rc == 0 ? json_string_value(json_object_get(json_object_get(pg, "metadata"), "name")) : NULL;
    if (rc == 0 && !(same = posted_podgroups(req, ns, name, &st)))
        rc = -1;
    if (rc == 0 && json_array_size(same) > 0)
        rc = already_exists(&st, name);
    int jobs = rc == 0 ? a_jobs(req, ns, name, &st) : 0;
    if (jobs != 0)
        rc = jobs < 0 ? -1 : already_exists(&st, name);
    json_decref(same);
    if (rc == 0)
        rc = record(req, ns, name, pg, &st);
    if (rc == 0)
        http_respond_json(req, 201, pg);
    else {
        json_decref(pg);
        http_respond_status(req, &st);
    }
}

void handle_podgroup_delete(struct http_req *req)
{
    const char *ns = req->params[0], *name = req->params[1];
    struct api_status st = {0};
    json_t *found = posted_podgroups(req, ns, name, &st);
    int jobs = found && json_array_size(found) == 0 ? a_jobs(req, ns, name, &st) : 0;
    if (!found || jobs < 0) {
        json_decref(found);
        http_respond_status(req, &st);
        return;
    }
    if (jobs > 0) {
        api_fail(&st, 409, "Conflict", "podgroups.scheduling.volcano.sh \"%s\" belongs to a Job: delete the Job", name);
        api_set_details(&st, "podgroups", "scheduling.volcano.sh", name);
    } else if (json_array_size(found) == 0) {
        api_fail(&st, 404, "NotFound", "podgroups.scheduling.volcano.sh \"%s\" not found", name);
        api_set_details(&st, "podgroups", "scheduling.volcano.sh", name);
    }
    if (st.code == 0 && record(req, ns, name, NULL, &st) == 0) {
        const char *uid = json_string_value(
            json_object_get(json_object_get(json_array_get(found, 0), "metadata"), "uid"));
        http_respond_json(req, 200,
                          json_pack("{s:s, s:s, s:{}, s:s, s:{s:s, s:s, s:s, s:s}}", "kind", "Status", "apiVersion",
                                    "v1", "metadata", "status", "Success", "details", "name", name, "group",
                                    "scheduling.volcano.sh", "kind", "podgroups", "uid", uid ? uid : ""));
    } else {
        http_respond_status(req, &st);
    }
    json_decref(found);
}
