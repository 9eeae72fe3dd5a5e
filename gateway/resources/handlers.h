/* The gateway's request handlers, one group per file, and what they share: asking the core and
 * answering only once what the answer shows is durable. */
#ifndef CALDERA_HANDLERS_H
#define CALDERA_HANDLERS_H

#include "gateway/http/http.h"
#include "scheduler/core/core.h"

/* Posts creq to the core, waits until the store has committed what the answer shows, and answers
 * the client with the body or the Status. Frees the body. */
void gateway_answer_core(struct http_req *req, struct core_request *creq);
/* The same; when the core refuses, restate(ctx, status) may reword the Status first (a dialect's
 * object speaks of its own fields). */
typedef void (*gateway_restate_fn)(void *ctx, struct api_status *st);
void gateway_answer_core_restated(struct http_req *req, struct core_request *creq, gateway_restate_fn restate,
                                  void *ctx);
/* The same; on success filter(ctx, body) may change the body first (a list's selectors). */
typedef void (*gateway_filter_fn)(void *ctx, json_t *body);
void gateway_answer_core_filtered(struct http_req *req, struct core_request *creq, gateway_filter_fn filter,
                                  void *ctx);
/* The plain request a handler asks: op on the object ns/name (either NULL where not used), answered
 * as gateway_answer_core does. */
void gateway_ask(struct http_req *req, enum core_op op, const char *ns, const char *name);
/* The plain list a handler asks: op in ns (NULL: every namespace), its items of api_version and
 * kind, answered as gateway_answer_list does. */
void gateway_ask_list(struct http_req *req, enum core_op op, const char *ns, const char *api_version,
                      const char *kind);

/* list.c: a list request built in creq (op, namespace, dialect, view). ?watch=true streams it
 * (gateway/watch/watch.h); otherwise the core's list, filtered by the full labelSelector (the core narrows
 * by its key=value terms first) and fieldSelector. creq NULL: a list that is always empty. */
struct list_kind;
void gateway_answer_list(struct http_req *req, struct core_request *creq, const struct list_kind *kind);
/* list_page.c: pages of the Job, PodGroup and Pod lists. Reads ?limit (at most, and by default,
 * gw->list_page_max) and ?continue into creq (0, or -1 with a 400 in st); then sets the answer's
 * metadata.continue when more items follow. Other lists are left whole. */
int gateway_list_page_read(struct http_req *req, const char *kind, struct core_request *creq, struct api_status *st);
void gateway_list_page_finish(const struct core_request *creq, const char *kind, json_t *body);
/* The selectors' terms the core applies itself: labels' key=value (selector_key/value) and the
 * fields' metadata.name= (name_eq). creq points into the selectors, which must outlive it. */
struct selector;
void gateway_narrow_list(struct core_request *creq, const struct selector *labels, const struct selector *fields);
/* The namespaces the caller sees (NULL: every one; always NULL when nobody is asked who they are). */
const struct namespace_set *gateway_visible(const struct http_req *req);

/* store_gate.c */
/* GET and HEAD: requests that change nothing. */
bool gateway_is_read(const struct http_req *req);
/* The data directory as messages name it. */
const char *gateway_data_dir(const struct http_req *req);
/* While the store is failing, answers a request that would change state (anything but a read) with
 * 507 InsufficientStorage (full disk) or 503 ServiceUnavailable, and returns true; else false. */
bool gateway_refuse_write_while_failing(struct http_req *req);

/* path_namespace.c */
/* Answers 400 BadRequest (a cause on metadata.namespace) and returns true when the matched route's
 * namespace placeholder is not a DNS-1123 label; else false. */
bool gateway_refuse_bad_namespace(struct http_req *req);

/* unrecorded.c: answers to changes the core made that the store did not record in time (kind: the
 * store's failure, why: its sentence; a read that waited in vain for a slow commit gets 503). A job's creation is withdrawn when it can be (507 or 503: it
 * was not created), or answered 201 when its commit landed meanwhile; any other change, and a
 * creation that cannot be withdrawn (its tasks started), gets 504 Timeout: it was made and is
 * recorded once the database takes writes, unless the server stops first. Never a status that
 * says a change did not happen when it did. */
void gateway_answer_unrecorded(struct http_req *req, struct core_request *creq, enum store_failure kind,
                               const char *why);

/* gateway/auth/request.c: who asks, and whether they may (gateway/auth/auth.h, gateway/auth/access.h) */
/* Authenticates the request (its bearer token, or the loopback rule) and authorizes its path, once
 * its headers are in: answers 401 or 403 (each also an Audit event) and returns true, or sets
 * req->who and returns false. */
bool auth_check_request(struct http_req *req);
/* A 403 a handler decides on what the body says (a Command on a Queue), worded and audited as the
 * path's would be: User "u" cannot <verb> resource "<resource>" in API group ... ns "" is the
 * cluster scope. */
void auth_refuse(struct http_req *req, const char *verb, const char *resource, const char *group, const char *ns,
                 const char *name, const char *why);
/* Answers with st; a 401 or 403 (the tasks' user refused) also becomes an Audit event. */
void auth_respond_status(struct http_req *req, const struct api_status *st);

