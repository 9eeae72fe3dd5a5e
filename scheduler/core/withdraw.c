/* The core's side of a failing store: a job created while the disk filled is withdrawn when its
 * client is to be told it was not created, and no attempt starts while nothing can be recorded. */
#include <stdio.h>
#include <string.h>

#include "scheduler/core/internal.h"

/* Whether anything of the job ever ran: then it cannot be taken back. */
static bool job_started(const struct job *job)
{
    if (job->live_procs > 0)
        return true;
    for (int32_t i = 0; i < job->total_replicas; i++)
        if (job->replicas[i].attempts > 0)
            return true;
    return false;
}

void core_handle_withdraw(struct core *c, struct core_request *req)
{
    struct job *job = req->uid ? cluster_find_job_uid(&c->cluster, req->uid) : NULL;
    if (!job || job->deleted) {
        api_fail(&req->status, 504, "Timeout", "it was deleted meanwhile");
        return;
    }
    if (job_started(job)) {
        api_fail(&req->status, 504, "Timeout", "its tasks have started");
        return;
    }
    switch (store_withdraw_job(c->store, job->uid, req->created_seq)) {
    case STORE_WITHDRAW_LANDED: /* committed after all: the client gets its 201 */
        core_answer(req, 201, json_object(), 0);
        return;
    case STORE_WITHDRAW_FULL:
        api_fail(&req->status, 504, "Timeout", "too many withdrawals wait for the database");
        return;
    case STORE_WITHDRAWN: break;
    }
    char uid[UUID_STR_LEN];
    snprintf(uid, sizeof uid, "%s", job->uid);
    controller_delete_job(&c->ctl, job); /* nothing runs: freed at once; its entries are dropped too */
    store_withdraw_seal(c->store, uid, c->cluster.seq);
    c->kick = true;
    core_answer(req, 200, json_object(), 0);
}

void core_check_store(struct core *c)
{
    enum store_failure kind = store_failure_kind(c->store, NULL, 0);
    c->ctl.starts_held = kind == STORE_FAILURE_NONE        ? NULL
                         : kind == STORE_FAILURE_DISK_FULL ? STARTS_HELD_DISK_FULL
                                                           : "waiting for the database: it cannot record anything "
                                                             "(see /healthz); pods start once it takes writes again";
}
