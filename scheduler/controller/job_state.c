/* Volcano's job state machine (its state package): SyncJob (the phase follows the replicas' counts,
 * missing pods come back, the PodGroup follows the gang) and the actions phase by phase with the
 * kills they are made of. One file: every action ends in SyncJob, and SyncJob stops a finished job's
 * leftovers through an action. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "scheduler/controller/internal.h"

void job_set_phase(struct controller *ctl, struct job *job, enum job_phase to, const char *reason, const char *message)
{
    enum job_phase from = job->status.phase;
    if (from == to)
        return;
    char detail[1200];
    if ((to == JOB_FAILED || to == JOB_ABORTED) && disk_full_job_detail(job, message, detail, sizeof detail)) {
        if (reason && strcmp(reason, "Sync") == 0)
            reason = "DiskFull";
        message = detail;
    }
    job->status.phase = to;
    job->status.transition_ms = ctl->now_ms;
    free(job->status.reason);
    free(job->status.message);
    job->status.reason = reason ? strdup(reason) : NULL;
    job->status.message = message ? strdup(message) : NULL;
    if (to == JOB_RUNNING)
        job->status.running_since_ms = ctl->now_ms;
    record_job_phase(ctl, job, from, reason, message);
    if (job_phase_final(to))
        job_arm_ttl(ctl, job);
}

void job_arm_ttl(struct controller *ctl, struct job *job)
{
    if (job->ttl_seconds < 0 || !job_phase_final(job->status.phase))
        return;
    struct controller_timer t = {.due_ms = job->status.transition_ms + (int64_t)job->ttl_seconds * 1000,
                                 .kind = TIMER_TTL,
                                 .task = -1,
                                 .flat = -1,
                                 .version = job->status.version};
    timer_arm(ctl, job, &t);
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

/* Nothing of the job pending, running or being stopped; under clean-pod-policy None (Kubeflow's
 * operator: the job has finished, its pods are left alone) nothing pending or being stopped. */
static bool all_stopped(const struct job *job)
{
    const struct job_status *s = &job->status;
    return s->pending == 0 && s->terminating == 0 && (s->running == 0 || job->clean_pods == CLEAN_PODS_NONE);
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
    case JOB_RUNNING: return running_next(job, why);
    case JOB_RESTARTING:
        if (s->retry_count >= job->max_retry) {
            *why = "retryCount reached maxRetry";
            return JOB_FAILED;
        }
        if (job->total_replicas - s->terminating >= job->min_available) {
            *why = "restarted: the pods are created again";
            return JOB_PENDING;
        }
        return JOB_RESTARTING;
    case JOB_ABORTING: *why = "every pod stopped"; return all_stopped(job) ? JOB_ABORTED : JOB_ABORTING;
    case JOB_COMPLETING: *why = "every pod stopped"; return all_stopped(job) ? JOB_COMPLETED : JOB_COMPLETING;
    case JOB_TERMINATING: *why = "every pod stopped"; return all_stopped(job) ? JOB_TERMINATED : JOB_TERMINATING;
    default: return s->phase;
    }
}

/* dependsOn: a task's pods are created once the tasks it depends on (any or all of them) each have
 * at least minAvailable pods running or succeeded. */
static bool dependencies_ready(const struct job *job, int task)
{
    const struct task_spec *ts = &job->tasks[task];
    if (ts->ndepends == 0)
        return true;
    int ready = 0;
    for (int d = 0; d < ts->ndepends; d++) {
        const struct task_counts *c = &job->task_counts[ts->depends[d]];
        if (c->running - c->stopping + c->succeeded >= job->tasks[ts->depends[d]].min_available)
            ready++;
    }
    return ts->depends_any && ts->ndepends > 1 ? ready > 0 : ready == ts->ndepends;
}

/* SyncJob's creation half: every pod a live job misses comes back Pending (after a kill, or once
 * its task's dependencies run). Returns how many. Timers a pod's creation arms never act at once,
 * so nothing here re-enters the sync. */
static int create_missing(struct controller *ctl, struct job *job)
{
    int created = 0;
    for (int t = 0; t < job->ntasks; t++) {
        if (job->task_counts[t].absent == 0 || !dependencies_ready(job, t))
            continue;
        const struct task_spec *ts = &job->tasks[t];
        int32_t first = job->task_first[t], end = first + (ts->shrink_to >= 0 ? ts->shrink_to : ts->replicas);
        for (int32_t i = first; i < end; i++) {
            struct replica *r = &job->replicas[i];
            if (r->phase != POD_ABSENT)
                continue;
            job_set_replica_phase(job, i, POD_PENDING);
            r->node = -1;
            replica_reborn(r);
            r->reason = TERM_NONE;
            job_pod_created(ctl, job, i);
            created++;
        }
    }
    if (created)
        job_count_replicas(job);
    return created;
}

