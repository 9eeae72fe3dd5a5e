/* Volcano's job actions, phase by phase (its state package): what RestartJob, AbortJob,
 * CompleteJob, TerminateJob, RestartTask, RestartPod and ResumeJob do in each phase, and the kills
 * they are made of. A kill removes pods: running ones stop (their grace, then SIGKILL) and vanish
 * when they exit, pending ones vanish at once; a soft kill keeps the finished ones. */
#include <stdio.h>

#include "scheduler/controller/internal.h"

enum retain { RETAIN_NONE, RETAIN_SOFT };

struct kill_counts {
    int stopped, removed, kept;
};

static void kill_replica(struct controller *ctl, struct job *job, int flat, bool keep_finished, struct kill_counts *n)
{
    struct replica *r = &job->replicas[flat];
    switch ((enum pod_phase)r->phase) {
    case POD_ABSENT:
        return;
    case POD_SUCCEEDED:
    case POD_FAILED:
        if (keep_finished) {
            n->kept++;
            return;
        }
        job_set_replica_phase(job, flat, POD_ABSENT);
        n->removed++;
        return;
    case POD_RUNNING:
        if (!r->stopping)
            n->stopped++;
        replica_stop(ctl, job, flat, TERM_STOPPED, true);
        return;
    default: /* Pending, Unknown: nothing runs */
        if (r->node >= 0)
            replica_release(ctl, job, flat);
        job_set_replica_phase(job, flat, POD_ABSENT);
        n->removed++;
        return;
    }
}

/* A kept pod lives on into the next version of the job: its last attempt moves there, so a
 * recovery counts it. */
static void carry_kept(struct controller *ctl, struct job *job)
{
    for (int32_t i = 0; i < job->total_replicas; i++) {
        const struct replica *r = &job->replicas[i];
        if ((r->phase == POD_SUCCEEDED || r->phase == POD_FAILED) && r->attempts > 0)
            record_attempt_carry(ctl, job, i);
    }
}

/* Every pod of the job but the kept ones; the version moves on, the gang is unplaced again
 * (Volcano deletes the PodGroup), the plugins' files are written anew before the next start. */
static void kill_job(struct controller *ctl, struct job *job, enum retain retain, const char *why)
{
    /* Volcano keeps the finished pods at the last retry, whatever the action asked, so a job that
     * fails for good still shows why. */
    bool keep = retain == RETAIN_SOFT || job->status.retry_count >= job->max_retry - 1;
    struct kill_counts n = {0};
    for (int32_t i = 0; i < job->total_replicas; i++)
        kill_replica(ctl, job, i, keep, &n);
    job->status.version++;
    job->prepared = false;
    carry_kept(ctl, job);
    if (!job_phase_final(job->status.phase))
        podgroup_set_phase(ctl, job, PG_PENDING, "JobKilled");
    const char *phase = job_phase_name(job->status.phase);
    record_event(ctl, JOURNAL_EVENT, job, "Job", job->name, phase, phase, "Killed",
                 "%s: %d pod%s stopped, %d removed, %d kept; job version %d", why, n.stopped, n.stopped == 1 ? "" : "s",
                 n.removed, n.kept, job->status.version);
}

static bool alive(const struct job *job)
{
    for (int t = 0; t < job->ntasks; t++) {
        const struct task_counts *c = &job->task_counts[t];
        if (c->pending + c->running - c->stopping + c->unknown > 0)
            return true;
    }
    return false;
}

