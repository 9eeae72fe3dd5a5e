/* Changes the store did not record in time (its writer failing, usually a full disk): a job's
 * creation is withdrawn through the core so that "not created" is true, or else every answer says
 * the change was made and will be recorded. */
#include <stdio.h>
#include <string.h>

#include "gateway/limits/gates.h"
#include "gateway/resources/unrecorded.h"
#include "store/store.h"

/* Where the change waits, as a clause: "the disk of the data directory X is full", ... */
static void describe_wait(struct http_req *req, enum store_failure kind, char *buf, size_t len)
{
    if (kind == STORE_FAILURE_DISK_FULL)
        snprintf(buf, len, "the disk of the data directory %s is full", gateway_data_dir(req));
    else if (kind == STORE_FAILURE_OTHER)
        snprintf(buf, len, "the job database is failing");
    else
        snprintf(buf, len, "its commit did not finish in time");
}

static void answer_applied(struct http_req *req, enum store_failure kind, const char *why, const char *what,
                           const char *detail)
{
    char wait[4200];
    describe_wait(req, kind, wait, sizeof wait);
    struct api_status st = {0};
    api_fail(&st, 504, "Timeout",
             "%s was made but the job database could not record it in time: %s%s%s; it is kept in memory and "
             "recorded once the database takes writes again, unless the server stops first (%s)",
             what, wait, detail ? "; " : "", detail ? detail : "", kind != STORE_FAILURE_NONE ? why : "no failure");
    http_respond_status(req, &st);
}

/* Asks the core to take the created job back. */
static void withdraw_create(struct http_req *req, struct core_request *creq, enum store_failure kind, const char *why)
{
    json_t *meta = json_object_get(creq->body, "metadata");
    const char *uid = json_string_value(json_object_get(meta, "uid"));
    const char *name = json_string_value(json_object_get(meta, "name"));
    char what[400];
    snprintf(what, sizeof what, "job %s", name ? name : "");
    struct core_request w = {
        .op = CORE_JOB_WITHDRAW, .ns = creq->ns, .name = name, .uid = uid, .created_seq = creq->durable_seq};
    if (!uid) {
        answer_applied(req, kind, why, what, "it could not be withdrawn: its answer names no uid");
        return;
    }
    if (core_call(req->gw->core, &w) != 0) {
        char detail[300];
        snprintf(detail, sizeof detail, "it could not be withdrawn: %s", w.status.message);
        answer_applied(req, kind, why, what, detail);
        return;
    }
    json_decref(w.body);
    if (w.http_code == 201) { /* its commit landed after all */
        http_respond_json(req, 201, creq->body);
        creq->body = NULL;
        return;
    }
    struct api_status st = {0};
    if (kind == STORE_FAILURE_DISK_FULL)
        api_fail(&st, 507, "InsufficientStorage",
                 "the disk of the data directory %s is full: job %s could not be recorded in time, so it was "
                 "withdrawn: it was not created and will not run; free space there and submit it again (%s)",
                 gateway_data_dir(req), name, why);
    else
        api_fail(&st, 503, "ServiceUnavailable",
                 "the job database is failing: job %s could not be recorded in time, so it was withdrawn: it was "
                 "not created and will not run; submit it again later (%s)",
                 name, why);
    http_respond_status(req, &st);
}

void gateway_answer_unrecorded(struct http_req *req, struct core_request *creq, enum store_failure kind,
                               const char *why)
{
    if (gateway_is_read(req)) { /* a slow commit, not a failure: nothing was changed */
        struct api_status st = {0};
        api_fail(&st, 503, "ServiceUnavailable",
                 "the job database did not record what this answer shows in time; "
                 "retry");
        http_respond_status(req, &st);
    } else if (creq->op == CORE_JOB_CREATE && kind != STORE_FAILURE_NONE) {
        withdraw_create(req, creq, kind, why);
    } else {
        const char *method = req->method;
        answer_applied(req, kind, why, strcmp(method, "DELETE") == 0 ? "the deletion" : "the change", NULL);
    }
    json_decref(creq->body);
    creq->body = NULL;
}
