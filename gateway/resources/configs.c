/* ConfigMaps and Secrets over HTTP: a POST or PUT is parsed and validated here, on the gateway
 * thread; reads, lists (watches too) and deletes only ask the core. Who may read a namespace's
 * Secrets is the path's rule (gateway/auth/access.c), as for every namespaced object. */
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/objects/config_object.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"
#include "gateway/watch/watch.h"

static void submit(struct http_req *req, enum config_kind kind, enum core_op op, const char *url_name)
{
    struct api_status st = {0};
    struct intake in;
    struct config_object *o = NULL;
    const char *ns = req->params[0];
    if (gateway_read_document(req, config_kind_name(kind), &in, &st) == 0) {
        config_object_from_doc(&in.docs[0], kind, ns, &o, &st);
        intake_free(&in);
    }
    if (o && url_name && strcmp(o->name, url_name) != 0) {
        api_fail(&st, 400, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)", o->name,
                 url_name);
        config_object_free(o);
        o = NULL;
    }
    if (!o) {
        http_respond_status(req, &st);
        return;
    }
    struct core_request creq = {
        .op = op, .ns = ns, .name = url_name ? url_name : o->name, .object = o, .config_kind = kind};
    gateway_answer_core(req, &creq);
    config_object_free(creq.object); /* still ours when the core refused it */
}

static void list(struct http_req *req, enum config_kind kind, const char *ns)
{
    struct core_request creq = {.op = CORE_CONFIG_LIST, .ns = ns, .config_kind = kind};
    gateway_answer_list(req, &creq, &(struct list_kind){CONFIG_API_VERSION, config_kind_name(kind), NULL});
}

static void ask(struct http_req *req, enum config_kind kind, enum core_op op)
{
    struct core_request creq = {.op = op, .ns = req->params[0], .name = req->params[1], .config_kind = kind};
    gateway_answer_core(req, &creq);
}

void handle_configmap_list_all(struct http_req *req) { list(req, CONFIG_MAP, NULL); }
void handle_configmap_list(struct http_req *req) { list(req, CONFIG_MAP, req->params[0]); }
void handle_configmap_get(struct http_req *req) { ask(req, CONFIG_MAP, CORE_CONFIG_GET); }
void handle_configmap_create(struct http_req *req) { submit(req, CONFIG_MAP, CORE_CONFIG_CREATE, NULL); }
void handle_configmap_update(struct http_req *req) { submit(req, CONFIG_MAP, CORE_CONFIG_UPDATE, req->params[1]); }
void handle_configmap_delete(struct http_req *req) { ask(req, CONFIG_MAP, CORE_CONFIG_DELETE); }

void handle_secret_list_all(struct http_req *req) { list(req, CONFIG_SECRET, NULL); }
void handle_secret_list(struct http_req *req) { list(req, CONFIG_SECRET, req->params[0]); }
void handle_secret_get(struct http_req *req) { ask(req, CONFIG_SECRET, CORE_CONFIG_GET); }
void handle_secret_create(struct http_req *req) { submit(req, CONFIG_SECRET, CORE_CONFIG_CREATE, NULL); }
void handle_secret_update(struct http_req *req) { submit(req, CONFIG_SECRET, CORE_CONFIG_UPDATE, req->params[1]); }
void handle_secret_delete(struct http_req *req) { ask(req, CONFIG_SECRET, CORE_CONFIG_DELETE); }