/* A finished job keeps nothing running or waiting: the rest is killed softly (minSuccess reached). */
static void stop_leftovers(struct controller *ctl, struct job *job)
{
    if (job->clean_pods == CLEAN_PODS_NONE) /* left to finish by themselves */
        return;
    bool any = false;
    for (int t = 0; t < job->ntasks && !any; t++)
        any = job->task_counts[t].pending + job->task_counts[t].running - job->task_counts[t].stopping > 0;
    if (any)
        job_execute(ctl, job, ACT_SYNC_JOB, -1, -1, "the job finished");
}

static void sync_podgroup(struct controller *ctl, struct job *job)
{
    if (job_phase_final(job->status.phase)) {
        podgroup_set_phase(ctl, job, PG_COMPLETED, "JobFinished");
        return;
    }
    if (job->pg.phase == PG_PENDING)
        return; /* the enqueue action moves it */
    int32_t holding = job->status.running + job->status.succeeded;
    int32_t min = job->min_available > 0 ? job->min_available : 1;
    if (holding >= min)
        podgroup_set_phase(ctl, job, PG_RUNNING, "GangRunning");
}

/* A pod of the job failed at its activeDeadlineSeconds: the job's failure says so (Kubernetes' Job
 * reason DeadlineExceeded). */
static bool deadline_failed(const struct job *job)
{
    for (int32_t i = 0; i < job->total_replicas; i++)
        if (job->replicas[i].phase == POD_FAILED && job->replicas[i].reason == TERM_DEADLINE)
            return true;
    return false;
}

/* Aborting, Completing or Terminating for a reason of its own (job_end_early's), not an action's name. */
static bool ending_with_own_reason(const struct job *job)
{
    enum job_phase p = job->status.phase;
    const char *r = job->status.reason;
    if ((p != JOB_ABORTING && p != JOB_COMPLETING && p != JOB_TERMINATING) || !r)
        return false;
    static const enum job_action actions[] = {ACT_ABORT_JOB,   ACT_COMPLETE_JOB, ACT_TERMINATE_JOB,
                                              ACT_RESTART_JOB, ACT_RESUME_JOB,   ACT_SYNC_JOB};
    for (size_t i = 0; i < sizeof actions / sizeof *actions; i++)
        if (strcmp(r, job_action_name(actions[i])) == 0)
            return false;
    return strcmp(r, "Sync") != 0;
}

void job_sync(struct controller *ctl, struct job *job)
{
    if (job->deleted)
        return;
    job_count_replicas(job);
    for (int step = 0; step < 6; step++) { /* Restarting -> Pending -> Running -> Completed can happen at once */
        if (job->status.phase == JOB_PENDING || job->status.phase == JOB_RUNNING)
            create_missing(ctl, job);
        const char *why;
        enum job_phase next = next_phase(job, &why);
        if (next == job->status.phase)
            break;
        if (ending_with_own_reason(job)) { /* an early end's reason and message stay with the final phase */
            char *reason = strdup(job->status.reason),
                 *message = job->status.message ? strdup(job->status.message) : NULL;
            job_set_phase(ctl, job, next, reason ? reason : "Sync", message ? message : why);
            free(reason);
            free(message);
            continue;
        }
        job_set_phase(ctl, job, next, next == JOB_FAILED && deadline_failed(job) ? "DeadlineExceeded" : "Sync", why);
    }
    if (job_phase_final(job->status.phase))
        stop_leftovers(ctl, job);
    sync_podgroup(ctl, job);
    if (job_phase_final(job->status.phase) && resvec_is_zero(&job->allocated) && job->live_procs == 0)
        cluster_retire_job(ctl->cluster, job); /* nothing left for placement to see */
}

/* --- the actions: what RestartJob, AbortJob, CompleteJob, TerminateJob, RestartTask, RestartPod and
 * ResumeJob do in each phase. A kill removes pods: running ones stop (their grace, then SIGKILL) and
 * vanish when they exit, pending ones vanish at once; a soft kill keeps the finished ones. --- */

enum retain { RETAIN_NONE, RETAIN_SOFT };

struct kill_counts {
    int stopped, removed, kept;
};

