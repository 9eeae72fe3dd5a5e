/* Volcano Jobs over HTTP: create (JSON or YAML), get, list, delete, and Caldera's history of a
 * job. Parsing and validation happen here, on the gateway thread; the core only admits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake.h"
#include "adapters/volcano_job.h"
#include "gateway/handlers.h"
#include "store/history.h"

/* The body's format from Content-Type; 415 for types that are neither JSON nor YAML. */
static int body_format(struct http_req *req, enum intake_format *fmt)
{
    const char *ct = http_header(req, "Content-Type");
    if (!ct || !*ct || strncmp(ct, "application/x-www-form-urlencoded", 33) == 0 || strncmp(ct, "text/plain", 10) == 0) {
        *fmt = INTAKE_SNIFF; /* curl --data-binary sends form-urlencoded by default */
        return 0;
    }
    if (strncmp(ct, "application/json", 16) == 0) {
        *fmt = INTAKE_JSON;
        return 0;
    }
    if (strncmp(ct, "application/yaml", 16) == 0 || strncmp(ct, "application/x-yaml", 18) == 0 ||
        strncmp(ct, "text/yaml", 9) == 0 || strncmp(ct, "text/x-yaml", 11) == 0) {
        *fmt = INTAKE_YAML;
        return 0;
    }
    struct api_status st = {0};
    api_fail(&st, 415, "UnsupportedMediaType", "the body's Content-Type \"%s\" is not supported: send application/json or application/yaml", ct);
    http_respond_status(req, &st);
    return -1;
}

void handle_job_create(struct http_req *req)
{
    enum intake_format fmt;
    if (body_format(req, &fmt) != 0)
        return;
    struct api_status st = {0};
    struct intake in;
    if (intake_parse(req->body.data ? req->body.data : "", req->body.len, fmt, &in, &st) != 0) {
        http_respond_status(req, &st);
        return;
    }
    struct job *job = NULL;
    if (in.ndocs != 1)
        api_fail(&st, 400, "BadRequest", "the body holds %d documents; POST one Job per request (jobctl submit splits files)",
                 in.ndocs);
    else
        volcano_job_from_doc(&in.docs[0], req->params[0], &job, &st);
    intake_free(&in);
    if (!job) {
        http_respond_status(req, &st);
        return;
    }
    struct core_request creq = {.op = CORE_JOB_CREATE, .ns = req->params[0], .name = job->name, .job = job};
    gateway_answer_core(req, &creq);
    job_free(creq.job); /* still ours when the core refused it */
}

static void simple_request(struct http_req *req, enum core_op op, const char *ns, const char *name)
{
    struct core_request creq = {.op = op, .ns = ns, .name = name};
    char selector[1024];
    if (gateway_parse_selector(req, &creq, selector, sizeof selector) != 0)
        return;
    gateway_answer_core(req, &creq);
}

void handle_job_get(struct http_req *req) { simple_request(req, CORE_JOB_GET, req->params[0], req->params[1]); }
void handle_job_list(struct http_req *req) { simple_request(req, CORE_JOB_LIST, req->params[0], NULL); }
void handle_job_list_all(struct http_req *req) { simple_request(req, CORE_JOB_LIST, NULL, NULL); }
void handle_job_delete(struct http_req *req) { simple_request(req, CORE_JOB_DELETE, req->params[0], req->params[1]); }

void handle_job_history(struct http_req *req)
{
    struct api_status st = {0};
    struct store_reader *r;
    json_t *history = NULL;
    if (store_reader_open(req->gw->db_path, &r, &st) == 0) {
        store_job_history(r, req->params[0], req->params[1], &history, &st);
        store_reader_close(r);
    }
    if (history)
        http_respond_json(req, 200, history);
    else
        http_respond_status(req, &st);
}
