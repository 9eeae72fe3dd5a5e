/* How the core answers a request: a success with its body and the sequence number that must be
 * durable first, a list in Kubernetes' shape (which objects belong in it, and its pages), a
 * deletion's Success Status, a NotFound Status. */
#include <stdio.h>
#include <string.h>

#include "scheduler/core/internal.h"

void core_answer(struct core_request *req, int code, json_t *body, uint64_t durable_seq)
{
    if (!body) {
        api_fail(&req->status, 500, "InternalError", "out of memory rendering the answer");
        return;
    }
    req->http_code = code;
    req->body = body;
    req->durable_seq = durable_seq;
}

void core_answer_list(struct core *c, struct core_request *req, const char *api_version, const char *kind,
                      json_t *items)
{
    char rv[24];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)c->cluster.seq);
    core_answer(req, 200,
                json_pack("{s:s, s:s, s:{s:s}, s:o}", "apiVersion", api_version, "kind", kind, "metadata",
                          "resourceVersion", rv, "items", items),
                c->cluster.seq);
}

void core_answer_deleted(struct core_request *req, const char *resource, const char *group, const char *uid,
                         uint64_t seq)
{
    json_t *details = json_pack("{s:s, s:s, s:s}", "name", req->name, "group", group, "kind", resource);
    if (details && uid)
        json_object_set_new(details, "uid", json_string(uid));
    core_answer(req, 200,
                json_pack("{s:s, s:s, s:{}, s:s, s:o}", "kind", "Status", "apiVersion", "v1", "metadata", "status",
                          "Success", "details", details),
                seq);
}

void core_not_found(struct core_request *req, const char *resource, const char *group, const char *name)
{
    api_set_details(&req->status, resource, group, name);
    api_fail(&req->status, 404, "NotFound", "%s%s%s \"%s\" not found", resource, *group ? "." : "", group, name);
}

bool core_labels_match(const json_t *labels, const struct core_request *req)
{
    for (int i = 0; i < req->nselectors; i++) {
        const char *v = json_string_value(json_object_get(labels, req->selector_key[i]));
        if (!v || strcmp(v, req->selector_value[i]) != 0)
            return false;
    }
    return true;
}

bool core_sees_namespace(const struct core_request *req, const char *ns)
{
    return (!req->ns || strcmp(ns, req->ns) == 0) && namespace_set_has(req->visible, ns);
}

bool core_in_namespace(const struct job *job, const struct core_request *req)
{
    return !job->deleted && core_sees_namespace(req, job->ns);
}

bool core_page_before(const struct core_request *req, const struct job *job, bool pods)
{
    if (!req->has_after)
        return false;
    int order = job_order_compare(job, req->after.created_ms, req->after.uid);
    return order < 0 || (order == 0 && !pods);
}

bool core_name_excludes(const struct core_request *req, const struct job *job, bool pods)
{
    if (!req->name_eq)
        return false;
    if (!pods)
        return strcmp(job->name, req->name_eq) != 0;
    size_t n = strlen(job->name);
    return strncmp(req->name_eq, job->name, n) != 0 || req->name_eq[n] != '-';
}

bool core_pod_labels_exclude(const struct core_request *req, const struct job *job)
{
    for (int i = 0; i < req->nselectors; i++) {
        const char *key = req->selector_key[i], *have = NULL;
        if (strcmp(key, "volcano.sh/job-name") == 0)
            have = job->name;
        else if (strcmp(key, "volcano.sh/job-namespace") == 0)
            have = job->ns;
        else if (strcmp(key, "volcano.sh/queue-name") == 0)
            have = job->queue;
        if (have && strcmp(have, req->selector_value[i]) != 0)
            return true;
    }
    return false;
}

int32_t core_page_first_index(const struct core_request *req, const struct job *job, int task)
{
    if (!req->has_after || job_order_compare(job, req->after.created_ms, req->after.uid) != 0 || task > req->after.task)
        return 0;
    return task < req->after.task ? INT32_MAX : req->after.index + 1;
}

bool core_page_room(struct core_request *req, size_t count)
{
    if (req->limit <= 0 || count < (size_t)req->limit)
        return true;
    req->more = true;
    return false;
}

void core_page_count_rest(struct core_request *req, struct job *job)
{
    if (!req->count_rest || req->dialect || req->name_eq || req->nselectors)
        return;
    for (; job; job = job->next)
        if (core_in_namespace(job, req))
            req->remaining++;
}

void core_page_last(struct core_request *req, const struct job *job, int32_t task, int32_t index)
{
    req->page_end.created_ms = job->created_ms;
    memcpy(req->page_end.uid, job->uid, sizeof req->page_end.uid);
    req->page_end.task = task;
    req->page_end.index = index;
}
