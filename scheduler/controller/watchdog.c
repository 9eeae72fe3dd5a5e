/* The WatchDog's notices on the core thread: what this iteration's journal says about jobs (finished,
 * failed, memory scaled up, pods evicted) and jobs pending too long, each rendered per webhook and
 * handed to the sender, which never makes the core wait. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/notice_body.h"
#include "common/duration.h"
#include "common/log.h"
#include "scheduler/controller/internal.h"
#include "scheduler/watchdog/notifier.h"

#define TICK_MS 1000

static const char *annotation(const struct job *job, const char *key)
{
    const json_t *ann = job_annotations(job);
    return json_string_value(json_object_get(ann, key));
}

void controller_record_job_event(struct controller *ctl, struct job *job, const char *reason, const char *message)
{
    const char *phase = job_phase_name(job->status.phase);
    record_event(ctl, JOURNAL_EVENT, job, "Job", job->name, phase, phase, reason, "%s", message);
}

void controller_notify(struct controller *ctl, const struct job *job, enum notice_kind kind, const char *reason,
                       const char *pod, const int32_t *exit_code, const char *message)
{
    if (!ctl->watchdog || !ctl->notifier)
        return;
    const char *user = annotation(job, WATCHDOG_USER_ANNOTATION);
    int targets[WATCHDOG_TARGETS_MAX], unknown = 0;
    int n = watchdog_targets(ctl->watchdog, kind, job->ns, user, annotation(job, WATCHDOG_NOTIFY_ANNOTATION), targets,
                             WATCHDOG_TARGETS_MAX, &unknown);
    if (unknown > 0)
        log_warn("watchdog: job %s/%s names %d webhook%s the WatchDog does not know in %s", job->ns, job->name, unknown,
                 unknown == 1 ? "" : "s", WATCHDOG_NOTIFY_ANNOTATION);
    if (n == 0)
        return;
    bool finished = job->status.phase == JOB_COMPLETED || job->status.phase == JOB_FAILED ||
                    job->status.phase == JOB_TERMINATED || job->status.phase == JOB_ABORTED;
    const struct notice notice = {
        .kind = kind,
        .ns = job->ns,
        .job = job->name,
        .uid = job->uid,
        .user = user ? user : "",
        .queue = job->queue,
        .phase = job_phase_name(job->status.phase),
        .reason = reason ? reason : "",
        .message = message ? message : "",
        .pod = pod ? pod : "",
        .exit_code = exit_code ? *exit_code : 0,
        .has_exit_code = exit_code != NULL,
        .created_ms = job->created_ms,
        .started_ms = job->status.running_since_ms,
        .finished_ms = finished ? job->status.transition_ms : 0,
        .time_ms = ctl->now_ms,
    };
    for (int i = 0; i < n; i++)
        notifier_post(ctl->notifier, targets[i], notice_body(&notice, ctl->watchdog->webhooks[targets[i]].format));
}

/* The pod that failed last: a Failed replica with the latest end, else any with a non-zero exit. */
static int failing_replica(const struct job *job)
{
    int best = -1;
    for (int flat = 0; flat < job->total_replicas; flat++) {
        const struct replica *r = &job->replicas[flat];
        if (r->attempts == 0 || (r->phase != POD_FAILED && r->exit_code == 0))
            continue;
        if (best < 0 || (r->phase == POD_FAILED && job->replicas[best].phase != POD_FAILED) ||
            ((r->phase == POD_FAILED) == (job->replicas[best].phase == POD_FAILED) &&
             r->end_ms > job->replicas[best].end_ms))
            best = flat;
    }
    return best;
}

static void notify_end(struct controller *ctl, const struct job *job, const struct journal_event *ev)
{
    bool failed = job->status.phase == JOB_FAILED;
    const char *reason = job->status.reason ? job->status.reason : ev->reason;
    if (!failed) {
        controller_notify(ctl, job, NOTICE_COMPLETED, reason, NULL, NULL, ev->message);
        return;
    }
    int flat = failing_replica(job);
    char pod[320] = "";
    int32_t code = 0;
    if (flat >= 0) {
        int task = job_task_of(job, flat);
        job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
        code = job->replicas[flat].exit_code;
    }
    const char *message = job->status.message && *job->status.message ? job->status.message : ev->message;
    controller_notify(ctl, job, NOTICE_FAILED, reason, pod, flat >= 0 ? &code : NULL, message);
}

/* An eviction's attempt end names its pod; the notice carries the eviction's message. */
static void notify_eviction(struct controller *ctl, const struct job *job, const struct journal_event *ev)
{
    int task, index;
    const char *message = ev->message;
    if (job_parse_pod_name(job, ev->name, &task, &index) == 0) {
        const struct replica *r = job_replica((struct job *)job, task, index);
        if (r->message && *r->message)
            message = r->message;
    }
    controller_notify(ctl, job, NOTICE_EVICTED, ev->reason, ev->name, NULL, message);
}

void controller_watchdog_scan(struct controller *ctl)
{
    if (!ctl->watchdog || !ctl->notifier)
        return;
    for (const struct journal_entry *e = ctl->journal.head; e; e = e->next) {
        const struct journal_event *ev = &e->ev;
        if (!ev->kind || !ev->job_uid || !*ev->job_uid)
            continue;
        bool end = e->op == JOURNAL_JOB_STATUS && strcmp(ev->kind, "Job") == 0 &&
                   strcmp(ev->from_phase, ev->to_phase) != 0 &&
                   (strcmp(ev->to_phase, "Completed") == 0 || strcmp(ev->to_phase, "Failed") == 0);
        bool scaled = strcmp(ev->kind, "Job") == 0 && strcmp(ev->reason, "MemoryScaled") == 0;
        bool evicted = e->op == JOURNAL_ATTEMPT_END && strcmp(ev->kind, "Pod") == 0 &&
                       strcmp(ev->reason, term_reason_name(TERM_EVICTED)) == 0;
        if (!end && !scaled && !evicted)
            continue;
        const struct job *job = cluster_find_job_uid(ctl->cluster, ev->job_uid);
        if (!job || job->dormant)
            continue;
        if (end)
            notify_end(ctl, job, ev);
        else if (scaled)
            controller_notify(ctl, job, NOTICE_MEMORY_SCALED, ev->reason, NULL, NULL, ev->message);
        else
            notify_eviction(ctl, job, ev);
    }
}

void controller_watchdog_tick(struct controller *ctl)
{
    if (!ctl->watchdog || !ctl->notifier || ctl->watchdog->pending_ms <= 0 ||
        ctl->now_ms - ctl->watchdog_checked_ms < TICK_MS)
        return;
    ctl->watchdog_checked_ms = ctl->now_ms;
    for (struct job *job = ctl->cluster->active_first; job; job = job->active_next) {
        int64_t since = job->status.transition_ms > 0 ? job->status.transition_ms : job->created_ms;
        if (job->deleted || job->watchdog.pending_noticed || job->status.phase != JOB_PENDING ||
            ctl->now_ms - since < ctl->watchdog->pending_ms)
            continue;
        job->watchdog.pending_noticed = true; /* since it entered Pending (a restart makes it Pending again) */
        char message[1200], waited[32];
        snprintf(message, sizeof message, "pending for %s%s%s",
                 duration_text(ctl->now_ms - since, waited, sizeof waited), job->pg.unschedulable ? ": " : "",
                 job->pg.unschedulable ? job->pg.unschedulable : "");
        controller_notify(ctl, job, NOTICE_PENDING, "PendingTooLong", NULL, NULL, message);
    }
}
