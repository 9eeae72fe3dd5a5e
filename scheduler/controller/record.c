/* Recording changes: every state change becomes one journal entry carrying its event, stamped
 * with the next global sequence number, which also becomes the job's resourceVersion. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "common/log.h"
#include "scheduler/controller/internal.h"

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
        log_error("out of memory recording event %llu (%s %s/%s: %s)", (unsigned long long)seq, kind, job->ns, name, message);
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
