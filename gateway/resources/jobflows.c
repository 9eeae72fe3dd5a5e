/* Volcano's JobTemplates and JobFlows over HTTP, and a flow's retry. A template's spec is checked
 * here as the Volcano Job it will make and made to run as the caller, as a POSTed Job's; each flow
 * step likewise, its patch merged into its template as the core has it, so what a step runs is
 * decided at submit and never runs as anyone but whoever posted the flow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "adapters/intake/intake.h"
#include "adapters/objects/jobflow.h"
#include "gateway/auth/request.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"
#include "scheduler/core/core.h"

/* doc as a Volcano Job run as the caller; *spec gets its spec as rewritten. Returns 0, or -1 with a
 * 422 (or 403) in st naming where. */
static int check_job(struct http_req *req, json_t *doc, const char *ns, const char *kind, const char *name,
                     const char *where, json_t **spec, struct api_status *st)
{
    struct intake_doc d = {.root = doc};
    struct job *job = NULL;
    struct api_status jst = {0};
    if ((doc ? volcano_job_from_doc(&d, ns, &job, &jst) : -1) != 0)
        return api_fail(st, 422, "Invalid", "%s.%s \"%s\" is invalid: %s: %s", kind, FLOW_GROUP, name, where,
                        jst.message[0] ? jst.message : "out of memory");
    struct fields f = {NULL, st, false};
    int rc = gateway_run_as(req, &f, job, strcmp(kind, "JobFlow") == 0 ? "jobflows" : "jobtemplates", FLOW_GROUP);
    if (rc == 0)
        *spec = json_deep_copy(json_object_get(job_manifest(job), "spec"));
    job_free(job);
    return rc;
}

static struct job_template *read_template(struct http_req *req, const char *ns, const char *name)
{
    struct core_request creq = {.op = CORE_JOBTEMPLATE_GET, .ns = ns, .name = name};
    struct job_template *t = NULL;
    if (core_call(req->gw->core, &creq) == 0 && creq.http_code == 200) {
        char *text = json_dumps(creq.body, JSON_COMPACT);
        t = text ? jobtemplate_from_store_json(text) : NULL;
        free(text);
    }
    json_decref(creq.body);
    return t;
}

/* Each step's job, made now from its template as the core has it: checked as a Volcano Job and as
 * run by the caller (a template another user's ids were written into is refused), and for a step
 * with a patch, the merged spec kept as its patch.spec. A missing template is the core's to refuse. */
static int check_steps(struct http_req *req, struct job_flow *f, struct api_status *st)
{
    json_t *flows = json_object_get(json_object_get(f->manifest, "spec"), "flows");
    for (int i = 0; i < f->nsteps; i++) {
        json_t *patch = json_object_get(json_array_get(flows, (size_t)i), "patch");
        struct job_template *t = read_template(req, f->ns, f->steps[i].name);
        if (!t)
            continue;
        char where[64];
        snprintf(where, sizeof where, "spec.flows[%d]%s", i, json_object_get(patch, "spec") ? ".patch" : ".name");
        json_t *doc = jobflow_job_document(f, &f->steps[i], t, st), *spec = NULL;
        int rc = doc ? check_job(req, doc, f->ns, "JobFlow", f->name, where, &spec, st) : -1;
        json_decref(doc);
        job_template_free(t);
        if (rc != 0)
            return -1;
        if (json_object_get(patch, "spec"))
            json_object_set_new(patch, "spec", spec);
        else
            json_decref(spec);
    }
    return 0;
}

static void submit_template(struct http_req *req)
{
    struct api_status st = {0};
    struct intake in;
    struct job_template *t = NULL;
    const char *ns = req->params[0];
    if (gateway_read_document(req, "JobTemplate", &in, &st) == 0) {
        jobtemplate_from_doc(&in.docs[0], ns, &t, &st);
        intake_free(&in);
    }
    json_t *spec = NULL;
    if (t) {
        json_t *doc = jobtemplate_job_document(t, t->name);
        if (check_job(req, doc, ns, "JobTemplate", t->name, "spec", &spec, &st) == 0)
            json_object_set_new(t->manifest, "spec", spec);
        else {
            job_template_free(t);
            t = NULL;
        }
        json_decref(doc);
    }
    if (!t) {
        auth_respond_status(req, &st);
        return;
    }
    struct core_request creq = {.op = CORE_JOBTEMPLATE_CREATE, .ns = ns, .name = t->name, .object = t};
    gateway_answer_core(req, &creq);
    job_template_free(creq.object); /* still ours when the core refused it */
}

static void submit_flow(struct http_req *req)
{
    struct api_status st = {0};
    struct intake in;
    struct job_flow *f = NULL;
    const char *ns = req->params[0];
    if (gateway_read_document(req, "JobFlow", &in, &st) == 0) {
        jobflow_from_doc(&in.docs[0], ns, &f, &st);
        intake_free(&in);
    }
    if (f && check_steps(req, f, &st) != 0) {
        job_flow_free(f);
        f = NULL;
    }
    if (!f) {
        auth_respond_status(req, &st);
        return;
    }
    struct core_request creq = {.op = CORE_JOBFLOW_CREATE, .ns = ns, .name = f->name, .object = f};
    gateway_answer_core(req, &creq);
    job_flow_free(creq.object);
}

void handle_jobtemplate_list_all(struct http_req *req)
{
    gateway_ask_list(req, CORE_JOBTEMPLATE_LIST, NULL, FLOW_API_VERSION, "JobTemplate");
}
void handle_jobtemplate_list(struct http_req *req)
{
    gateway_ask_list(req, CORE_JOBTEMPLATE_LIST, req->params[0], FLOW_API_VERSION, "JobTemplate");
}
void handle_jobtemplate_get(struct http_req *req)
{
    gateway_ask(req, CORE_JOBTEMPLATE_GET, req->params[0], req->params[1]);
}
void handle_jobtemplate_create(struct http_req *req) { submit_template(req); }
void handle_jobtemplate_delete(struct http_req *req)
{
    gateway_ask(req, CORE_JOBTEMPLATE_DELETE, req->params[0], req->params[1]);
}
void handle_jobflow_list_all(struct http_req *req)
{
    gateway_ask_list(req, CORE_JOBFLOW_LIST, NULL, FLOW_API_VERSION, "JobFlow");
}
void handle_jobflow_list(struct http_req *req)
{
    gateway_ask_list(req, CORE_JOBFLOW_LIST, req->params[0], FLOW_API_VERSION, "JobFlow");
}
void handle_jobflow_get(struct http_req *req) { gateway_ask(req, CORE_JOBFLOW_GET, req->params[0], req->params[1]); }
void handle_jobflow_create(struct http_req *req) { submit_flow(req); }
void handle_jobflow_delete(struct http_req *req)
{
    gateway_ask(req, CORE_JOBFLOW_DELETE, req->params[0], req->params[1]);
}
void handle_jobflow_retry(struct http_req *req)
{
    gateway_ask(req, CORE_JOBFLOW_RETRY, req->params[0], req->params[1]);
}
