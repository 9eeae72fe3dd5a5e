/* Events to actions: Volcano's applyPolicies. An event about a pod (or the job) picks the first
 * matching policy of the pod's task, else of the job; its action runs now, or after its timeout
 * unless the pod reaches Running first. No policy means SyncJob: the phase follows the counts. */
#include <stdio.h>

#include "scheduler/controller/internal.h"

/* The delayed actions a pod reaching Running cancels (Volcano's delay-action cleanup). */
#define CANCELLED_BY_RUNNING ((1u << EV_POD_PENDING) | (1u << EV_POD_FAILED) | (1u << EV_POD_EVICTED))

void job_raise(struct controller *ctl, struct job *job, enum job_event event, int flat, bool has_exit_code,
               int32_t exit_code)
{
    if (job->deleted)
        return;
    int task = flat >= 0 ? job_task_of(job, flat) : -1;
    if (event == EV_POD_RUNNING && job->timers > 0)
        timers_cancel(ctl, job, flat, CANCELLED_BY_RUNNING);
    const struct lifecycle_policy *p = NULL;
    if (event < EV_POD_RUNNING && job_has_policies(job, task)) {
        const struct task_spec *ts = task >= 0 ? &job->tasks[task] : NULL;
        p = policy_choose(ts ? ts->policies : NULL, ts ? ts->npolicies : 0, job->policies, job->npolicies, event,
                          has_exit_code, exit_code);
    }
    if (!p) {
        job_sync(ctl, job);
        return;
    }
    char why[160];
    if (has_exit_code && p->has_exit_code)
        snprintf(why, sizeof why, "policy: exitCode %d -> %s", exit_code, job_action_name(p->action));
    else
        snprintf(why, sizeof why, "policy: %s -> %s", job_event_name(event), job_action_name(p->action));
    if (p->timeout_ms > 0) {
        struct controller_timer t = {.due_ms = ctl->now_ms + p->timeout_ms,
                                     .kind = TIMER_ACTION,
                                     .action = (uint8_t)p->action,
                                     .event = (uint8_t)event,
                                     .task = task,
                                     .flat = flat,
                                     .version = job->status.version};
        timer_arm(ctl, job, &t);
        job_sync(ctl, job);
        return;
    }
    job_execute(ctl, job, p->action, task, flat, why);
}
