/* The core's answers to CORE_RECORD_*: objects it records but does not keep (the gateway's Tokens)
 * and events alone (audit). The answer carries the sequence number to wait for, nothing else. */
#include "scheduler/core/internal.h"

void core_handle_record(struct core *c, struct core_request *req)
{
    const struct core_record *r = &req->record;
    const char *ns = req->ns ? req->ns : "", *name = req->name ? req->name : "";
    uint64_t seq = 0;
    if (!r->kind || !*r->kind) {
        api_fail(&req->status, 500, "InternalError", "a record request without a kind");
        return;
    }
    switch (req->op) {
    case CORE_RECORD_PUT:
        if (r->json)
            seq = controller_record_object(&c->ctl, r->kind, ns, name, r->json, r->reason, r->message);
        break;
    case CORE_RECORD_DELETE:
        seq = controller_record_object(&c->ctl, r->kind, ns, name, NULL, r->reason, r->message);
        break;
    default: seq = controller_record_event(&c->ctl, r->kind, ns, name, r->reason, r->message); break;
    }
    if (seq == 0) {
        api_fail(&req->status, 500, "InternalError", "out of memory recording a %s", r->kind);
        return;
    }
    core_answer(req, req->op == CORE_RECORD_PUT ? 201 : 200, json_object(), seq);
}
