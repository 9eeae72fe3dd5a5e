/* Nodes over HTTP: read-only views of the core's state, listed or got by name (PodGroups are
 * podgroups.c's; queues, priority classes and quotas objects.c's). */
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"

void handle_node_list(struct http_req *req) { gateway_ask_list(req, CORE_NODE_LIST, NULL, "v1", "Node"); }
void handle_node_get(struct http_req *req) { gateway_ask(req, CORE_NODE_GET, NULL, req->params[0]); }
