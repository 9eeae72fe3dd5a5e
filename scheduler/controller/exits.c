/* Replicas ending: a stop the controller asked for (a kill of the job, an eviction, a pod deletion,
 * a shutdown), or an exit of their own, which the pod's restartPolicy turns into a restart in
 * place after a back-off, autoMemoryScale into a bigger rerun after an OOM kill, and otherwise a
 * finished pod whose event (PodFailed, TaskCompleted) goes through the job's policies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "common/memory.h"
#include "model/gpu_usage.h"
#include "model/quantity.h"
#include "runtime/oci_args.h"
#include "scheduler/controller/internal.h"

static const char *format_bytes(int64_t v, char *buf, size_t len)
{
    if (quantity_format(v, 0, true, buf, len) < 0)
        snprintf(buf, len, "%lld", (long long)v);
    return buf;
}

/* Ours (seed 000): an OOM-killed replica of a job with autoMemoryScale runs again with its task's
 * memory request and limit times the rate, capped at maxMemory, without counting as a failure.
 * Only a replica that ran with the task's current memory scales it, so a burst of OOM kills of one
 * size scales once. Returns true when the replica is to run again. */
static bool scale_memory(struct controller *ctl, struct job *job, int flat, const char *pod)
{
    if (job->memory_scale_rate <= 1.0)
        return false;
    int task = job_task_of(job, flat);
    struct task_spec *ts = &job->tasks[task];
    int64_t cur_req = ts->request.v[RES_MEMORY], cur_lim = ts->limit.v[RES_MEMORY];
    int64_t base = cur_lim > 0 ? cur_lim : cur_req;
    if (base <= 0)
        return false; /* nothing to scale: no memory asked for */
    if (job->replicas[flat].memory >= cur_req) {
        if (base >= job->memory_scale_max)
            return false; /* at the ceiling: the OOM kill is a failure */
        double rate = job->memory_scale_rate;
        int64_t new_lim = cur_lim > 0 ? (int64_t)((double)cur_lim * rate) : 0;
        int64_t new_req = (int64_t)((double)cur_req * rate);
        if (new_lim > job->memory_scale_max)
            new_lim = job->memory_scale_max;
        if (new_req > job->memory_scale_max)
            new_req = job->memory_scale_max;
        char from[32], to[32];
        format_bytes(base, from, sizeof from);
        format_bytes(new_lim > 0 ? new_lim : new_req, to, sizeof to);
        if (volcano_job_set_task_memory(job, task, new_req, new_lim) != 0)
            return false;
        struct journal_entry *e = record_event(ctl, JOURNAL_JOB_SPEC, job, "Job", job->name,
                                               job_phase_name(job->status.phase), job_phase_name(job->status.phase),
                                               "MemoryScaled", "task %s: memory %s -> %s after OOMKilled (pod %s)",
                                               ts->name, from, to, pod);
        if (e) {
            e->job_uid = strdup(job->uid);
            e->spec_json = json_dumps(job_manifest(job), JSON_COMPACT);
        }
    }
    return true;
}

/* kubelet's restartPolicy: Always restarts any exit, OnFailure a failed one. */
static bool restarts_in_place(const struct task_spec *ts, bool failed)
{
    return ts->restart == RESTART_ALWAYS || (ts->restart == RESTART_ON_FAILURE && failed);
}

/* kubelet's CrashLoopBackOff: base, 2 x base, 4 x base ... up to the maximum. */
static int64_t backoff_ms(const struct controller *ctl, uint16_t restarts)
{
    int64_t d = ctl->backoff_base_ms > 0 ? ctl->backoff_base_ms : 10000;
    int64_t max = ctl->backoff_max_ms > 0 ? ctl->backoff_max_ms : 300000;
    for (uint16_t i = 1; i < restarts && d < max; i++)
        d *= 2;
    return d < max ? d : max;
}

static bool task_all_succeeded(const struct job *job, int task)
{
    return job->task_counts[task].succeeded >= job->tasks[task].replicas;
}

