/* Volcano Jobs over HTTP: create (JSON or YAML), get, list, update, delete. Parsing and validation
 * happen here, on the gateway thread; the core only admits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "adapters/intake/fields.h"
#include "adapters/intake/intake.h"
#include "gateway/auth/request.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"

/* The body as a Volcano Job of the URL's namespace whose tasks run as the caller, or NULL with why
 * in st. */
static struct job *read_job(struct http_req *req, struct api_status *st)
{
    struct intake in;
    struct job *job = NULL;
    if (gateway_read_document(req, "Job", &in, st) == 0) {
        struct fields f = {&in.docs[0], st, false};
        if (volcano_job_from_doc(&in.docs[0], req->params[0], &job, st) == 0 &&
            gateway_run_as(req, &f, job, "jobs", "batch.volcano.sh") != 0) {
            job_free(job);
            job = NULL;
        }
        intake_free(&in);
    }
    return job;
}

void handle_job_create(struct http_req *req)
{
    struct api_status st = {0};
    struct job *job = read_job(req, &st);
    if (!job) {
        auth_respond_status(req, &st);
        return;
    }
    struct core_request creq = {.op = CORE_JOB_CREATE, .ns = req->params[0], .name = job->name, .job = job};
    gateway_answer_core(req, &creq);
    job_free(creq.job); /* still ours when the core refused it */
}

/* PUT: the whole Job again; the core lets through what Volcano lets change (a scale). */
void handle_job_update(struct http_req *req)
{
    struct api_status st = {0};
    struct job *job = read_job(req, &st);
    if (job && strcmp(job->name, req->params[1]) != 0) {
        api_fail(&st, 400, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)",
                 job->name, req->params[1]);
        job_free(job);
        job = NULL;
    }
    if (!job) {
        auth_respond_status(req, &st);
        return;
    }
    struct core_request creq = {.op = CORE_JOB_UPDATE, .ns = req->params[0], .name = req->params[1], .job = job};
    gateway_answer_core(req, &creq);
    job_free(job);
}

void handle_job_get(struct http_req *req) { gateway_ask(req, CORE_JOB_GET, req->params[0], req->params[1]); }
void handle_job_list(struct http_req *req)
{
    gateway_ask_list(req, CORE_JOB_LIST, req->params[0], VOLCANO_JOB_API_VERSION, "Job");
}
void handle_job_list_all(struct http_req *req)
{
    gateway_ask_list(req, CORE_JOB_LIST, NULL, VOLCANO_JOB_API_VERSION, "Job");
}
/* caldera.io: the job as the manifest a Kubernetes cluster running Volcano accepts. */
void handle_job_manifest(struct http_req *req)
{
    struct core_request creq = {.op = CORE_JOB_GET, .ns = req->params[0], .name = req->params[1], .as_manifest = true};
    gateway_answer_core(req, &creq);
}

void handle_job_delete(struct http_req *req) { gateway_ask(req, CORE_JOB_DELETE, req->params[0], req->params[1]); }
