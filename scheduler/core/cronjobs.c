/* The core's answers about CronJobs: get, list (by the caller's namespaces), create, update and
 * delete, rendered with status.active from the jobs each owns. The controller changes them. */
#include <stdio.h>
#include <string.h>

#include "adapters/objects/cronjob.h"
#include "scheduler/controller/cron.h"
#include "scheduler/core/internal.h"

static json_t *render_cronjob(const struct core *c, const struct cron_job *cj)
{
    json_t *active = controller_cronjob_active(&c->ctl, cj);
    json_t *obj = cronjob_render(cj, active);
    json_decref(active);
    return obj;
}

static void answer_cronjob(struct core *c, struct core_request *req, const struct cron_job *cj, int code)
{
    if (cj)
        core_answer(req, code, render_cronjob(c, cj), cj->resource_version);
}

static void cronjob_list(struct core *c, struct core_request *req)
{
    json_t *items = json_array();
    for (int i = 0; i < c->cluster.ncronjobs; i++) {
        const struct cron_job *cj = c->cluster.cronjobs[i];
        if ((!req->ns || strcmp(req->ns, cj->ns) == 0) && core_sees_namespace(req, cj->ns))
            json_array_append_new(items, render_cronjob(c, cj));
    }
    core_answer_list(c, req, CRONJOB_API_VERSION, "CronJobList", items);
}

static void cronjob_get(struct core *c, struct core_request *req)
{
    const struct cron_job *cj = controller_find_cronjob(&c->cluster, req->ns, req->name);
    if (!cj)
        return core_not_found(req, "cronjobs", "batch.volcano.sh", req->name);
    answer_cronjob(c, req, cj, 200);
}

static void cronjob_create(struct core *c, struct core_request *req)
{
    const struct cron_job *cj = controller_create_cronjob(&c->ctl, req->object, &req->status);
    if (cj)
        req->object = NULL;
    answer_cronjob(c, req, cj, 201);
}

static void cronjob_update(struct core *c, struct core_request *req)
{
    const struct cron_job *cj = controller_update_cronjob(&c->ctl, req->object, &req->status);
    if (cj)
        req->object = NULL;
    answer_cronjob(c, req, cj, 200);
}

static void cronjob_delete(struct core *c, struct core_request *req)
{
    uint64_t seq;
    if (controller_delete_cronjob(&c->ctl, req->ns, req->name, &seq, &req->status) != 0)
        return;
    c->kick = true; /* its jobs were deleted with it */
    core_answer_deleted(req, "cronjobs", "batch.volcano.sh", NULL, seq);
}

void core_handle_cronjob_request(struct core *c, struct core_request *req)
{
    switch (req->op) {
    case CORE_CRONJOB_GET: cronjob_get(c, req); break;
    case CORE_CRONJOB_LIST: cronjob_list(c, req); break;
    case CORE_CRONJOB_CREATE: cronjob_create(c, req); break;
    case CORE_CRONJOB_UPDATE: cronjob_update(c, req); break;
    case CORE_CRONJOB_DELETE: cronjob_delete(c, req); break;
    case CORE_CONFIG_GET:
    case CORE_CONFIG_LIST:
    case CORE_CONFIG_CREATE:
    case CORE_CONFIG_UPDATE:
    case CORE_CONFIG_DELETE: core_handle_config_request(c, req); break;
    default: core_handle_jobflow_request(c, req); break;
    }
}
