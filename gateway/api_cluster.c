/* Nodes and PodGroups over HTTP: read-only views of the core's state (queues: api_objects.c). */
#include "gateway/handlers.h"

static void ask(struct http_req *req, enum core_op op, const char *ns, const char *name)
{
    struct core_request creq = {.op = op, .ns = ns, .name = name};
    gateway_answer_core(req, &creq);
}

void handle_node_list(struct http_req *req) { ask(req, CORE_NODE_LIST, NULL, NULL); }
void handle_node_get(struct http_req *req) { ask(req, CORE_NODE_GET, NULL, req->params[0]); }
void handle_podgroup_list(struct http_req *req) { ask(req, CORE_PODGROUP_LIST, req->params[0], NULL); }
void handle_podgroup_list_all(struct http_req *req) { ask(req, CORE_PODGROUP_LIST, NULL, NULL); }
void handle_podgroup_get(struct http_req *req) { ask(req, CORE_PODGROUP_GET, req->params[0], req->params[1]); }
