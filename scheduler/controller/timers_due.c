/* Running the timers that are due: a policy's delayed action, a container restart after its
 * back-off, a pod's active deadline, a finished job's TTL deletion. */
#include "common/log.h"
#include "scheduler/controller/internal.h"

static void fire(struct controller *ctl, struct job *job, const struct controller_timer *t)
{
    switch (t->kind) {
    case TIMER_ACTION:
        if (t->version == job->status.version)
            job_execute(ctl, job, (enum job_action)t->action, t->task, t->flat, "the policy's timeout passed");
        break;
    case TIMER_RESTART: replica_restart_after_backoff(ctl, job, t->flat, t->attempt); break;
    case TIMER_DEADLINE: /* one armed for an activeDeadlineSeconds changed since is stale */
        if (t->task >= 0 && t->task < job->ntasks && job->tasks[t->task].active_deadline_seconds == t->deadline_s)
            replica_deadline_exceeded(ctl, job, t->flat, t->attempt);
        break;
    case TIMER_TTL:
        if (job_phase_final(job->status.phase)) {
            log_info("job %s/%s: ttlSecondsAfterFinished (%d s) passed; deleting it", job->ns, job->name,
                     job->ttl_seconds);
            controller_delete_job(ctl, job);
        }
        break;
    }
}

int controller_run_timers(struct controller *ctl)
{
    cluster_assert_owner(ctl->cluster);
    int ran = 0;
    struct controller_timer t;
    while (timers_pop_due(ctl, &t)) {
        struct job *job = cluster_find_job_uid(ctl->cluster, t.job_uid);
        if (!job)
            continue;
        job->timers--;
        if (!job->deleted)
            fire(ctl, job, &t);
        ran++;
    }
    return ran;
}
