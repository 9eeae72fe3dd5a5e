/* Asking the core and answering the client. The durability rule lives here: nothing is shown to a
 * client (not even a read) before the store has committed it, so what anyone saw survives a crash;
 * only while the database fails do reads show more, with a warning. A GET asking for Kubernetes'
 * Table (kubectl get) is answered with one (gateway/table/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway/auth/auth.h"
#include "gateway/limits/gates.h"
#include "common/clock.h"
#include "gateway/resources/answer.h"
#include "gateway/table/table.h"
#include "gateway/resources/unrecorded.h"
#include "store/store.h"

/* Waits until seq is committed. A read does not wait while the database is failing: it would wait
 * in vain. Returns true once committed, else false with the failure's kind and sentence. */
static bool wait_durable(struct http_req *req, uint64_t seq, enum store_failure *kind, char *why, size_t len)
{
    struct store *store = req->gw->store;
    bool skip = gateway_is_read(req) && store_failure_kind(store, NULL, 0) != STORE_FAILURE_NONE;
    if (store_wait(store, seq, skip ? 0 : req->gw->durable_timeout_ms) == 0)
        return true;
    *kind = store_failure_kind(store, why, len);
    return false;
}

/* The answer's body: a Table whose rows the core wrote (creq->as_table), else the JSON body. */
static void respond(struct http_req *req, struct core_request *creq, const struct table_view *view)
{
    if (!creq->as_table) {
        http_respond_json(req, creq->http_code, creq->body);
        creq->body = NULL;
        return;
    }
    char *text = creq->text ? table_text_with_rows(creq->body, view, creq->text) : NULL;
    if (text) {
        http_respond_text(req, creq->http_code, "application/json", text);
    } else {
        struct api_status st = {0};
        api_fail(&st, 500, "InternalError", "cannot encode the answer");
        http_respond_status(req, &st);
    }
    free(text);
}

/* What the client learns when its answer is not durable in time. A read while the database fails
 * is answered anyway, with a warning (state is what an operator needs most then); a change is
 * answered by unrecorded.c with what is true of it. */
static void answer_not_durable(struct http_req *req, struct core_request *creq, const struct table_view *view,
                               enum store_failure kind, const char *why)
{
    if (gateway_is_read(req) && kind != STORE_FAILURE_NONE) {
        char warning[700];
        snprintf(warning, sizeof warning, "this answer shows changes the job database has not recorded yet: %s", why);
        http_set_warning(req, warning);
        respond(req, creq, view);
        return;
    }
    gateway_answer_unrecorded(req, creq, kind, why);
}

void gateway_answer_core(struct http_req *req, struct core_request *creq)
{
    gateway_answer_core_restated(req, creq, NULL, NULL);
}

const struct namespace_set *gateway_visible(const struct http_req *req)
{
    return req->gw->auth ? principal_visible(req->who) : NULL;
}

/* Set by a PATCH on its own thread while it may try again (gateway_hold_stale_conflicts). */
static _Thread_local bool hold_stale, held_stale;

void gateway_hold_stale_conflicts(bool hold)
{
    hold_stale = hold;
    held_stale = false;
}

bool gateway_stale_conflict_held(void) { return held_stale; }

/* A 409 for a resourceVersion that moved meanwhile (not one for the object's state). */
static bool stale_version(const struct api_status *st)
{
    return st->code == 409 && strstr(st->message, "the object has been modified") != NULL;
}

static void answer(struct http_req *req, struct core_request *creq, gateway_restate_fn restate,
                   gateway_filter_fn filter, void *ctx)
{
    if (!creq->visible) /* a list across namespaces shows only the caller's */
        creq->visible = gateway_visible(req);
    struct table_view view = {0}; /* kubectl get asks for a Table (table.h) */
    struct api_status bad = {0};
    if (strcmp(req->method, "GET") == 0 &&
        table_view_read(http_header(req, "Accept"), http_query(req, "includeObject"), &view, &bad) != 0) {
        http_respond_status(req, &bad);
        return;
    }
    if (core_call(req->gw->core, creq) != 0) {
        if (hold_stale && stale_version(&creq->status)) {
            held_stale = true; /* the PATCH reads the object again and tries once more */
            return;
        }
        if (restate)
            restate(ctx, &creq->status);
        http_respond_status(req, &creq->status);
        return;
    }
    if (filter)
        filter(ctx, creq->body);
    json_t *table = view.wanted && !creq->as_table ? table_from_objects(creq->body, &view, clock_wall_ms()) : NULL;
    if (table) {
        json_decref(creq->body);
        creq->body = table;
    }
    char why[512];
    enum store_failure kind = STORE_FAILURE_NONE;
    if (creq->durable_seq && !wait_durable(req, creq->durable_seq, &kind, why, sizeof why))
        answer_not_durable(req, creq, &view, kind, why);
    else
        respond(req, creq, &view);
    free(creq->text);
    creq->text = NULL;
    json_decref(creq->body);
    creq->body = NULL;
}

void gateway_answer_core_restated(struct http_req *req, struct core_request *creq, gateway_restate_fn restate,
                                  void *ctx)
{
    answer(req, creq, restate, NULL, ctx);
}

void gateway_answer_core_filtered(struct http_req *req, struct core_request *creq, gateway_filter_fn filter, void *ctx)
{
    answer(req, creq, NULL, filter, ctx);
}

void gateway_ask(struct http_req *req, enum core_op op, const char *ns, const char *name)
{
    struct core_request creq = {.op = op, .ns = ns, .name = name};
    gateway_answer_core(req, &creq);
}
