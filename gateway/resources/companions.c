/* Companions over HTTP (caldera.io/v1, namespaced): list and watch (across namespaces too), read,
 * create from spec.jobName, spec.type and optionally spec.task and spec.index, delete. The core keeps
 * them (scheduler/controller/companions.h). */
#include <stdio.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"
#include "scheduler/controller/companions.h"

static void list(struct http_req *req, const char *ns)
{
    gateway_ask_list(req, CORE_COMPANION_LIST, ns, COMPANION_API_VERSION, "Companion");
}

void handle_companion_list_all(struct http_req *req) { list(req, NULL); }
void handle_companion_list(struct http_req *req) { list(req, req->params[0]); }
void handle_companion_get(struct http_req *req)
{
    gateway_ask(req, CORE_COMPANION_GET, req->params[0], req->params[1]);
}
void handle_companion_delete(struct http_req *req)
{
    gateway_ask(req, CORE_COMPANION_DELETE, req->params[0], req->params[1]);
}

void handle_companion_create(struct http_req *req)
{
    struct api_status st = {0};
    struct intake in;
    if (gateway_read_document(req, "Companion", &in, &st) != 0) {
        http_respond_status(req, &st);
        return;
    }
    json_t *root = in.docs[0].root, *spec = json_object_get(root, "spec");
    const char *job = json_string_value(json_object_get(spec, "jobName"));
    const char *type = json_string_value(json_object_get(spec, "type"));
    json_t *task = json_object_get(spec, "task"), *index = json_object_get(spec, "index");
    if (!json_is_object(spec))
        api_add_cause(&st, "spec", "FieldValueRequired", 0, 0, "Required value");
    else {
        if (!job || !*job)
            api_add_cause(&st, "spec.jobName", "FieldValueRequired", 0, 0, "Required value");
        if (!type || !*type)
            api_add_cause(&st, "spec.type", "FieldValueRequired", 0, 0, "Required value");
        if (task && !json_is_string(task))
            api_add_cause(&st, "spec.task", "FieldValueInvalid", 0, 0, "must be a string");
        if (index && (!json_is_integer(index) || json_integer_value(index) < 0 || json_integer_value(index) > 1000000))
            api_add_cause(&st, "spec.index", "FieldValueInvalid", 0, 0, "must be a non-negative integer");
    }
    if (st.ncauses > 0) {
        api_fail_invalid(&st, "Companion.caldera.io", job ? job : "");
        intake_free(&in);
        http_respond_status(req, &st);
        return;
    }
    struct core_request creq = {.op = CORE_COMPANION_CREATE,
                                .ns = req->params[0],
                                .companion = {.job = job,
                                              .type = type,
                                              .task = json_string_value(task),
                                              .index = index ? (int32_t)json_integer_value(index) : 0}};
    gateway_answer_core(req, &creq);
    intake_free(&in);
}
