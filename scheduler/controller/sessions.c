/* Debug sessions' idle end (issue 14): a job annotated caldera.io/debug-session whose every companion
 * was stopped for idleness is ended by TerminateJob, reason SessionIdle, recorded in its history. */
#include <stdio.h>
#include <string.h>

#include "common/sbuf.h"
#include "scheduler/controller/companions.h"
#include "scheduler/controller/internal.h"

static bool is_session(const struct job *job)
{
    const json_t *ann = job_annotations(job);
    const char *v = json_string_value(json_object_get(ann, SESSION_ANNOTATION));
    return v && strcmp(v, "true") == 0;
}

static bool idle_cleaned(const struct companion *c)
{
    return c->phase == COMPANION_CLEANED && c->reason && strcmp(c->reason, "Idle") == 0;
}

/* Every companion of the job Cleaned for idleness (at least one): the message names their timeouts. */
static bool all_idle(const struct companion_set *set, const struct job *job, struct sbuf *why)
{
    int n = 0;
    for (int i = 0; i < set->n; i++) {
        const struct companion *c = set->items[i];
        if (strcmp(c->job_uid, job->uid) != 0)
            continue;
        if (!idle_cleaned(c))
            return false;
        const struct companion_type *type = companion_types_find(set->types, c->type);
        long long ms = type ? (long long)type->idle_timeout_ms : 0;
        if (ms % 1000 == 0)
            sbuf_printf(why, "%s%s %llds", n ? ", " : "", c->type, ms / 1000);
        else
            sbuf_printf(why, "%s%s %lldms", n ? ", " : "", c->type, ms);
        n++;
    }
    return n > 0;
}

void controller_sessions_idle(struct controller *ctl)
{
    const struct companion_set *set = ctl->companions;
    for (int i = 0; set && i < set->n; i++) {
        const struct companion *c = set->items[i];
        if (!idle_cleaned(c))
            continue;
        struct job *job = cluster_find_job_uid(ctl->cluster, c->job_uid);
        if (!job || job->deleted || job->dormant || job->status.phase != JOB_RUNNING || !is_session(job))
            continue;
        struct sbuf why = {0};
        if (all_idle(set, job, &why)) {
            char message[600];
            snprintf(message, sizeof message, "SessionIdle: every companion idle for its idle timeout (%s)",
                     sbuf_str(&why));
            job_end_early(ctl, job, ACT_TERMINATE_JOB, "SessionIdle", message);
        }
        sbuf_free(&why);
    }
}
