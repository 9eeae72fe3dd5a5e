/* Volcano Jobs over HTTP: create (JSON or YAML), get, list, update, delete. Parsing and validation
 * happen here, on the gateway thread; the core only admits. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "adapters/intake/fields.h"
#include "adapters/intake/intake.h"
#include "gateway/auth/request.h"
#include "gateway/http/query_params.h"
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
/* A Kubernetes object uid: a UUID in its 8-4-4-4-12 text form. */
static bool uid_text(const char *s)
{
    static const char shape[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
    for (size_t i = 0; i < sizeof shape - 1; i++)
        if (shape[i] == '-' ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
            return false;
    return s[sizeof shape - 1] == '\0';
}

/* caldera.io: the job as the manifest a Kubernetes cluster running Volcano accepts, with its
 * companions' Pods, Services and Ingresses owned by the Job of uid ?ownerUid= (the kube backend passes
 * the cluster's; without it, Caldera's own uid of the job). */
void handle_job_manifest(struct http_req *req)
{
    const char *owner_uid = http_query(req, "ownerUid");
    if (owner_uid && !uid_text(owner_uid)) {
        struct api_status st = {0};
        query_bad_param(&st, "ownerUid", owner_uid, "must be a Kubernetes uid (a UUID: 8-4-4-4-12 hex digits)");
        http_respond_status(req, &st);
        return;
    }
    struct core_request creq = {
        .op = CORE_JOB_GET, .ns = req->params[0], .name = req->params[1], .as_manifest = true, .owner_uid = owner_uid};
    gateway_answer_core(req, &creq);
}

void handle_job_delete(struct http_req *req) { gateway_ask(req, CORE_JOB_DELETE, req->params[0], req->params[1]); }
