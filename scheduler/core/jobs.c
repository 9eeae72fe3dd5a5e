/* Jobs through the API, on the core thread: create, get, list, update and delete, each in the view
 * the request asks for: the Volcano Job, or the dialect the job was posted in (a PyTorchJob); a list
 * for a Table is its rows, written by job_table.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "adapters/dialects/volcano/job.h"
#include "common/json_patch.h"
#include "common/clock.h"
#include "scheduler/controller/companions.h"
#include "scheduler/core/internal.h"

static const char *resource_of(const struct core_request *req) { return req->dialect ? req->dialect->plural : "jobs"; }

static const char *group_of(const struct core_request *req)
{
    return req->dialect ? req->dialect->group : "batch.volcano.sh";
}

/* Every job is a Volcano Job; only the jobs posted in a dialect are objects of that dialect. */
static bool in_view(const struct core_request *req, const struct job *job)
{
    return !req->dialect || (job->source && dialect_of_source(job->source) == req->dialect);
}

static json_t *render(const struct core *c, const struct core_request *req, const struct job *job)
{
    if (req->as_manifest)
        return controller_job_manifest(&c->ctl, job, req->owner_uid);
    json_t *volcano = volcano_job_render(job);
    if (!req->dialect || req->as_volcano || !volcano)
        return volcano;
    json_t *obj = dialect_render(req->dialect, job->source, volcano);
    json_decref(volcano);
    return obj;
}

/* The live job the request names, in its view, or NULL with a 404 answered. */
static struct job *find(struct core *c, struct core_request *req)
{
    struct job *job = cluster_find_job(&c->cluster, req->ns, req->name);
    if (job && in_view(req, job))
        return job;
    core_not_found(req, resource_of(req), group_of(req), req->name);
    return NULL;
}

static void job_create(struct core *c, struct core_request *req)
{
    uint64_t seq;
    if (controller_companions_check(&c->ctl, req->job, &req->status) != 0 ||
        controller_create_job(&c->ctl, req->job, &seq, &req->status) != 0)
        return;
    struct job *job = req->job;
    req->job = NULL; /* the cluster owns it now */
    controller_companions_for_job(&c->ctl, job);
    c->kick = true;
    core_answer(req, 201, render(c, req, job), seq);
}

static void job_get(struct core *c, struct core_request *req)
{
    struct job *job = find(c, req);
    if (job)
        core_answer(req, 200, render(c, req, job), job->resource_version);
}

static void job_list(struct core *c, struct core_request *req)
{
    json_t *items = json_array();
    size_t count = 0;
    bool rows = req->as_table && (!req->dialect || req->as_volcano);
    struct sbuf table = {0};
    int64_t now_ms = clock_wall_ms();
    for (struct job *job = c->cluster.first; job; job = job->next) {
        if (core_page_before(req, job, false) || core_name_excludes(req, job, false) || !core_in_namespace(job, req) ||
            !cluster_wake(&c->cluster, job) || !in_view(req, job))
            continue;
        const json_t *meta = json_object_get(req->dialect && !req->as_volcano ? job->source : job_manifest(job),
                                             "metadata");
        if (req->nselectors && !core_labels_match(json_object_get(meta, "labels"), req))
            continue;
        if (!core_page_room(req, count)) {
            core_page_count_rest(req, job);
            break;
        }
        if (rows) {
            sbuf_puts(&table, count ? "," : "[");
            core_job_table_row(&table, job, req, now_ms);
        } else {
            json_array_append_new(items, render(c, req, job));
        }
        core_page_last(req, job, -1, -1);
        count++;
    }
    if (rows) {
        sbuf_puts(&table, count ? "]" : "[]");
        req->text = sbuf_take(&table); /* NULL when memory ran out: the gateway says so */
    }
    if (!req->dialect || req->as_volcano)
        return core_answer_list(c, req, VOLCANO_JOB_API_VERSION, "JobList", items);
    char api_version[128], kind[96];
    snprintf(api_version, sizeof api_version, "%s/%s", req->dialect->group, req->dialect->version);
    snprintf(kind, sizeof kind, "%sList", req->dialect->kind);
    core_answer_list(c, req, api_version, kind, items);
}