/* A task that failed while the file system of its working directory was full most likely failed
 * for that: its reason says so (DiskFull, in Kubernetes' eviction words). One statvfs, only for a
 * failed exit. */
static void check_disk_full(struct controller *ctl, struct job *job, int flat)
{
    struct replica *r = &job->replicas[flat];
    const struct task_spec *ts = &job->tasks[job_task_of(job, flat)];
    char dir[4200];
    if (ts->working_dir) {
        snprintf(dir, sizeof dir, "%s", ts->working_dir);
    } else {
        char job_dir[4096];
        controller_job_dir(ctl, job, job_dir, sizeof job_dir);
        snprintf(dir, sizeof dir, "%s/work", job_dir);
    }
    if (!disk_full_at(dir))
        return;
    char msg[4600];
    snprintf(msg, sizeof msg,
             "%s The file system of the working directory %s had no space left when the task "
             "exited with code %d.",
             DISK_FULL_WORDS, dir, r->exit_code);
    r->reason = TERM_DISK_FULL;
    free(r->message);
    r->message = strdup(msg);
}

/* One ended attempt of run_ms into the job's requested and used sums. */
static void job_usage_add(struct job_usage *u, const struct resvec *req, int64_t run_ms, const struct replica_exit *ex)
{
    double run_s = run_ms > 0 ? (double)run_ms / 1000.0 : 0.0;
    u->attempts++;
    u->cpu_requested_s += (double)req->v[RES_CPU] / 1000.0 * run_s;
    u->cpu_used_s += (double)ex->cpu_usec / 1e6;
    if (req->v[RES_MEMORY] > u->memory_requested)
        u->memory_requested = req->v[RES_MEMORY];
    if (ex->peak_memory > u->memory_peak)
        u->memory_peak = ex->peak_memory;
    u->gpu_requested_s += (double)req->v[RES_GPU] * run_s;
    if (ex->gpu.rounds > 0)
        u->gpu_used_s += (double)req->v[RES_GPU] * run_s * gpu_usage_mean(&ex->gpu) / 100.0;
}