/* RestartTask / RestartPod: the target's pods, finished or not; without a target, the whole job. */
static void kill_target(struct controller *ctl, struct job *job, enum job_action action, int task, int flat,
                        const char *why)
{
    if (task < 0 || (action == ACT_RESTART_POD && flat < 0)) {
        kill_job(ctl, job, RETAIN_NONE, why);
        return;
    }
    struct kill_counts n = {0};
    int32_t first = action == ACT_RESTART_POD ? flat : job->task_first[task];
    int32_t end = action == ACT_RESTART_POD ? flat + 1 : first + job->tasks[task].replicas;
    for (int32_t i = first; i < end; i++)
        kill_replica(ctl, job, i, false, &n);
    /* Deviation: Volcano deletes the PodGroup here too; while other pods of the gang still run we
     * keep it placed, so the replacement is placed beside them instead of waiting for a new enqueue. */
    bool placed = false;
    for (int t = 0; t < job->ntasks && !placed; t++)
        placed = job->task_counts[t].running - job->task_counts[t].stopping > 0;
    if (!placed)
        podgroup_set_phase(ctl, job, PG_PENDING, "JobKilled");
    char target[320];
    if (action == ACT_RESTART_POD)
        job_pod_name(job, task, flat - job->task_first[task], target, sizeof target);
    else
        snprintf(target, sizeof target, "task %s", job->tasks[task].name);
    const char *phase = job_phase_name(job->status.phase);
    record_event(ctl, JOURNAL_EVENT, job, "Job", job->name, phase, phase, "Killed", "%s: %s: %d stopped, %d removed",
                 why, target, n.stopped, n.removed);
}

static void to_phase(struct controller *ctl, struct job *job, enum job_phase to, enum job_action action, const char *why,
                     bool retry)
{
    if (retry)
        job->status.retry_count++;
    job_set_phase(ctl, job, to, job_action_name(action), why);
}

static void execute_pending_running(struct controller *ctl, struct job *job, enum job_action action, int task, int flat,
                                    const char *why)
{
    switch (action) {
    case ACT_RESTART_JOB:
        kill_job(ctl, job, RETAIN_NONE, why);
        to_phase(ctl, job, JOB_RESTARTING, action, why, true);
        break;
    case ACT_RESTART_TASK:
    case ACT_RESTART_POD:
        kill_target(ctl, job, action, task, flat, why);
        to_phase(ctl, job, JOB_RESTARTING, action, why, true);
        break;
    case ACT_ABORT_JOB:
        kill_job(ctl, job, RETAIN_SOFT, why);
        to_phase(ctl, job, JOB_ABORTING, action, why, false);
        break;
    case ACT_COMPLETE_JOB:
        kill_job(ctl, job, RETAIN_SOFT, why);
        to_phase(ctl, job, JOB_COMPLETING, action, why, false);
        break;
    case ACT_TERMINATE_JOB:
        kill_job(ctl, job, RETAIN_SOFT, why);
        to_phase(ctl, job, JOB_TERMINATING, action, why, false);
        break;
    default: /* SyncJob, ResumeJob: the phase's own rule, below */
        break;
    }
}

void job_execute(struct controller *ctl, struct job *job, enum job_action action, int task, int flat, const char *why)
{
    if (job->deleted)
        return;
    switch (job->status.phase) {
    case JOB_PENDING:
    case JOB_RUNNING:
        execute_pending_running(ctl, job, action, task, flat, why);
        break;
    case JOB_RESTARTING: /* already restarting: a task or pod is killed, anything else kills what came back */
        if (action == ACT_RESTART_TASK || action == ACT_RESTART_POD)
            kill_target(ctl, job, action, task, flat, why);
        else if (action != ACT_SYNC_JOB && alive(job))
            kill_job(ctl, job, RETAIN_NONE, why);
        break;
    case JOB_ABORTING:
    case JOB_ABORTED:
        if (action == ACT_RESUME_JOB) {
            kill_job(ctl, job, RETAIN_SOFT, why);
            to_phase(ctl, job, JOB_RESTARTING, action, why, true);
        } else if (alive(job)) {
            kill_job(ctl, job, RETAIN_SOFT, why);
        }
        break;
    default: /* Completing, Terminating and the final phases keep killing what is left */
        if (alive(job))
            kill_job(ctl, job, RETAIN_SOFT, why);
        break;
    }
    job_sync(ctl, job);
}