static void job_delete(struct core *c, struct core_request *req)
{
    struct job *job = find(c, req);
    if (!job)
        return;
    char uid[UUID_STR_LEN];
    snprintf(uid, sizeof uid, "%s", job->uid);
    uint64_t seq = controller_delete_job(&c->ctl, job); /* may free the job */
    c->kick = true;
    core_answer_deleted(req, resource_of(req), group_of(req), uid, seq);
}

/* metadata.resourceVersion, when the document gives one, must be the job's (409). */
static int check_version(struct core_request *req, const struct job *job)
{
    const char *rv = json_string_value(json_object_get(json_object_get(req->document, "metadata"), "resourceVersion"));
    if (!rv || !*rv || strtoull(rv, NULL, 10) == job->resource_version)
        return 0;
    api_set_details(&req->status, resource_of(req), group_of(req), job->name);
    return api_fail(&req->status, 409, "Conflict",
                    "Operation cannot be fulfilled on %s.%s \"%s\": the object has been modified; please apply your "
                    "changes to the latest version and try again",
                    resource_of(req), group_of(req), job->name);
}

/* A PUT or merge PATCH at a dialect's path: what the dialect's update lets change (405 when it lets
 * nothing), applied to the job by the controller. */
static void dialect_update(struct core *c, struct core_request *req, struct job *job)
{
    const struct dialect *d = req->dialect;
    if (!d->update) {
        api_fail(&req->status, 405, "MethodNotAllowed", "%s objects cannot be changed: delete it and submit it again",
                 d->kind);
        return;
    }
    if (check_version(req, job) != 0)
        return;
    json_t *updated = req->merge_patch ? json_merge_patch(job->source, req->document) : json_deep_copy(req->document);
    struct dialect_change change;
    if (!updated) {
        api_fail(&req->status, 500, "InternalError", "out of memory");
        return;
    }
    if (d->update(job->source, updated, &change, &req->status) != 0) {
        json_decref(updated);
        return;
    }
    /* what is stored: the object as posted, with its new spec (metadata stays the stored one's) */
    json_object_del(updated, "status");
    json_object_set(updated, "metadata", json_object_get(job->source, "metadata"));
    json_t *source = json_deep_copy(updated);
    json_decref(updated);
    if (controller_update_source(&c->ctl, job, source, change.active_deadline_seconds, change.what, &req->status) != 0)
        return;
    c->kick = true;
    core_answer(req, 200, render(c, req, job), job->resource_version);
}

/* A PUT of the Volcano Job. A job posted in another dialect is that dialect's object: replacing its
 * Volcano Job would leave the object GET shows behind, so it is refused. */
static void job_update(struct core *c, struct core_request *req)
{
    struct job *job = find(c, req);
    if (!job)
        return;
    if (req->dialect) {
        dialect_update(c, req, job);
        return;
    }
    const struct dialect *d = job->source ? dialect_of_source(job->source) : NULL;
    if (d) {
        api_set_details(&req->status, "jobs", "batch.volcano.sh", job->name);
        api_fail(&req->status, 409, "Conflict",
                 "job %s was submitted as a %s (%s/%s): it cannot be replaced as a Volcano Job; delete it and submit "
                 "it again",
                 job->name, d->kind, d->group, d->version);
        return;
    }
    if (controller_update_job(&c->ctl, job, req->job, &req->status) != 0)
        return;
    c->kick = true;
    core_answer(req, 200, render(c, req, job), job->resource_version);
}

void core_handle_job_request(struct core *c, struct core_request *req)
{
    switch (req->op) {
    case CORE_JOB_CREATE: job_create(c, req); break;
    case CORE_JOB_GET: job_get(c, req); break;
    case CORE_JOB_LIST: job_list(c, req); break;
    case CORE_JOB_DELETE: job_delete(c, req); break;
    case CORE_JOB_UPDATE: job_update(c, req); break;
    default: break;
    }
}