static void kill_replica(struct controller *ctl, struct job *job, int flat, bool keep_finished, struct kill_counts *n)
{
    struct replica *r = &job->replicas[flat];
    switch ((enum pod_phase)r->phase) {
    case POD_ABSENT: return;
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
    replicas_stop_engine_job(ctl, job);
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

/* A job's own end under clean-pod-policy None: pods not started go, running ones are left to finish
 * (the job ends at once, as the operator's does), finished ones stay. Nothing is killed, so the
 * version stays. */
static void leave_running(struct controller *ctl, struct job *job, const char *why)
{
    struct kill_counts n = {0};
    for (int32_t i = 0; i < job->total_replicas; i++) {
        enum pod_phase p = (enum pod_phase)job->replicas[i].phase;
        if (p == POD_RUNNING)
            n.stopped++; /* counted as left running */
        else if (p == POD_SUCCEEDED || p == POD_FAILED)
            n.kept++;
        else if (p != POD_ABSENT)
            kill_replica(ctl, job, i, true, &n);
    }
    const char *phase = job_phase_name(job->status.phase);
    record_event(ctl, JOURNAL_EVENT, job, "Job", job->name, phase, phase, "PodsLeftRunning",
                 "%s: cleanPodPolicy None: %d running pod%s left to finish, %d removed, %d kept", why, n.stopped,
                 n.stopped == 1 ? "" : "s", n.removed, n.kept);
}

/* What a policy's CompleteJob, AbortJob or TerminateJob does to the pods, by the job's
 * clean-pod-policy; a command (a user's) always stops what runs. */
static void end_job(struct controller *ctl, struct job *job, bool commanded, const char *why)
{
    if (!commanded && job->clean_pods == CLEAN_PODS_NONE)
        leave_running(ctl, job, why);
    else
        kill_job(ctl, job, !commanded && job->clean_pods == CLEAN_PODS_ALL ? RETAIN_NONE : RETAIN_SOFT, why);
}

static void to_phase(struct controller *ctl, struct job *job, enum job_phase to, enum job_action action,
                     const char *why, bool retry)
{
    if (retry)
        job->status.retry_count++;
    job_set_phase(ctl, job, to, job_action_name(action), why);
}

static void execute_pending_running(struct controller *ctl, struct job *job, enum job_action action, int task, int flat,
                                    bool commanded, const char *why)
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
        end_job(ctl, job, commanded, why);
        to_phase(ctl, job, JOB_ABORTING, action, why, false);
        break;
    case ACT_COMPLETE_JOB:
        end_job(ctl, job, commanded, why);
        to_phase(ctl, job, JOB_COMPLETING, action, why, false);
        break;
    case ACT_TERMINATE_JOB:
        end_job(ctl, job, commanded, why);
        to_phase(ctl, job, JOB_TERMINATING, action, why, false);
        break;
    default: /* SyncJob, ResumeJob: the phase's own rule, below */ break;
    }
}

/* Pods a job's own end left running (clean-pod-policy None) finish by themselves: only a command
 * stops them. */
static bool leaves_running(const struct job *job, bool commanded)
{
    return !commanded && job->clean_pods == CLEAN_PODS_NONE;
}

static void execute(struct controller *ctl, struct job *job, enum job_action action, int task, int flat, bool commanded,
                    const char *why)
{
    if (job->deleted)
        return;
    if (job->backend && (action == ACT_RESTART_TASK || action == ACT_RESTART_POD))
        action = ACT_RESTART_JOB; /* an engine's gang runs as one job there: it restarts whole */
    switch (job->status.phase) {
    case JOB_PENDING:
    case JOB_RUNNING: execute_pending_running(ctl, job, action, task, flat, commanded, why); break;
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
        } else if (alive(job) && !leaves_running(job, commanded)) {
            kill_job(ctl, job, RETAIN_SOFT, why);
        }
        break;
    default: /* Completing, Terminating and the final phases keep killing what is left */
        if (alive(job) && !leaves_running(job, commanded))
            kill_job(ctl, job, RETAIN_SOFT, why);
        break;
    }
    job_sync(ctl, job);
}

void job_execute(struct controller *ctl, struct job *job, enum job_action action, int task, int flat, const char *why)
{
    execute(ctl, job, action, task, flat, false, why);
}

void job_execute_command(struct controller *ctl, struct job *job, enum job_action action, const char *why)
{
    execute(ctl, job, action, -1, -1, true, why);
}

void job_end_early(struct controller *ctl, struct job *job, enum job_action action, const char *reason,
                   const char *message)
{
    if (job->deleted || (job->status.phase != JOB_PENDING && job->status.phase != JOB_RUNNING))
        return;
    enum job_phase to = action == ACT_ABORT_JOB      ? JOB_ABORTING
                        : action == ACT_COMPLETE_JOB ? JOB_COMPLETING
                                                     : JOB_TERMINATING;
    kill_job(ctl, job, RETAIN_SOFT, message);
    job_set_phase(ctl, job, to, reason, message);
    job_sync(ctl, job);
}