void controller_replica_exited(struct controller *ctl, struct job *job, int flat, const struct replica_exit *ex)
{
    cluster_assert_owner(ctl->cluster);
    struct replica *r = &job->replicas[flat];
    int task = job_task_of(job, flat);
    const struct task_spec *ts = &job->tasks[task];
    char pod[320];
    job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
    job->live_procs--;
    r->pid = 0;
    r->proc = -1;
    r->end_ms = ex->end_ms;
    r->exit_code = ex->oom && ex->exit_code == 0 ? 137 : ex->exit_code;
    enum job_event event = EV_COUNT;
    const char *outcome = "";
    char detail[320] = "";
    bool oom = false;
    if (r->stopping) {
        event = replica_end_stopped(ctl, job, flat, &outcome);
    } else if (ex->unknown) { /* ended while the server was down, and nothing says how */
        replica_release(ctl, job, flat);
        job_set_replica_phase(job, flat, POD_PENDING);
        r->node = -1;
        r->reason = TERM_UNKNOWN;
        free(r->message);
        r->message = strdup("the attempt ended while the job server was down and nothing recorded how");
        replica_reborn(r);
        job_pod_created(ctl, job, flat);
        outcome = "Requeued";
        event = EV_UNKNOWN;
    } else {
        oom = ex->oom;
        bool failed = oom || ex->exit_code != 0;
        r->reason = oom ? TERM_OOMKILLED : failed ? TERM_ERROR : TERM_COMPLETED;
        if (ex->exec_errno) { /* its supervisor ran, the task could not: a start error, as in launch.c */
            r->reason = TERM_START_ERROR;
            r->exit_code = 128;
            free(r->message);
            char msg[512];
            snprintf(msg, sizeof msg, "exec: \"%s\": %s", ts->argv && ts->argv[0] ? ts->argv[0] : "",
                     strerror(ex->exec_errno));
            r->message = strdup(msg);
        } else if (ex->oci_failure) { /* podman could not start the container: its words */
            bool missing = ex->oci_failure == OCI_IMAGE_NOT_FOUND;
            r->reason = missing ? TERM_IMAGE_NEVER_PULL : TERM_START_ERROR;
            r->exit_code = 128;
            free(r->message);
            char msg[700];
            if (missing) /* kubelet's words for imagePullPolicy Never */
                snprintf(msg, sizeof msg, "Container image \"%s\" is not present with pull policy of Never (%s)",
                         ts->image ? ts->image : "", ex->oci_message);
            else
                snprintf(msg, sizeof msg, "%s", ex->oci_message);
            r->message = strdup(msg);
        } else if (failed && !oom && !job->backend) { /* an engine's task: not this machine's disk */
            check_disk_full(ctl, job, flat);
        }
        if (oom && scale_memory(ctl, job, flat, pod)) {
            replica_release(ctl, job, flat);
            job_set_replica_phase(job, flat, POD_PENDING);
            r->node = -1;
            replica_reborn(r);
            job_pod_created(ctl, job, flat);
            outcome = "Requeued";
            snprintf(detail, sizeof detail, "; memory scaled, it runs again");
        } else if (!job->backend && restarts_in_place(ts, failed) && !job_phase_final(job->status.phase)) {
            r->restarts++;
            r->backoff = true;
            int64_t delay = backoff_ms(ctl, r->restarts);
            struct controller_timer t = {.due_ms = ctl->now_ms + delay,
                                         .kind = TIMER_RESTART,
                                         .task = task,
                                         .flat = flat,
                                         .version = job->status.version,
                                         .attempt = r->attempts};
            timer_arm(ctl, job, &t);
            outcome = "Restarting";
            snprintf(detail, sizeof detail, "; restartPolicy %s: restart %u in %lld ms", ts->restart_policy,
                     r->restarts, (long long)delay);
            if (ts->max_retry >= 0 && r->restarts >= ts->max_retry)
                event = EV_TASK_FAILED;
        } else {
            replica_release(ctl, job, flat);
            job_set_replica_phase(job, flat, failed ? POD_FAILED : POD_SUCCEEDED);
            event = failed ? EV_POD_FAILED : EV_COUNT;
        }
    }
    char sig[48] = "";
    if (ex->signal)
        snprintf(sig, sizeof sig, " (signal %d)", ex->signal);
    if ((r->reason == TERM_EVICTED || r->reason == TERM_DELETED_POD || r->reason == TERM_DEADLINE ||
         r->reason == TERM_DISK_FULL) &&
        r->message)
        snprintf(detail + strlen(detail), sizeof detail - strlen(detail), ": %s", r->message);
    struct journal_entry *e = ex->unknown && !r->stopping
                                  ? record_event(ctl, JOURNAL_ATTEMPT_END, job, "Pod", pod, "Running",
                                                 pod_phase_name(r->phase), term_reason_name(r->reason),
                                                 "attempt %u ended while the server was down; its exit status "
                                                 "is unknown, so the pod is created again",
                                                 r->attempts)
                                  : record_event(ctl, JOURNAL_ATTEMPT_END, job, "Pod", pod, "Running",
                                                 pod_phase_name(r->phase), term_reason_name(r->reason),
                                                 "attempt %u exited with code %d%s%s", r->attempts, r->exit_code, sig,
                                                 detail);
    if (e) {
        fill_attempt_row(e, ctl, job, flat);
        fill_attempt_end(e, r, outcome);
        e->attempt.peak_memory = ex->peak_memory;
        e->attempt.cpu_usec = ex->cpu_usec;
        const struct resvec *req = &job->tasks[task].request;
        e->attempt.cpu_request_milli = req->v[RES_CPU];
        e->attempt.memory_request = req->v[RES_MEMORY];
        e->attempt.gpu_request = req->v[RES_GPU];
        job_usage_add(&job->usage, req, r->end_ms - r->start_ms, ex);
        if (ex->gpu.rounds > 0) {
            e->attempt.gpu_sampled = true;
            e->attempt.gpu_util_mean = gpu_usage_mean(&ex->gpu);
            e->attempt.gpu_util_peak = ex->gpu.util_peak;
            e->attempt.gpu_memory_peak = ex->gpu.memory_peak;
        }
    }
    if (job->deleted) {
        job_release_if_done(ctl, job);
        return;
    }
    if (r->reason == TERM_SHUTDOWN && r->phase == POD_PENDING)
        return;                       /* the server is stopping: nothing more to decide */
    if (r->phase == POD_ABSENT) {     /* removed by a kill; maybe the last a scale down waits for */
        job_finish_shrinks(ctl, job); /* may move replicas: r and flat are not used after it */
        job_sync(ctl, job);
        return;
    }
    if (r->phase == POD_SUCCEEDED && task_all_succeeded(job, task))
        event = EV_TASK_COMPLETED;
    if (event == EV_COUNT)
        job_sync(ctl, job);
    else
        job_raise(ctl, job, event, flat, event == EV_POD_FAILED, r->exit_code);
}

