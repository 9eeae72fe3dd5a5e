/* Asking the core and answering the client. The durability rule lives here: nothing is shown to a
 * client (not even a read) before the store has committed it, so what anyone saw survives a crash. */
#include <stdio.h>
#include <string.h>

#include "gateway/handlers.h"
#include "store/store.h"

void gateway_answer_core(struct http_req *req, struct core_request *creq)
{
    if (core_call(req->gw->core, creq) != 0) {
        http_respond_status(req, &creq->status);
        return;
    }
    if (creq->durable_seq && store_wait(req->gw->store, creq->durable_seq, req->gw->durable_timeout_ms) != 0) {
        char health[512];
        const char *why = store_health(req->gw->store, health, sizeof health);
        struct api_status st = {0};
        api_fail(&st, 503, "ServiceUnavailable", "the job database is not accepting writes: %s",
                 why ? why : "the commit did not finish in time");
        json_decref(creq->body);
        creq->body = NULL;
        http_respond_status(req, &st);
        return;
    }
    http_respond_json(req, creq->http_code, creq->body);
    creq->body = NULL;
}

int gateway_parse_selector(struct http_req *req, struct core_request *creq, char *buf, size_t len)
{
    const char *sel = http_query(req, "labelSelector");
    creq->nselectors = 0;
    if (!sel || !*sel)
        return 0;
    struct api_status st = {0};
    if (strlen(sel) >= len) {
        api_fail(&st, 400, "BadRequest", "labelSelector is too long");
        http_respond_status(req, &st);
        return -1;
    }
    memcpy(buf, sel, strlen(sel) + 1);
    for (char *save = NULL, *term = strtok_r(buf, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(term, '=');
        if (!eq || eq == term || strchr(term, '!') || creq->nselectors == CORE_MAX_SELECTORS) {
            api_fail(&st, 400, "BadRequest",
                     "unable to parse requirement \"%s\": only key=value terms (at most %d) are supported", term,
                     CORE_MAX_SELECTORS);
            http_respond_status(req, &st);
            return -1;
        }
        *eq = '\0';
        const char *value = eq[1] == '=' ? eq + 2 : eq + 1;
        creq->selector_key[creq->nselectors] = term;
        creq->selector_value[creq->nselectors++] = value;
    }
    return 0;
}
