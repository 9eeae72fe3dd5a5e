/* Replicas starting and ending: building an attempt (command, environment, paths), holding and
 * releasing node and queue resources, and turning an exit into the pod's phase and reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strv.h"
#include "scheduler/controller/internal.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static void hold_resources(struct controller *ctl, struct job *job, int task, int node, bool hold)
{
    const struct resvec *req = &job->tasks[task].request;
    struct queue *q = cluster_find_queue(ctl->cluster, job->queue);
    if (hold) {
        resvec_add(&ctl->cluster->nodes[node].used, req);
        resvec_add(&job->allocated, req);
        if (q)
            resvec_add(&q->allocated, req);
    } else {
        resvec_sub(&ctl->cluster->nodes[node].used, req);
        resvec_sub(&job->allocated, req);
        if (q)
            resvec_sub(&q->allocated, req);
    }
}

/* The environment of an attempt: a container-like base, the container's env on top, then the env
 * plugin's VK_TASK_INDEX/VC_TASK_INDEX (Volcano's names). */
static char **attempt_env(const struct task_spec *ts, int index, const char *pod, const char *work_dir)
{
    char **env = NULL;
    int rc = strv_pushf(&env, "PATH=%s", DEFAULT_PATH);
    rc |= strv_pushf(&env, "HOME=%s", work_dir);
    rc |= strv_pushf(&env, "HOSTNAME=%s", pod);
    for (size_t i = 0; ts->env && ts->env[i]; i++)
        rc |= strv_setenv(&env, ts->env[i]);
    char assignment[64];
    snprintf(assignment, sizeof assignment, "VK_TASK_INDEX=%d", index);
    rc |= strv_setenv(&env, assignment);
    snprintf(assignment, sizeof assignment, "VC_TASK_INDEX=%d", index);
    rc |= strv_setenv(&env, assignment);
    if (rc != 0) {
        strv_free(env);
        return NULL;
    }
    return env;
}

static void fill_attempt_row(struct journal_entry *e, const struct controller *ctl, const struct job *job, int task,
                             int index, const char *pod, const struct replica *r)
{
    struct journal_attempt *a = &e->attempt;
    char rel[512];
    controller_log_relpath(job, pod, r->attempts, rel, sizeof rel);
    a->job_uid = strdup(job->uid);
    a->pod = strdup(pod);
    a->task = strdup(job->tasks[task].name);
    a->index = index;
    a->attempt = (int32_t)r->attempts;
    a->job_version = job->status.version;
    a->node = strdup(r->node >= 0 ? ctl->cluster->nodes[r->node].name : "");
    a->pid = r->pid;
    a->start_ms = r->start_ms;
    a->log_path = strdup(rel);
}

static void fill_attempt_end(struct journal_entry *e, const struct replica *r)
{
    struct journal_attempt *a = &e->attempt;
    a->end_ms = r->end_ms;
    a->exit_code = r->exit_code;
    a->reason = strdup(term_reason_name(r->reason));
    a->message = strdup(r->message ? r->message : "");
}

/* A replica that could not start fails at once with StartError, as a container that cannot be
 * created does (exit code 128, like containerd's). */
static void start_failed(struct controller *ctl, struct job *job, int flat, int task, int index, const char *pod,
                         const char *why)
{
    struct replica *r = &job->replicas[flat];
    hold_resources(ctl, job, task, r->node, false);
    job_set_replica_phase(job, flat, POD_FAILED);
    r->reason = TERM_START_ERROR;
    r->exit_code = 128;
    r->end_ms = ctl->now_ms;
    free(r->message);
    r->message = strdup(why);
    struct journal_entry *e = record_event(ctl, JOURNAL_ATTEMPT_START, job, "Pod", pod, "Pending", "Failed",
                                           "StartError", "attempt %u could not start: %s", r->attempts, why);
    if (e) {
        fill_attempt_row(e, ctl, job, task, index, pod, r);
        fill_attempt_end(e, r);
    }
}