void controller_delete_pod(struct controller *ctl, struct job *job, int flat)
{
    cluster_assert_owner(ctl->cluster);
    struct replica *r = &job->replicas[flat];
    int task = job_task_of(job, flat);
    char pod[320];
    job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
    const char *from = pod_phase_name(r->phase);
    if (r->phase == POD_RUNNING && !r->backoff) {
        free(r->message);
        r->message = strdup("the pod was deleted");
        replica_stop(ctl, job, flat, TERM_DELETED_POD, false);
        return; /* PodEvicted once it has exited */
    }
    if (r->phase == POD_RUNNING)
        replica_stop(ctl, job, flat, TERM_DELETED_POD, false);
    else if (r->phase != POD_ABSENT) {
        replica_release(ctl, job, flat);
        job_set_replica_phase(job, flat, POD_PENDING);
        r->node = -1;
        replica_reborn(r);
        job_pod_created(ctl, job, flat);
    }
    record_event(ctl, JOURNAL_EVENT, job, "Pod", pod, from, "Pending", "Deleted",
                 "the pod was deleted; it is created again");
    job_raise(ctl, job, EV_POD_EVICTED, flat, false, 0);
}

#define DEADLINE_MESSAGE "Pod was active on the node longer than the specified deadline"

void replica_deadline_exceeded(struct controller *ctl, struct job *job, int flat, uint32_t born)
{
    if (flat >= job->total_replicas)
        return;
    struct replica *r = &job->replicas[flat];
    if (r->born != born || r->phase != POD_RUNNING || r->stopping)
        return; /* another pod by now, or one that ended or is being stopped */
    free(r->message);
    r->message = strdup(DEADLINE_MESSAGE);
    if (!r->backoff) {
        replica_stop(ctl, job, flat, TERM_DEADLINE, false); /* PodFailed once it has exited */
        return;
    }
    /* between two restarts in place: nothing runs, the pod fails now */
    int task = job_task_of(job, flat);
    char pod[320];
    job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
    r->backoff = false;
    r->reason = TERM_DEADLINE;
    replica_release(ctl, job, flat);
    job_set_replica_phase(job, flat, POD_FAILED);
    record_event(ctl, JOURNAL_EVENT, job, "Pod", pod, "Running", "Failed", "DeadlineExceeded", "%s", DEADLINE_MESSAGE);
    job_raise(ctl, job, EV_POD_FAILED, flat, true, r->exit_code);
}

int controller_stop_all(struct controller *ctl)
{
    cluster_assert_owner(ctl->cluster);
    int stopped = 0;
    for (struct job *job = ctl->cluster->first; job; job = job->next) {
        if (job->backend) /* runs on its engine on, and is followed again after the restart */
            continue;
        for (int32_t i = 0; i < job->total_replicas; i++) {
            if (job->replicas[i].phase == POD_RUNNING && !job->replicas[i].stopping && !job->replicas[i].backoff) {
                replica_stop(ctl, job, i, TERM_SHUTDOWN, false);
                stopped++;
            }
        }
    }
    return stopped;
}
