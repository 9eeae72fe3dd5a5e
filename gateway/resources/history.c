/* Caldera's history over HTTP (caldera.io/v1): lists of jobs' histories with filters and pages, one
 * job's history (any incarnation of its name by ?uid=), a task, an attempt and an attempt's log, all
 * read from the database, so they outlive the job in the core. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "gateway/http/query_params.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"
#include "gateway/resources/pod_log.h"
#include "gateway/watch/watch.h"
#include "store/history.h"

/* ---- query parameters -------------------------------------------------------------------------- */

/* A time parameter (RFC 3339) into *ms; absent leaves *ms as it is. */
static int time_param(struct http_req *req, const char *param, int64_t *ms, struct api_status *st)
{
    return query_time(param, http_query(req, param), ms, st);
}

static const char *uid_param(struct http_req *req)
{
    const char *uid = http_query(req, "uid");
    return uid && *uid ? uid : NULL;
}

/* {n} of .../attempts/{n}: 1, 2, ... */
static int attempt_number(const char *text, int *n, struct api_status *st)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*end || v < 1 || v > 1000000)
        return query_bad_param(st, "attempt", text, "must be a positive whole number");
    *n = (int)v;
    return 0;
}

/* ---- answering --------------------------------------------------------------------------------- */

/* Runs one query on a reader of the request's own and answers with its document or its Status. */
typedef int (*history_query)(struct http_req *req, struct store_reader *r, json_t **out, struct api_status *st);

static void answer(struct http_req *req, history_query query)
{
    struct api_status st = {0};
    struct store_reader *r;
    json_t *doc = NULL;
    if (store_reader_open(req->gw->db_path, &r, &st) == 0) {
        query(req, r, &doc, &st);
        store_reader_close(r);
    }
    if (doc)
        http_respond_json(req, 200, doc);
    else
        http_respond_status(req, &st);
}

/* Answers with a log file stored as log_path (relative to the data directory), as text/plain, with
 * the log API's parameters (pod_log_http.c). */
static void respond_stored_log(struct http_req *req, const char *log_path)
{
    struct api_status st = {0};
    /* the store wrote it relative to the data directory; anything else is not a log of ours */
    if (!log_path || !*log_path || log_path[0] == '/' || strstr(log_path, "..")) {
        api_fail(&st, 404, "NotFound", "no log was recorded for this attempt");
        http_respond_status(req, &st);
        return;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", req->gw->data_dir ? req->gw->data_dir : ".", log_path);
    pod_log_respond(req, path, NULL);
}

void gateway_answer_stored_log(struct http_req *req, gateway_log_finder find, const void *ctx)
{
    struct api_status st = {0};
    struct store_reader *r;
    char *log_path = NULL;
    if (store_reader_open(req->gw->db_path, &r, &st) == 0) {
        find(req, r, ctx, &log_path, &st);
        store_reader_close(r);
    }
    if (log_path)
        respond_stored_log(req, log_path);
    else
        http_respond_status(req, &st);
    free(log_path);
}

/* ---- handlers ---------------------------------------------------------------------------------- */

static int list_query(struct http_req *req, struct store_reader *r, json_t **out, struct api_status *st)
{
    struct store_history_query q = {.ns = req->nparams > 0 ? req->params[0] : NULL,
                                    .visible = gateway_visible(req),
                                    .since_ms = INT64_MIN,
                                    .until_ms = INT64_MAX,
                                    .phase = http_query(req, "phase"),
                                    .continue_token = http_query(req, "continue")};
    if (q.phase && !*q.phase)
        q.phase = NULL;
    if (time_param(req, "since", &q.since_ms, st) != 0 || time_param(req, "until", &q.until_ms, st) != 0 ||
        query_int("limit", http_query(req, "limit"), 0, 100000, &q.limit, st) != 0)
        return -1;
    int32_t page = req->gw->list_page_max; /* a page at most, also without limit, as the core's lists */
    if (page > 0 && (q.limit == 0 || q.limit > page))
        q.limit = page;
    return store_job_history_list(r, &q, out, st);
}

static int job_query(struct http_req *req, struct store_reader *r, json_t **out, struct api_status *st)
{
    return store_job_history(r, req->params[0], req->params[1], uid_param(req), out, st);
}

static int task_query(struct http_req *req, struct store_reader *r, json_t **out, struct api_status *st)
{
    return store_task_history(r, req->params[0], req->params[1], uid_param(req), req->params[2], out, st);
}

static int attempt_query(struct http_req *req, struct store_reader *r, json_t **out, struct api_status *st)
{
    int n = 0;
    if (attempt_number(req->params[3], &n, st) != 0)
        return -1;
    return store_attempt_history(r, req->params[0], req->params[1], uid_param(req), req->params[2], n, out, st);
}

static const struct list_kind history_kind = {"caldera.io/v1", "JobHistory", NULL};

void handle_jobhistory_list(struct http_req *req)
{
    if (watch_requested(req))
        watch_serve(req, NULL, &history_kind, req->params[0]);
    else
        answer(req, list_query);
}

void handle_jobhistory_list_all(struct http_req *req)
{
    if (watch_requested(req))
        watch_serve(req, NULL, &history_kind, NULL);
    else
        answer(req, list_query);
}
void handle_job_history(struct http_req *req) { answer(req, job_query); }
void handle_task_history(struct http_req *req) { answer(req, task_query); }
void handle_attempt_history(struct http_req *req) { answer(req, attempt_query); }

static int find_attempt_log(struct http_req *req, struct store_reader *r, const void *ctx, char **log_path,
                            struct api_status *st)
{
    (void)ctx;
    int n = 0;
    if (attempt_number(req->params[3], &n, st) != 0)
        return -1;
    return store_attempt_log(r, req->params[0], req->params[1], uid_param(req), req->params[2], n, log_path, st);
}

void handle_attempt_log(struct http_req *req) { gateway_answer_stored_log(req, find_attempt_log, NULL); }
