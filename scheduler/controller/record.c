/* Recording changes: every state change becomes one journal entry carrying its event, stamped
 * with the next global sequence number, which also becomes the job's resourceVersion. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "adapters/objects/pod.h"
#include "common/log.h"
#include "scheduler/controller/internal.h"

/* The uid of the job's pod of that name as it is now (pods are told apart by it), NULL when none. */
static char *pod_uid_of(const struct job *job, const char *name)
{
    int task, index;
    char uid[UUID_STR_LEN];
    if (job_parse_pod_name(job, name, &task, &index) != 0)
        return NULL;
    pod_uid(job, job->task_first[task] + index, uid);
    return strdup(uid);
}

struct journal_entry *record_event(struct controller *ctl, enum journal_op op, struct job *job, const char *kind,
                                   const char *name, const char *from, const char *to, const char *reason,
                                   const char *fmt, ...)
{
    struct journal_entry *e = journal_entry_new(op);
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    cluster_assert_owner(ctl->cluster);
    uint64_t seq = ++ctl->cluster->seq;
    assert(seq > 0); /* never wraps */
    job->resource_version = seq;
    if (!e) {
        log_error("out of memory recording event %llu (%s %s/%s: %s)", (unsigned long long)seq, kind, job->ns, name,
                  message);
        return NULL;
    }
    struct journal_event *ev = &e->ev;
    ev->seq = seq;
    ev->time_ms = ctl->now_ms;
    ev->kind = strdup(kind);
    ev->ns = strdup(job->ns);
    ev->name = strdup(name);
    ev->job_uid = strdup(job->uid);
    ev->job_name = strdup(job->name);
    ev->from_phase = strdup(from ? from : "");
    ev->to_phase = strdup(to ? to : "");
    ev->reason = strdup(reason ? reason : "");
    ev->message = strdup(message);
    ev->uid = strcmp(kind, "Pod") == 0 ? pod_uid_of(job, name) : NULL;
    journal_list_push(&ctl->journal, e);
    return e;
}

struct journal_entry *record_object_event(struct controller *ctl, enum journal_op op, const char *kind, const char *ns,
                                          const char *name, uint64_t *rv, const char *from, const char *to,
                                          const char *reason, const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    cluster_assert_owner(ctl->cluster);
    *rv = ++ctl->cluster->seq;
    assert(*rv > 0);
    struct journal_entry *e = journal_entry_new(op);
    if (!e) {
        log_error("out of memory recording event %llu (%s %s/%s: %s)", (unsigned long long)*rv, kind, ns, name,
                  message);
        return NULL;
    }
    e->ev = (struct journal_event){
        .seq = *rv,
        .time_ms = ctl->now_ms,
        .kind = strdup(kind),
        .ns = strdup(ns),
        .name = strdup(name),
        .job_uid = strdup(""),
        .from_phase = strdup(from),
        .to_phase = strdup(to),
        .reason = strdup(reason),
        .message = strdup(message),
    };
    journal_list_push(&ctl->journal, e);
    return e;
}

void record_object_row(struct journal_entry *e, const char *kind, const char *ns, const char *name, char *json)
{
    if (!e) {
        free(json);
        return;
    }
    e->object_kind = strdup(kind);
    e->object_ns = strdup(ns);
    e->object_name = strdup(name);
    e->object_json = json;
}

void record_job_phase(struct controller *ctl, struct job *job, enum job_phase from, const char *reason,
                      const char *message)
{
    struct journal_entry *e = record_event(ctl, JOURNAL_JOB_STATUS, job, "Job", job->name, job_phase_name(from),
                                           job_phase_name(job->status.phase), reason, "%s", message ? message : "");
    if (!e)
        return;
    json_t *status = volcano_job_render_status(job);
    e->job_uid = strdup(job->uid);
    e->status_json = json_dumps(status, JSON_COMPACT);
    json_decref(status);
}

void fill_attempt_row(struct journal_entry *e, const struct controller *ctl, const struct job *job, int flat)
{
    const struct replica *r = &job->replicas[flat];
    int task = job_task_of(job, flat);
    char pod[320], rel[512];
    job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
    controller_log_relpath(job, pod, r->attempts, rel, sizeof rel);
    struct journal_attempt *a = &e->attempt;
    a->job_uid = strdup(job->uid);
    a->pod = strdup(pod);
    a->task = strdup(job->tasks[task].name);
    a->index = flat - job->task_first[task];
    a->attempt = (int32_t)r->attempts;
    a->job_version = job->status.version;
    a->node = strdup(r->node >= 0 ? ctl->cluster->nodes[r->node].name : "");
    a->pid = r->pid;
    a->start_ms = r->start_ms;
    a->log_path = strdup(rel);
    char gpus[GPU_DEVICES_MAX * 12] = "";
    if (r->node >= 0 && r->gpus_held)
        gpu_format(&ctl->cluster->nodes[r->node].gpus, r->gpus, false, gpus, sizeof gpus);
    a->gpus = strdup(gpus);
}

void fill_attempt_end(struct journal_entry *e, const struct replica *r, const char *outcome)
{
    struct journal_attempt *a = &e->attempt;
    a->end_ms = r->end_ms;
    a->exit_code = r->exit_code;
    a->reason = strdup(term_reason_name(r->reason));
    a->message = strdup(r->message ? r->message : "");
    a->outcome = strdup(outcome ? outcome : "");
}

void record_attempt_carry(struct controller *ctl, struct job *job, int flat)
{
    struct journal_entry *e = journal_entry_new(JOURNAL_ATTEMPT_CARRY);
    if (!e)
        return;
    /* No event of its own: it rides on the kill's sequence number, which the next record_event
     * stamps; until then the store sees it as part of the same batch. */
    const struct replica *r = &job->replicas[flat];
    int task = job_task_of(job, flat);
    char pod[320];
    job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
    e->ev.seq = ++ctl->cluster->seq;
    job->resource_version = e->ev.seq;
    e->ev.time_ms = ctl->now_ms;
    e->ev.kind = strdup("Pod");
    e->ev.ns = strdup(job->ns);
    e->ev.name = strdup(pod);
    e->ev.job_uid = strdup(job->uid);
    e->ev.job_name = strdup(job->name);
    e->ev.from_phase = strdup(pod_phase_name(r->phase));
    e->ev.to_phase = strdup(pod_phase_name(r->phase));
    e->ev.reason = strdup("Kept");
    e->ev.message = strdup("the pod is kept through the kill of its job");
    e->attempt.job_uid = strdup(job->uid);
    e->attempt.pod = strdup(pod);
    e->attempt.attempt = (int32_t)r->attempts;
    e->attempt.job_version = job->status.version;
    journal_list_push(&ctl->journal, e);
}
