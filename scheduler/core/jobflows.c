/* The core's answers about JobTemplates and JobFlows: get, list (by the caller's namespaces),
 * create, delete, and a flow's retry. The controller (flow.c, flow_sync.c) changes them. */
#include <string.h>

#include "adapters/objects/jobflow.h"
#include "scheduler/controller/flow.h"
#include "scheduler/core/internal.h"

static json_t *render_template(const struct core *c, const struct job_template *t)
{
    json_t *jobs = controller_jobtemplate_jobs(&c->ctl, t);
    json_t *obj = jobtemplate_render(t, jobs);
    json_decref(jobs);
    return obj;
}

static void template_list(struct core *c, struct core_request *req)
{
    json_t *items = json_array();
    for (int i = 0; i < c->cluster.njobtemplates; i++) {
        const struct job_template *t = c->cluster.jobtemplates[i];
        if ((!req->ns || strcmp(req->ns, t->ns) == 0) && core_sees_namespace(req, t->ns))
            json_array_append_new(items, render_template(c, t));
    }
    core_answer_list(c, req, FLOW_API_VERSION, "JobTemplateList", items);
}

static void flow_list(struct core *c, struct core_request *req)
{
    json_t *items = json_array();
    for (int i = 0; i < c->cluster.njobflows; i++) {
        const struct job_flow *f = c->cluster.jobflows[i];
        if ((!req->ns || strcmp(req->ns, f->ns) == 0) && core_sees_namespace(req, f->ns))
            json_array_append_new(items, jobflow_render(f));
    }
    core_answer_list(c, req, FLOW_API_VERSION, "JobFlowList", items);
}

static void template_get(struct core *c, struct core_request *req)
{
    const struct job_template *t = controller_find_jobtemplate(&c->cluster, req->ns, req->name);
    if (!t)
        return core_not_found(req, "jobtemplates", FLOW_GROUP, req->name);
    core_answer(req, 200, render_template(c, t), t->resource_version);
}

static void flow_get(struct core *c, struct core_request *req)
{
    const struct job_flow *f = controller_find_jobflow(&c->cluster, req->ns, req->name);
    if (!f)
        return core_not_found(req, "jobflows", FLOW_GROUP, req->name);
    core_answer(req, 200, jobflow_render(f), f->resource_version);
}

static void template_create(struct core *c, struct core_request *req)
{
    const struct job_template *t = controller_create_jobtemplate(&c->ctl, req->object, &req->status);
    if (!t)
        return;
    req->object = NULL;
    core_answer(req, 201, render_template(c, t), t->resource_version);
}

static void flow_create(struct core *c, struct core_request *req)
{
    struct job_flow *f = controller_create_jobflow(&c->ctl, req->object, &req->status);
    if (!f)
        return;
    req->object = NULL;
    core_answer(req, 201, jobflow_render(f), f->resource_version);
}

static void flow_retry(struct core *c, struct core_request *req)
{
    struct job_flow *f = controller_retry_jobflow(&c->ctl, req->ns, req->name, &req->status);
    if (!f)
        return;
    c->kick = true; /* its failed jobs were deleted */
    core_answer(req, 200, jobflow_render(f), f->resource_version);
}

static void object_delete(struct core *c, struct core_request *req, bool flow)
{
    uint64_t seq;
    int rc = flow ? controller_delete_jobflow(&c->ctl, req->ns, req->name, &seq, &req->status)
                  : controller_delete_jobtemplate(&c->ctl, req->ns, req->name, &seq, &req->status);
    if (rc != 0)
        return;
    c->kick = true;
    core_answer_deleted(req, flow ? "jobflows" : "jobtemplates", FLOW_GROUP, NULL, seq);
}

void core_handle_jobflow_request(struct core *c, struct core_request *req)
{
    switch (req->op) {
    case CORE_JOBTEMPLATE_GET: template_get(c, req); break;
    case CORE_JOBTEMPLATE_LIST: template_list(c, req); break;
    case CORE_JOBTEMPLATE_CREATE: template_create(c, req); break;
    case CORE_JOBTEMPLATE_DELETE: object_delete(c, req, false); break;
    case CORE_JOBFLOW_GET: flow_get(c, req); break;
    case CORE_JOBFLOW_LIST: flow_list(c, req); break;
    case CORE_JOBFLOW_CREATE: flow_create(c, req); break;
    case CORE_JOBFLOW_DELETE: object_delete(c, req, true); break;
    case CORE_JOBFLOW_RETRY: flow_retry(c, req); break;
    default: api_fail(&req->status, 500, "InternalError", "the core has no answer to request %d", (int)req->op); break;
    }
}