void replica_start(struct controller *ctl, struct job *job, int flat, int node)
{
    struct replica *r = &job->replicas[flat];
    int task = job_task_of(job, flat), index = flat - job->task_first[task];
    const struct task_spec *ts = &job->tasks[task];
    char pod[320], job_dir[4096], work_dir[4200], log_path[4800], rel[512], why[512] = "";
    job_pod_name(job, task, index, pod, sizeof pod);
    r->attempts++;
    r->node = node;
    r->start_ms = ctl->now_ms;
    r->end_ms = 0;
    r->exit_code = 0;
    r->reason = TERM_NONE;
    free(r->message);
    r->message = NULL;
    hold_resources(ctl, job, task, node, true);

    if (!ts->argv) {
        snprintf(why, sizeof why, "the container has no command or args: the process runtime runs the command on the "
                                  "node (the image \"%s\" is recorded, not run)", ts->image ? ts->image : "");
        start_failed(ctl, job, flat, task, index, pod, why);
        return;
    }
    controller_job_dir(ctl, job, job_dir, sizeof job_dir);
    snprintf(work_dir, sizeof work_dir, "%s/work", job_dir);
    controller_log_relpath(job, pod, r->attempts, rel, sizeof rel);
    snprintf(log_path, sizeof log_path, "%s/%s", ctl->data_dir, rel);
    char **env = attempt_env(ts, index, pod, work_dir);
    if (!env) {
        start_failed(ctl, job, flat, task, index, pod, "out of memory building the environment");
        return;
    }
    struct attempt_spec spec = {ts->argv, env, work_dir, ts->working_dir ? ts->working_dir : work_dir, log_path};
    struct attempt_started started = {0};
    int rc = ctl->ops.start(ctl->ops.ctx, job, flat, &spec, &started, why, sizeof why);
    strv_free(env);
    if (rc != 0) {
        start_failed(ctl, job, flat, task, index, pod, why);
        return;
    }
    job_set_replica_phase(job, flat, POD_RUNNING);
    r->pid = started.pid;
    job->live_procs++;
    struct journal_entry *e = record_event(ctl, JOURNAL_ATTEMPT_START, job, "Pod", pod, "Pending", "Running", "Started",
                                           "attempt %u started on node %s, pid %d", r->attempts,
                                           ctl->cluster->nodes[node].name, started.pid);
    if (e) {
        fill_attempt_row(e, ctl, job, task, index, pod, r);
        e->attempt.pid_start = started.pid_start;
    }
}

void replica_stop(struct controller *ctl, struct job *job, int flat, enum term_reason why)
{
    struct replica *r = &job->replicas[flat];
    if (r->phase != POD_RUNNING || r->stopping)
        return;
    int task = job_task_of(job, flat);
    int grace_ms = job->tasks[task].grace_seconds * 1000;
    if (why == TERM_SHUTDOWN && grace_ms > ctl->shutdown_grace_ms)
        grace_ms = ctl->shutdown_grace_ms;
    job_set_replica_stopping(job, flat, true);
    r->reason = (uint8_t)why;
    ctl->ops.stop(ctl->ops.ctx, job, flat, grace_ms);
}

void job_release_if_done(struct controller *ctl, struct job *job)
{
    if (job->deleted && job->live_procs == 0) {
        cluster_remove_job(ctl->cluster, job);
        job_free(job);
    }
}

void controller_replica_exited(struct controller *ctl, struct job *job, int flat, const struct replica_exit *ex)
{
    struct replica *r = &job->replicas[flat];
    int task = job_task_of(job, flat), index = flat - job->task_first[task];
    char pod[320];
    job_pod_name(job, task, index, pod, sizeof pod);
    job->live_procs--;
    hold_resources(ctl, job, task, r->node, false);
    r->pid = 0;
    r->proc = -1;
    r->end_ms = ex->end_ms;
    r->exit_code = ex->exit_code;
    bool shutdown = false, requeue = false;
    if (r->stopping) {
        shutdown = r->reason == TERM_SHUTDOWN;
        requeue = shutdown || r->reason == TERM_EVICTED; /* both run again: the first at restart */
        job_set_replica_phase(job, flat, requeue ? POD_PENDING : POD_FAILED);
    } else if (ex->oom) {
        r->reason = TERM_OOMKILLED;
        job_set_replica_phase(job, flat, POD_FAILED);
    } else {
        r->reason = ex->exit_code == 0 ? TERM_COMPLETED : TERM_ERROR;
        job_set_replica_phase(job, flat, ex->exit_code == 0 ? POD_SUCCEEDED : POD_FAILED);
    }
    char detail[256] = "";
    if (ex->signal)
        snprintf(detail, sizeof detail, " (signal %d)", ex->signal);
    if (r->reason == TERM_EVICTED && r->message)
        snprintf(detail + strlen(detail), sizeof detail - strlen(detail), ": %s", r->message);
    struct journal_entry *e = record_event(ctl, JOURNAL_ATTEMPT_END, job, "Pod", pod, "Running", pod_phase_name(r->phase),
                                           term_reason_name(r->reason), "attempt %u exited with code %d%s", r->attempts,
                                           ex->exit_code, detail);
    if (e) {
        fill_attempt_row(e, ctl, job, task, index, pod, r);
        fill_attempt_end(e, r);
    }
    if (requeue)
        r->node = -1; /* back in line */
    if (job->deleted)
        job_release_if_done(ctl, job);
    else if (!shutdown)
        job_sync(ctl, job);
}

int controller_stop_all(struct controller *ctl)
{
    int stopped = 0;
    for (struct job *job = ctl->cluster->first; job; job = job->next) {
        for (int32_t i = 0; i < job->total_replicas; i++) {
            if (job->replicas[i].phase == POD_RUNNING && !job->replicas[i].stopping) {
                replica_stop(ctl, job, i, TERM_SHUTDOWN);
                stopped++;
            }
        }
    }
    return stopped;
}
