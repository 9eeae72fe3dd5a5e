/* What the handlers share to answer: asking the core and answering only once what the answer shows
 * is durable, lists and their pages, the caller's namespaces, bodies read as documents, stored logs. */
#ifndef CALDERA_ANSWER_H
#define CALDERA_ANSWER_H

#include "gateway/http/http.h"
#include "scheduler/core/core.h"

/* answer.c */
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
void gateway_answer_core_filtered(struct http_req *req, struct core_request *creq, gateway_filter_fn filter, void *ctx);
/* The plain request a handler asks: op on the object ns/name (either NULL where not used), answered
 * as gateway_answer_core does. */
void gateway_ask(struct http_req *req, enum core_op op, const char *ns, const char *name);
/* While hold is true on this thread, a 409 for a stale resourceVersion is not answered but noted
 * (gateway_stale_conflict_held): a PATCH that set the version itself reads the object again and
 * retries, as the API server does for a patch without a precondition. */
void gateway_hold_stale_conflicts(bool hold);
bool gateway_stale_conflict_held(void);
/* The namespaces the caller sees (NULL: every one; always NULL when nobody is asked who they are). */
const struct namespace_set *gateway_visible(const struct http_req *req);

/* list.c: a list request built in creq (op, namespace, dialect, view). ?watch=true streams it
 * (gateway/watch/watch.h); otherwise the core's list, filtered by the full labelSelector (the core narrows
 * by its key=value terms first) and fieldSelector. creq NULL: a list that is always empty. */
struct list_kind;
void gateway_answer_list(struct http_req *req, struct core_request *creq, const struct list_kind *kind);
/* The same, with extra items (borrowed; NULL: none) the core does not keep after its last page,
 * filtered by the selectors like its own (a watch does not show them). */
void gateway_answer_list_with(struct http_req *req, struct core_request *creq, const struct list_kind *kind,
                              json_t *extra);
/* The plain list a handler asks: op in ns (NULL: every namespace), its items of api_version and
 * kind, answered as gateway_answer_list does. */
void gateway_ask_list(struct http_req *req, enum core_op op, const char *ns, const char *api_version, const char *kind);
/* list_page.c: pages of the Job, PodGroup and Pod lists. Reads ?limit (at most, and by default,
 * gw->list_page_max) and ?continue into creq (0, or -1 with a 400 in st); then sets the answer's
 * metadata.continue when more items follow. Other lists are left whole. */
int gateway_list_page_read(struct http_req *req, const char *kind, struct core_request *creq, struct api_status *st);
void gateway_list_page_finish(const struct core_request *creq, const char *kind, json_t *body);

/* body.c */
struct intake;
/* Reads the body (JSON or YAML by Content-Type) as exactly one document of kind. Returns 0, or -1
 * with a 400/415 Status in st (nothing to free then). */
int gateway_read_document(struct http_req *req, const char *kind, struct intake *in, struct api_status *st);

/* history.c: stored logs, for the history's and the pods' log routes */
/* Finds a stored log for a request: the path relative to the data directory (caller frees) in
 * *log_path, or -1 with the Status in st. */
struct store_reader;
typedef int (*gateway_log_finder)(struct http_req *req, struct store_reader *r, const void *ctx, char **log_path,
                                  struct api_status *st);
/* Opens a history reader, runs find, and answers with the log file (text/plain) or the Status. */
void gateway_answer_stored_log(struct http_req *req, gateway_log_finder find, const void *ctx);

#endif
