/* The gates a matched request passes before its handler: the start over (start_gate.c), no change while
 * the store is failing (store_gate.c), no namespace in the path that Kubernetes could not have
 * (path_namespace.c). */
#ifndef CALDERA_LIMITS_GATES_H
#define CALDERA_LIMITS_GATES_H

#include <stdbool.h>

struct http_req;

/* store_gate.c */
/* GET and HEAD: requests that change nothing. */
bool gateway_is_read(const struct http_req *req);
/* The data directory as messages name it. */
const char *gateway_data_dir(const struct http_req *req);
/* While the store is failing, answers a request that would change state (anything but a read) with
 * 507 InsufficientStorage (full disk) or 503 ServiceUnavailable, and returns true; else false. */
bool gateway_refuse_write_while_failing(struct http_req *req);

/* start_gate.c: waits until the server's start is over (the router skips it for the routes the core
 * answers meanwhile); when the start was refused, answers 503 with why and returns true; else false. */
bool gateway_wait_for_start(struct http_req *req);

/* path_namespace.c */
/* Answers 400 BadRequest (a cause on metadata.namespace) and returns true when the namespace
 * placeholder of route_pattern (the route the path matched) is not a DNS-1123 label; else false. */
bool gateway_refuse_bad_namespace(struct http_req *req, const char *route_pattern);

#endif
