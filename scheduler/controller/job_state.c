/* Volcano's job state machine: a job's phase follows from its replicas' phases (Pending ->
 * Running -> Completed/Failed by minAvailable, minSuccess and each task's minAvailable), and its
 * PodGroup's phase follows from how much of the gang holds resources. */
#include <stdlib.h>
#include <string.h>

#include "scheduler/controller/internal.h"

void job_set_phase(struct controller *ctl, struct job *job, enum job_phase to, const char *reason, const char *message)
{
    enum job_phase from = job->status.phase;
    if (from == to)
        return;
    job->status.phase = to;
    job->status.transition_ms = ctl->now_ms;
    free(job->status.reason);
    free(job->status.message);
    job->status.reason = reason ? strdup(reason) : NULL;
    job->status.message = message ? strdup(message) : NULL;
    if (to == JOB_RUNNING)
        job->status.running_since_ms = ctl->now_ms;
    record_job_phase(ctl, job, from, reason, message);
}

void job_set_pending_reason(struct controller *ctl, struct job *job, const char *message)
{
    struct job_status *s = &job->status;
    if (s->phase != JOB_PENDING)
        return;
    bool had = s->reason && strcmp(s->reason, "Unschedulable") == 0;
    if ((!message && !had) || (message && had && s->message && strcmp(s->message, message) == 0))
        return;
    free(s->reason);
    free(s->message);
    s->reason = message ? strdup("Unschedulable") : NULL;
    s->message = message ? strdup(message) : NULL;
    record_job_phase(ctl, job, s->phase, message ? s->reason : "Schedulable",
                     message ? s->message : "the gang can be placed");
}

void podgroup_set_phase(struct controller *ctl, struct job *job, enum podgroup_phase to, const char *reason)
{
    enum podgroup_phase from = job->pg.phase;
    if (from == to)
        return;
    job->pg.phase = to;
    job->pg.transition_ms = ctl->now_ms;
    record_event(ctl, JOURNAL_EVENT, job, "PodGroup", job->name, podgroup_phase_name(from), podgroup_phase_name(to),
                 reason, "%s", "");
}

/* Running's rules, in Volcano's order. Returns the next phase and why in *why. */
static enum job_phase running_next(const struct job *job, const char **why)
{
    const struct job_status *s = &job->status;
    if (job->total_replicas == 0)
        return JOB_RUNNING;
    if (job->min_success > 0 && s->succeeded >= job->min_success) {
        *why = "minSuccess replicas succeeded";
        return JOB_COMPLETED;
    }
    if (s->succeeded + s->failed != job->total_replicas)
        return JOB_RUNNING;
    int64_t task_min_total = 0;
    for (int t = 0; t < job->ntasks; t++)
        task_min_total += job->tasks[t].min_available;
    if (job->min_available >= task_min_total) {
        for (int t = 0; t < job->ntasks; t++) {
            if (job->task_counts[t].succeeded < job->tasks[t].min_available) {
                *why = "a task has fewer succeeded replicas than its minAvailable";
                return JOB_FAILED;
            }
        }
    }
    if (job->min_success > 0 && s->succeeded < job->min_success) {
        *why = "fewer than minSuccess replicas succeeded";
        return JOB_FAILED;
    }
    if (s->succeeded >= job->min_available) {
        *why = "all replicas finished";
        return JOB_COMPLETED;
    }
    *why = "fewer than minAvailable replicas succeeded";
    return JOB_FAILED;
}

static enum job_phase next_phase(const struct job *job, const char **why)
{
    const struct job_status *s = &job->status;
    *why = NULL;
    switch (s->phase) {
    case JOB_PENDING:
        if (job->min_available <= s->running + s->succeeded + s->failed) {
            *why = "minAvailable replicas started";
            return JOB_RUNNING;
        }
        return JOB_PENDING;
    case JOB_RUNNING:
        return running_next(job, why);
    default:
        return s->phase;
    }
}

/* A finished job keeps nothing running: replicas still alive are stopped (minSuccess reached). */
static void stop_leftovers(struct controller *ctl, struct job *job)
{
    for (int32_t i = 0; i < job->total_replicas; i++)
        if (job->replicas[i].phase == POD_RUNNING && !job->replicas[i].stopping)
            replica_stop(ctl, job, i, TERM_STOPPED);
}

static void sync_podgroup(struct controller *ctl, struct job *job)
{
    if (job->pg.phase == PG_PENDING)
        return; /* the enqueue action moves it */
    if (job_phase_final(job->status.phase)) {
        podgroup_set_phase(ctl, job, PG_COMPLETED, "JobFinished");
        return;
    }
    int32_t holding = job->status.running + job->status.succeeded;
    int32_t min = job->min_available > 0 ? job->min_available : 1;
    if (holding >= min)
        podgroup_set_phase(ctl, job, PG_RUNNING, "GangRunning");
}

void job_sync(struct controller *ctl, struct job *job)
{
    if (job->deleted)
        return;
    job_count_replicas(job);
    for (int step = 0; step < 4; step++) { /* Pending -> Running -> Completed can happen at once */
        const char *why;
        enum job_phase next = next_phase(job, &why);
        if (next == job->status.phase)
            break;
        job_set_phase(ctl, job, next, why ? "Sync" : NULL, why);
    }
    if (job_phase_final(job->status.phase))
        stop_leftovers(ctl, job);
    sync_podgroup(ctl, job);
}
