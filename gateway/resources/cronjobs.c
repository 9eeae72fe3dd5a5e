/* Volcano's CronJobs over HTTP. A POST or PUT is checked here, on the gateway thread: the CronJob's
 * own fields, then its jobTemplate as the Volcano Job it will create (a bad template is refused now,
 * not at its first scheduled time), whose tasks are made to run as the caller, as a POSTed Job's. */
#include <stdio.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "adapters/intake/intake.h"
#include "adapters/objects/cronjob.h"
#include "common/clock.h"
#include "gateway/auth/request.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"

/* The template as a Volcano Job, run as the caller: its spec replaces the template's (with the
 * runAsUser and runAsGroup written in). Returns 0, or -1 with the Status in st. */
static int check_template(struct http_req *req, struct cron_job *cj, struct api_status *st)
{
    json_t *doc = cronjob_job_document(cj, clock_wall_ms());
    struct intake_doc d = {.root = doc};
    struct job *job = NULL;
    struct api_status jst = {0};
    int rc = doc ? volcano_job_from_doc(&d, cj->ns, &job, &jst) : -1;
    if (rc != 0) {
        api_fail(st, 422, "Invalid", "CronJob.batch.volcano.sh \"%s\" is invalid: spec.jobTemplate: %s", cj->name,
                 jst.message[0] ? jst.message : "out of memory");
        json_decref(doc);
        return -1;
    }
    struct fields f = {NULL, st, false};
    rc = gateway_run_as(req, &f, job, "cronjobs", "batch.volcano.sh");
    if (rc == 0) {
        json_t *tmpl = json_object_get(json_object_get(cj->manifest, "spec"), "jobTemplate");
        json_object_set_new(tmpl, "spec", json_deep_copy(json_object_get(job_manifest(job), "spec")));
    }
    job_free(job);
    json_decref(doc);
    return rc;
}

static void submit(struct http_req *req, enum core_op op, const char *url_name)
{
    struct api_status st = {0};
    struct intake in;
    struct cron_job *cj = NULL;
    const char *ns = req->params[0];
    if (gateway_read_document(req, "CronJob", &in, &st) == 0) {
        cronjob_from_doc(&in.docs[0], ns, cronjob_current_rules(), &cj, &st);
        intake_free(&in);
    }
    if (cj && url_name && strcmp(cj->name, url_name) != 0) {
        api_fail(&st, 400, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)",
                 cj->name, url_name);
        cron_job_free(cj);
        cj = NULL;
    }
    if (cj && check_template(req, cj, &st) != 0) {
        cron_job_free(cj);
        cj = NULL;
    }
    if (!cj) {
        auth_respond_status(req, &st);
        return;
    }
    struct core_request creq = {.op = op, .ns = ns, .name = url_name ? url_name : cj->name, .object = cj};
    gateway_answer_core(req, &creq);
    cron_job_free(creq.object); /* still ours when the core refused it */
}

void handle_cronjob_list_all(struct http_req *req)
{
    gateway_ask_list(req, CORE_CRONJOB_LIST, NULL, CRONJOB_API_VERSION, "CronJob");
}
void handle_cronjob_list(struct http_req *req)
{
    gateway_ask_list(req, CORE_CRONJOB_LIST, req->params[0], CRONJOB_API_VERSION, "CronJob");
}
void handle_cronjob_get(struct http_req *req) { gateway_ask(req, CORE_CRONJOB_GET, req->params[0], req->params[1]); }
void handle_cronjob_create(struct http_req *req) { submit(req, CORE_CRONJOB_CREATE, NULL); }
void handle_cronjob_update(struct http_req *req) { submit(req, CORE_CRONJOB_UPDATE, req->params[1]); }
void handle_cronjob_delete(struct http_req *req)
{
    gateway_ask(req, CORE_CRONJOB_DELETE, req->params[0], req->params[1]);
}