/* discovery.c */
void handle_api_versions(struct http_req *req);
void handle_api_core_resources(struct http_req *req);
void handle_api_groups(struct http_req *req);
void handle_api_group(struct http_req *req);
void handle_api_group_resources(struct http_req *req);

/* jobs.c */
void handle_job_create(struct http_req *req);
void handle_job_get(struct http_req *req);
void handle_job_list(struct http_req *req);
void handle_job_list_all(struct http_req *req);
void handle_job_delete(struct http_req *req);
void handle_job_update(struct http_req *req);
void handle_job_manifest(struct http_req *req);

/* gateway/auth/run_as.c: a job's tasks run as the caller's uid and gid (seed 001). An admin without ids (the
 * anonymous loopback admin, the bootstrap token) leaves the manifest in charge; any other caller
 * without ids gets a 403; otherwise adapters/objects/run_as.h refuses a manifest asking for another user or
 * writes the ids in (resource and group name the object in messages). Returns 0, or -1 with the
 * Status in f->st (not answered yet). */
struct fields;
struct job;
int gateway_run_as(const struct http_req *req, struct fields *f, struct job *job, const char *resource,
                   const char *group);

/* dialects.c: jobs posted as PyTorchJob, RayJob, SparkApplication, training request... */
void handle_dialect_create(struct http_req *req);
void handle_dialect_get(struct http_req *req);
void handle_dialect_list(struct http_req *req);
void handle_dialect_list_all(struct http_req *req);
void handle_dialect_delete(struct http_req *req);

/* history.c: caldera.io/v1 history */
void handle_jobhistory_list(struct http_req *req);
void handle_jobhistory_list_all(struct http_req *req);
void handle_job_history(struct http_req *req);
void handle_task_history(struct http_req *req);
void handle_attempt_history(struct http_req *req);
void handle_attempt_log(struct http_req *req);
/* Finds a stored log for a request: the path relative to the data directory (caller frees) in
 * *log_path, or -1 with the Status in st. */
struct store_reader;
typedef int (*gateway_log_finder)(struct http_req *req, struct store_reader *r, const void *ctx, char **log_path,
                                  struct api_status *st);
/* Opens a history reader, runs find, and answers with the log file (text/plain) or the Status. */
void gateway_answer_stored_log(struct http_req *req, gateway_log_finder find, const void *ctx);

/* commands.c */
void handle_command_create(struct http_req *req);
void handle_command_list(struct http_req *req);
void handle_job_action(struct http_req *req);
void handle_pod_delete(struct http_req *req);

/* pods.c */
void handle_pod_list(struct http_req *req);
void handle_pod_list_all(struct http_req *req);
void handle_pod_get(struct http_req *req);
void handle_pod_log(struct http_req *req);

/* events.c: core/v1 Events from the record of every change */
void handle_event_list(struct http_req *req);
void handle_event_list_all(struct http_req *req);

/* cluster.c: nodes, podgroups */
void handle_node_list(struct http_req *req);
void handle_node_get(struct http_req *req);
void handle_podgroup_list(struct http_req *req);
void handle_podgroup_list_all(struct http_req *req);
void handle_podgroup_get(struct http_req *req);

/* objects.c: queues (with Caldera's open and close), priorityclasses, resourcequotas */
struct intake;
/* Reads the body (JSON or YAML by Content-Type) as exactly one document of kind. Returns 0, or -1
 * with a 400/415 Status in st (nothing to free then). */
int gateway_read_document(struct http_req *req, const char *kind, struct intake *in, struct api_status *st);
void handle_queue_list(struct http_req *req);
void handle_queue_get(struct http_req *req);
void handle_queue_create(struct http_req *req);
void handle_queue_update(struct http_req *req);
void handle_queue_delete(struct http_req *req);
void handle_queue_open(struct http_req *req);
void handle_queue_close(struct http_req *req);
void handle_priorityclass_list(struct http_req *req);
void handle_priorityclass_get(struct http_req *req);
void handle_priorityclass_create(struct http_req *req);
void handle_priorityclass_update(struct http_req *req);
void handle_priorityclass_delete(struct http_req *req);
void handle_quota_list_all(struct http_req *req);
void handle_quota_list(struct http_req *req);
void handle_quota_get(struct http_req *req);
void handle_quota_create(struct http_req *req);
void handle_quota_update(struct http_req *req);
void handle_quota_delete(struct http_req *req);

/* tokens.c: caldera.io/v1 tokens */
void handle_token_list(struct http_req *req);
void handle_token_get(struct http_req *req);
void handle_token_create(struct http_req *req);
void handle_token_delete(struct http_req *req);

/* metrics.c: GET /metrics (Prometheus text format 0.0.4) */
void handle_metrics(struct http_req *req);

/* misc.c */
void handle_healthz(struct http_req *req);
void handle_root(struct http_req *req);
void handle_ui(struct http_req *req);
void handle_ui_file(struct http_req *req);

/* openapi.c: the OpenAPI 3 document of every route */
void handle_openapi_v3(struct http_req *req);

/* stream.c */
void handle_stream_info(struct http_req *req);

#endif
