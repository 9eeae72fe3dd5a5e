/* Updates of a running job, as Volcano's webhook allows them: minAvailable, priorityClassName and
 * each task's replicas and minAvailable (an elastic scale); anything else is refused. A scale up
 * creates pods at once; a scale down stops the last pods of a task and lays the replicas out
 * again once they are gone. The change raises JobUpdated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "scheduler/controller/internal.h"

/* Stops (or removes) a task's pods from index `from` on: they are gone for good. */
static void drop_tail(struct controller *ctl, struct job *job, int task, int32_t from)
{
    for (int32_t i = from; i < job->tasks[task].replicas; i++) {
        int flat = job->task_first[task] + i;
        struct replica *r = &job->replicas[flat];
        if (r->phase == POD_RUNNING) {
            replica_stop(ctl, job, flat, TERM_STOPPED, true);
        } else if (r->phase != POD_ABSENT) {
            if (r->phase == POD_PENDING && r->node >= 0)
                replica_release(ctl, job, flat);
            job_set_replica_phase(job, flat, POD_ABSENT);
            r->node = -1;
        }
    }
}

/* The new replica counts: growth at once, shrinking once the extra pods are gone. */
static int scale(struct controller *ctl, struct job *job, const struct job *upd)
{
    int32_t *counts = malloc((size_t)job->ntasks * sizeof *counts);
    if (!counts)
        return -1;
    bool grow = false;
    for (int t = 0; t < job->ntasks; t++) {
        struct task_spec *ts = &job->tasks[t];
        int32_t want = upd->tasks[t].replicas;
        counts[t] = ts->replicas;
        if (want < ts->replicas) {
            ts->shrink_to = want;
            drop_tail(ctl, job, t, want);
        } else {
            ts->shrink_to = -1; /* a shrink cancelled by this update: the stopped pods come back */
            counts[t] = want;
            grow = grow || want != ts->replicas;
        }
    }
    int rc = grow ? replicas_relayout(ctl, job, counts) : 0;
    free(counts);
    job_finish_shrinks(ctl, job);
    return rc;
}

static int check_resource_version(const struct job *job, const struct job *upd, struct api_status *st)
{
    const char *rv = json_string_value(
        json_object_get(json_object_get(job_manifest(upd), "metadata"), "resourceVersion"));
    if (!rv || !*rv || strtoull(rv, NULL, 10) == job->resource_version)
        return 0;
    api_set_details(st, "jobs", "batch.volcano.sh", job->name);
    return api_fail(st, 409, "Conflict",
                    "Operation cannot be fulfilled on jobs.batch.volcano.sh \"%s\": the object has been modified; "
                    "please apply your changes to the latest version and try again",
                    job->name);
}

int controller_update_job(struct controller *ctl, struct job *job, struct job *upd, struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    if (check_resource_version(job, upd, st) != 0 || volcano_job_check_update(job, upd, st) != 0)
        return -1;
    if (upd->priority_class && (!job->priority_class || strcmp(upd->priority_class, job->priority_class) != 0)) {
        if (controller_admit_priority(ctl, upd, st) != 0)
            return -1;
        free(job->priority_class);
        job->priority_class = strdup(upd->priority_class);
        job->priority = upd->priority;
        for (int t = 0; t < job->ntasks && t < upd->ntasks; t++) /* the tasks without a class of their own */
            job->tasks[t].priority = upd->tasks[t].priority;
    }
    if (scale(ctl, job, upd) != 0)
        return api_fail(st, 500, "InternalError", "out of memory");
    job->min_available = upd->min_available;
    for (int t = 0; t < job->ntasks; t++)
        job->tasks[t].min_available = upd->tasks[t].min_available;
    volcano_job_adopt_manifest(job, upd);
    volcano_job_min_resources(job);
    job_count_replicas(job);
    const char *phase = job_phase_name(job->status.phase);
    struct journal_entry *e = record_event(ctl, JOURNAL_JOB_SPEC, job, "Job", job->name, phase, phase, "Updated",
                                           "the job was updated: minAvailable %d, %d replicas", job->min_available,
                                           job->total_replicas);
    if (e) {
        json_t *status = volcano_job_render_status(job);
        e->job_uid = strdup(job->uid);
        e->spec_json = json_dumps(job_manifest(job), JSON_COMPACT);
        e->status_json = json_dumps(status, JSON_COMPACT);
        json_decref(status);
    }
    job_raise(ctl, job, EV_JOB_UPDATED, -1, false, 0);
    return 0;
}

int controller_update_source(struct controller *ctl, struct job *job, json_t *source, int64_t deadline_s,
                             const char *what, struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    const char *phase = job_phase_name(job->status.phase);
    if (job_phase_final(job->status.phase) || job->dormant) {
        json_decref(source);
        api_set_details(st, "jobs", "batch.volcano.sh", job->name);
        return api_fail(st, 409, "Conflict", "job %s has finished (%s): it cannot be changed", job->name, phase);
    }
    if (deadline_s > 0 && volcano_job_set_deadline(job, deadline_s) != 0) {
        json_decref(source);
        return api_fail(st, 500, "InternalError", "out of memory");
    }
    json_decref(job->source);
    job->source = source;
    for (int32_t flat = 0; deadline_s > 0 && flat < job->total_replicas; flat++) {
        const struct replica *r = &job->replicas[flat];
        if (r->phase != POD_RUNNING || r->stopping)
            continue;
        struct controller_timer t = {.due_ms = r->start_ms + deadline_s * 1000,
                                     .kind = TIMER_DEADLINE,
                                     .task = job_task_of(job, flat),
                                     .flat = flat,
                                     .version = job->status.version,
                                     .attempt = r->born,
                                     .deadline_s = deadline_s};
        timer_arm(ctl, job, &t); /* the one armed before is stale now */
    }
    struct journal_entry *e = record_event(ctl, JOURNAL_JOB_SPEC, job, "Job", job->name, phase, phase, "Updated",
                                           "the job was updated: %s", what && *what ? what : "no change");
    if (e) {
        e->job_uid = strdup(job->uid);
        e->spec_json = json_dumps(job_manifest(job), JSON_COMPACT);
        e->source_json = json_dumps(job->source, JSON_COMPACT);
    }
    return 0;
}
