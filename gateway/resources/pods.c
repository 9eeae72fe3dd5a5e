/* Pods over HTTP: each replica of a job as a v1 Pod, and its log per attempt
 * (`?previous=true` for the attempt before the last, `?attempt=N` for any, `?follow=true` while it
 * runs, and PodLogOptions: see pod_log.h), from the history once the core no longer has the pod. */
#include <stdlib.h>
#include <string.h>

#include "gateway/http/query_params.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"
#include "gateway/resources/pod_log.h"
#include "gateway/watch/watch.h"
#include "store/history.h"

static void pods(struct http_req *req, const char *ns)
{
    struct core_request creq = {.op = CORE_POD_LIST, .ns = ns};
    gateway_answer_list(req, &creq, &(struct list_kind){"v1", "Pod", NULL});
}

void handle_pod_list(struct http_req *req) { pods(req, req->params[0]); }
void handle_pod_list_all(struct http_req *req) { pods(req, NULL); }
void handle_pod_get(struct http_req *req)
{
    struct core_request creq = {.op = CORE_POD_GET, .ns = req->params[0], .name = req->params[1]};
    gateway_answer_core(req, &creq);
}

/* A pod the core does not have (its job deleted, or finished and gone): the log of that attempt
 * from the history of the newest job that ran a pod of that name. */
static int find_pod_log(struct http_req *req, struct store_reader *r, const void *ctx, char **log_path,
                        struct api_status *st)
{
    (void)req;
    const struct core_request *creq = ctx;
    return store_pod_log(r, creq->ns, creq->name, creq->attempt, creq->previous, log_path, st);
}

void handle_pod_log(struct http_req *req)
{
    struct core_request creq = {.op = CORE_POD_LOG, .ns = req->params[0], .name = req->params[1]};
    const char *attempt = http_query(req, "attempt");
    creq.previous = query_flag(req, "previous");
    if (attempt) {
        char *end;
        long n = strtol(attempt, &end, 10);
        if (*end || n < 1 || n > 1000000) {
            struct api_status st = {0};
            api_fail(&st, 400, "BadRequest", "attempt must be a positive integer, not \"%s\"", attempt);
            http_respond_status(req, &st);
            return;
        }
        creq.attempt = (int)n;
    }
    if (core_call(req->gw->core, &creq) != 0) {
        if (creq.status.code == 404)
            gateway_answer_stored_log(req, find_pod_log, &creq);
        else
            http_respond_status(req, &creq.status);
        return;
    }
    const json_t *b = creq.body;
    if (json_object_get(b, "backend")) {
        pod_log_respond_remote(req, b);
        json_decref(creq.body);
        free(creq.log_path);
        return;
    }
    struct pod_log_live live = {creq.log_path,
                                json_string_value(json_object_get(b, "container")),
                                req->params[0],
                                req->params[1],
                                json_string_value(json_object_get(b, "job")),
                                json_string_value(json_object_get(b, "uid")),
                                (int)json_integer_value(json_object_get(b, "attempt")),
                                json_is_true(json_object_get(b, "running"))};
    pod_log_respond_live(req, &live);
    json_decref(creq.body);
    free(creq.log_path);
}
