/* Pages of the core's big lists (Jobs and every dialect's, PodGroups, Pods): ?limit and ?continue
 * read into the core request, a server-side page when the client names none, and the next page's
 * token: URL-safe base64 of where the page ended, in the cluster's job order, so a page resumes
 * right after it whatever was created or deleted meanwhile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "gateway/resources/answer.h"

#define TOKEN_MAX 512

static bool paged(const struct core_request *creq)
{
    return creq->op == CORE_JOB_LIST || creq->op == CORE_POD_LIST || creq->op == CORE_PODGROUP_LIST;
}

static int bad_continue(struct api_status *st, const char *why)
{
    return api_fail(st, 400, "BadRequest", "invalid continue token: %s; list again without continue", why);
}

static int read_continue(const char *token, const char *kind, struct core_list_cursor *after, struct api_status *st)
{
    size_t len = strlen(token);
    char raw[TOKEN_MAX];
    int n = len < TOKEN_MAX ? base64url_decode(token, len, raw, sizeof raw - 1) : -1;
    if (n <= 0)
        return bad_continue(st, "not URL-safe base64 of a token this server gave");
    json_t *j = json_loadb(raw, (size_t)n, 0, NULL);
    const char *k = json_string_value(json_object_get(j, "k")), *uid = json_string_value(json_object_get(j, "u"));
    json_t *created = json_object_get(j, "c"), *task = json_object_get(j, "t"), *index = json_object_get(j, "i");
    bool ok = k && uid && strlen(uid) < sizeof after->uid && json_is_integer(created) && json_is_integer(task) &&
              json_is_integer(index) && json_integer_value(task) >= -1 && json_integer_value(task) < INT32_MAX &&
              json_integer_value(index) >= -1 && json_integer_value(index) < INT32_MAX;
    int rc = 0;
    if (!ok) {
        rc = bad_continue(st, "not a token this server gave");
    } else if (strcmp(k, kind) != 0) {
        rc = bad_continue(st, "it continues another kind of list");
    } else {
        after->created_ms = json_integer_value(created);
        snprintf(after->uid, sizeof after->uid, "%s", uid);
        after->task = (int32_t)json_integer_value(task);
        after->index = (int32_t)json_integer_value(index);
    }
    json_decref(j);
    return rc;
}

int gateway_list_page_read(struct http_req *req, const char *kind, struct core_request *creq, struct api_status *st)
{
    if (!paged(creq))
        return 0;
    int32_t page_max = req->gw->list_page_max;
    const char *l = http_query(req, "limit"), *c = http_query(req, "continue");
    creq->limit = page_max;
    /* remainingItemCount, as Kubernetes gives it: only for a list without selectors */
    const char *labels = http_query(req, "labelSelector"), *fields = http_query(req, "fieldSelector");
    creq->count_rest = (!labels || !*labels) && (!fields || !*fields);
    if (l && *l) {
        char *end;
        long long n = strtoll(l, &end, 10);
        if (*end || n < 0)
            return api_fail(st, 400, "BadRequest", "limit must be a non-negative integer, not \"%.32s\"", l);
        if (n > 0 && n < page_max) /* 0 is "no limit" to Kubernetes: here the largest page */
            creq->limit = (int32_t)n;
    }
    if (c && *c) {
        if (read_continue(c, kind, &creq->after, st) != 0)
            return -1;
        creq->has_after = true;
    }
    return 0;
}

void gateway_list_page_finish(const struct core_request *creq, const char *kind, json_t *body)
{
    if (!paged(creq) || !creq->more)
        return;
    json_t *j = json_pack("{s:s, s:I, s:s, s:i, s:i}", "k", kind, "c", (json_int_t)creq->page_end.created_ms, "u",
                          creq->page_end.uid, "t", creq->page_end.task, "i", creq->page_end.index);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    char *token = text ? base64url_encode(text, strlen(text)) : NULL;
    if (token)
        json_object_set_new(json_object_get(body, "metadata"), "continue", json_string(token));
    if (creq->count_rest && creq->remaining > 0)
        json_object_set_new(json_object_get(body, "metadata"), "remainingItemCount",
                            json_integer((json_int_t)creq->remaining));
    free(token);
    free(text);
    json_decref(j);
}
