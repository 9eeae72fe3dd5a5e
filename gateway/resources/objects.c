/* Queues, PriorityClasses and ResourceQuotas over HTTP: create (POST) and update (PUT) parse and
 * validate the body here, on the gateway thread; reads, deletes and queue open/close only ask. */
#include <stdio.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/objects/priority_class.h"
#include "adapters/objects/queue.h"
#include "adapters/objects/resource_quota.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"

/* One kind as this file handles it: its parser behind one signature, and how to free what it made. */
struct object_api {
    const char *kind;
    /* Parses doc into *out (NULL on failure, st says why) and points *name at the object's name. */
    void (*parse)(const struct intake_doc *doc, const char *ns, void **out, const char **name, struct api_status *st);
    void (*free)(void *obj);
};

static void parse_queue(const struct intake_doc *doc, const char *ns, void **out, const char **name,
                        struct api_status *st)
{
    struct queue *q;
    (void)ns; /* cluster-scoped */
    queue_from_doc(doc, &q, st);
    *out = q;
    *name = q ? q->name : NULL;
}

static void parse_priority_class(const struct intake_doc *doc, const char *ns, void **out, const char **name,
                                 struct api_status *st)
{
    struct priority_class *pc;
    (void)ns; /* cluster-scoped */
    priority_class_from_doc(doc, &pc, st);
    *out = pc;
    *name = pc ? pc->name : NULL;
}

static void parse_quota(const struct intake_doc *doc, const char *ns, void **out, const char **name,
                        struct api_status *st)
{
    struct resource_quota *q;
    resource_quota_from_doc(doc, ns, &q, st);
    *out = q;
    *name = q ? q->name : NULL;
}

static void free_queue(void *obj) { queue_free(obj); }
static void free_priority_class(void *obj) { priority_class_free(obj); }
static void free_quota(void *obj) { resource_quota_free(obj); }

static const struct object_api queue_api = {"Queue", parse_queue, free_queue};
static const struct object_api priority_class_api = {"PriorityClass", parse_priority_class, free_priority_class};
static const struct object_api quota_api = {"ResourceQuota", parse_quota, free_quota};

/* The body's format from Content-Type, as for Jobs; 415 for types that are neither JSON nor YAML. */
/* POST (url_name NULL) or PUT of one object: parsed here, handed to the core, which takes it when
 * it accepts it. A PUT's body must name the object of its URL, as the API server requires. */
static void submit(struct http_req *req, const struct object_api *api, enum core_op op, const char *ns,
                   const char *url_name)
{
    struct api_status st = {0};
    struct intake in;
    void *obj = NULL;
    const char *name = NULL;
    if (gateway_read_document(req, api->kind, &in, &st) == 0) {
        api->parse(&in.docs[0], ns, &obj, &name, &st);
        intake_free(&in);
    }
    if (obj && url_name && strcmp(name, url_name) != 0) {
        api_fail(&st, 400, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)", name,
                 url_name);
        api->free(obj);
        obj = NULL;
    }
    if (!obj) {
        http_respond_status(req, &st);
        return;
    }
    /* For a POST the name points into the object: the core reads it before taking the object, and
     * nothing here reads it after core_call. */
    struct core_request creq = {.op = op, .ns = ns, .name = url_name ? url_name : name, .object = obj};
    gateway_answer_core(req, &creq);
    api->free(creq.object); /* still ours when the core refused it */
}

void handle_queue_list(struct http_req *req)
{
    gateway_ask_list(req, CORE_QUEUE_LIST, NULL, QUEUE_API_VERSION, "Queue");
}
void handle_queue_get(struct http_req *req) { gateway_ask(req, CORE_QUEUE_GET, NULL, req->params[0]); }
void handle_queue_create(struct http_req *req) { submit(req, &queue_api, CORE_QUEUE_CREATE, NULL, NULL); }
void handle_queue_update(struct http_req *req) { submit(req, &queue_api, CORE_QUEUE_UPDATE, NULL, req->params[0]); }
void handle_queue_delete(struct http_req *req) { gateway_ask(req, CORE_QUEUE_DELETE, NULL, req->params[0]); }
void handle_queue_open(struct http_req *req) { gateway_ask(req, CORE_QUEUE_OPEN, NULL, req->params[0]); }
void handle_queue_close(struct http_req *req) { gateway_ask(req, CORE_QUEUE_CLOSE, NULL, req->params[0]); }

void handle_priorityclass_list(struct http_req *req)
{
    gateway_ask_list(req, CORE_PRIORITYCLASS_LIST, NULL, PRIORITY_CLASS_API_VERSION, "PriorityClass");
}
void handle_priorityclass_get(struct http_req *req) { gateway_ask(req, CORE_PRIORITYCLASS_GET, NULL, req->params[0]); }
void handle_priorityclass_create(struct http_req *req)
{
    submit(req, &priority_class_api, CORE_PRIORITYCLASS_CREATE, NULL, NULL);
}
void handle_priorityclass_update(struct http_req *req)
{
    submit(req, &priority_class_api, CORE_PRIORITYCLASS_UPDATE, NULL, req->params[0]);
}
void handle_priorityclass_delete(struct http_req *req)
{
    gateway_ask(req, CORE_PRIORITYCLASS_DELETE, NULL, req->params[0]);
}

void handle_quota_list_all(struct http_req *req)
{
    gateway_ask_list(req, CORE_QUOTA_LIST, NULL, "v1", "ResourceQuota");
}
void handle_quota_list(struct http_req *req)
{
    gateway_ask_list(req, CORE_QUOTA_LIST, req->params[0], "v1", "ResourceQuota");
}
void handle_quota_get(struct http_req *req) { gateway_ask(req, CORE_QUOTA_GET, req->params[0], req->params[1]); }
void handle_quota_create(struct http_req *req) { submit(req, &quota_api, CORE_QUOTA_CREATE, req->params[0], NULL); }
void handle_quota_update(struct http_req *req)
{
    submit(req, &quota_api, CORE_QUOTA_UPDATE, req->params[0], req->params[1]);
}
void handle_quota_delete(struct http_req *req) { gateway_ask(req, CORE_QUOTA_DELETE, req->params[0], req->params[1]); }
