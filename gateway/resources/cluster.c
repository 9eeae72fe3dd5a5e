/* Nodes and PodGroups over HTTP: read-only views of the core's state, listed or got by name
 * (queues, priority classes and quotas are objects.c's). */
#include "adapters/objects/podgroup.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"

void handle_node_list(struct http_req *req) { gateway_ask_list(req, CORE_NODE_LIST, NULL, "v1", "Node"); }
void handle_node_get(struct http_req *req) { gateway_ask(req, CORE_NODE_GET, NULL, req->params[0]); }
void handle_podgroup_list(struct http_req *req)
{
    gateway_ask_list(req, CORE_PODGROUP_LIST, req->params[0], PODGROUP_API_VERSION, "PodGroup");
}
void handle_podgroup_list_all(struct http_req *req)
{
    gateway_ask_list(req, CORE_PODGROUP_LIST, NULL, PODGROUP_API_VERSION, "PodGroup");
}
void handle_podgroup_get(struct http_req *req) { gateway_ask(req, CORE_PODGROUP_GET, req->params[0], req->params[1]); }
