/* Jobs entering and leaving the API: the checks that need live state (name taken, queue missing or
 * closed), the server-set fields (uid, creation time), and deletion that keeps history. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "scheduler/framework/zones.h"
#include "scheduler/controller/internal.h"
#include "scheduler/controller/remote.h"
#include "scheduler/controller/job_plugins/job_plugins.h"

#define DEFAULT_PORT_FIRST 20000
#define DEFAULT_PORT_LAST 59999

static bool queue_has_children(const struct cluster *c, const char *name)
{
    for (int i = 0; i < c->nqueues; i++)
        if (c->queues[i]->parent && strcmp(c->queues[i]->parent, name) == 0)
            return true;
    return false;
}

/* What admission checks against live state, each a field cause: the queue (exists, Open, a leaf
 * of the hierarchy), the scheduler (a zone), the priority class. */
static int check_live_fields(struct controller *ctl, struct job *job, struct api_status *st)
{
    const struct queue *q = cluster_find_queue(ctl->cluster, job->queue);
    if (!q)
        api_add_cause(st, "spec.queue", "FieldValueNotFound", 0, 0, "Not found: \"%s\": no such queue", job->queue);
    else if (q->state != QUEUE_OPEN)
        api_add_cause(st, "spec.queue", "FieldValueForbidden", 0, 0,
                      "Forbidden: queue \"%s\" is %s and accepts no new jobs", job->queue, queue_state_name(q->state));
    else if (queue_has_children(ctl->cluster, q->name))
        api_add_cause(st, "spec.queue", "FieldValueForbidden", 0, 0,
                      "Forbidden: queue \"%s\" has child queues; jobs go to leaf queues", job->queue);
    if (ctl->zones && zone_table_find(ctl->zones, job->scheduler_name) < 0) {
        char names[256];
        api_add_cause(st, "spec.schedulerName", "FieldValueNotSupported", 0, 0,
                      "Unsupported value: \"%s\": supported values: %s", job->scheduler_name,
                      zone_table_names(ctl->zones, names, sizeof names));
    }
    struct api_status pst = {0};
    if (controller_admit_priority(ctl, job, &pst) != 0)
        for (int i = 0; i < pst.ncauses && i < API_MAX_CAUSES; i++)
            api_add_cause(st, pst.causes[i].field, pst.causes[i].reason, 0, 0, "%s", pst.causes[i].message);
    if (st->ncauses == 0)
        return 0;
    api_fail_invalid(st, "Job.batch.volcano.sh", job->name);
    api_set_details(st, "Job", "batch.volcano.sh", job->name);
    return -1;
}

/* A block of consecutive ports no live job uses, first fit in the controller's range. Every
 * replica runs on this machine, so two jobs' masters may not both listen on 23456. */
static int allocate_ports(struct controller *ctl, struct job *job, struct api_status *st)
{
    int32_t need = job_plugins_ports_needed(job);
    if (need <= 0)
        return 0;
    int32_t first = ctl->port_first > 0 ? ctl->port_first : DEFAULT_PORT_FIRST;
    int32_t last = ctl->port_last > 0 ? ctl->port_last : DEFAULT_PORT_LAST;
    int32_t base = first;
    for (bool moved = true; moved && base + need - 1 <= last;) {
        moved = false;
        for (struct job *o = ctl->cluster->first; o; o = o->next) {
            int32_t n = o->port_base > 0 ? job_plugins_ports_needed(o) : 0;
            if (n > 0 && base < o->port_base + n && o->port_base < base + need) {
                base = o->port_base + n;
                moved = true;
            }
        }
    }
    if (base + need - 1 > last)
        return api_fail(st, 503, "ServiceUnavailable",
                        "no block of %d free ports left in %d-%d for the job's plugins; retry when jobs finish", need,
                        first, last);
    job->port_base = base;
    return 0;
}

/* Tasks with dependsOn have no pods until the tasks they depend on run (job_sync creates them). */
static void hold_back_dependents(struct job *job)
{
    for (int t = 0; t < job->ntasks; t++)
        if (job->tasks[t].ndepends > 0)
            for (int32_t i = job->task_first[t]; i < job->task_first[t] + job->tasks[t].replicas; i++)
                job_set_replica_phase(job, i, POD_ABSENT);
}

int controller_create_job(struct controller *ctl, struct job *job, uint64_t *seq, struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    if (cluster_find_job(ctl->cluster, job->ns, job->name)) {
        api_set_details(st, "jobs", "batch.volcano.sh", job->name);
        return api_fail(st, 409, "AlreadyExists", "jobs.batch.volcano.sh \"%s\" already exists", job->name);
    }
    if (check_live_fields(ctl, job, st) != 0 || allocate_ports(ctl, job, st) != 0)
        return -1;
    job->backend = (uint8_t)backend_conf_route(ctl->backend_conf, job->queue);
    if (ctl->ops.new_uid)
        ctl->ops.new_uid(ctl->ops.ctx, job->uid);
    else
        uuid_v4(job->uid);
    job->created_ms = ctl->now_ms;
    if (!(job->key = job_key_new(job->ns, job->name)))
        return api_fail(st, 500, "InternalError", "out of memory");
    if (volcano_job_stamp_metadata(job) != 0 || cluster_add_job(ctl->cluster, job) != 0)
        return api_fail(st, 500, "InternalError", "out of memory");
    job->status.phase = JOB_PENDING;
    job->status.transition_ms = ctl->now_ms;
    job->pg.phase = PG_PENDING;
    job->pg.transition_ms = ctl->now_ms;
    hold_back_dependents(job);
    job_count_replicas(job);
    job->watch_shown = WATCH_SHOWN_HIDDEN; /* watches see it appear (ADDED), its pods once they exist */
    for (int32_t i = 0; i < job->total_replicas; i++)
        job->replicas[i].watch_shown = WATCH_SHOWN_HIDDEN;
    struct journal_entry *e = record_event(ctl, JOURNAL_JOB_CREATE, job, "Job", job->name, "", "Pending", "Created",
                                           "job created in queue %s", job->queue);
    if (e) {
        json_t *status = volcano_job_render_status(job);
        e->job_uid = strdup(job->uid);
        e->ns = strdup(job->ns);
        e->name = strdup(job->name);
        e->created_ms = job->created_ms;
        e->spec_json = json_dumps(job_manifest(job), JSON_COMPACT);
        e->status_json = json_dumps(status, JSON_COMPACT);
        e->source_json = job->source ? json_dumps(job->source, JSON_COMPACT) : NULL;
        json_decref(status);
    }
    *seq = job->resource_version;
    return 0;
}

uint64_t controller_delete_job(struct controller *ctl, struct job *job)
{
    cluster_assert_owner(ctl->cluster);
    cluster_unname_job(ctl->cluster, job);
    job->deleted = true;
    struct journal_entry *e = record_event(ctl, JOURNAL_JOB_DELETE, job, "Job", job->name,
                                           job_phase_name(job->status.phase), "", "Deleted", "job deleted");
    if (e)
        e->job_uid = strdup(job->uid);
    controller_watch_job_deleted(ctl, job, e);
    uint64_t seq = job->resource_version;
    if (job->backend)
        remote_job_deleted(ctl, job);
    for (int32_t i = 0; i < job->total_replicas; i++)
        replica_stop(ctl, job, i, TERM_DELETED, false);
    if (job->timers > 0)
        timers_cancel(ctl, job, -1, 0);
    job_release_if_done(ctl, job);
    return seq;
}

int controller_command(struct controller *ctl, struct job *job, enum job_action action, const char *reason,
                       const char *command_json, struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    if (!job_action_for_jobs(action))
        return api_fail(st, 422, "Invalid",
                        "action %s does not apply to a job; supported: AbortJob, RestartJob, "
                        "RestartTask, RestartPod, TerminateJob, CompleteJob, ResumeJob",
                        job_action_name(action));
    const char *phase = job_phase_name(job->status.phase);
    char why[300];
    int remote = job->backend ? remote_command(ctl, job, action, st) : 1;
    if (remote < 0)
        return -1;
    snprintf(why, sizeof why, "command %s%s%s", job_action_name(action), reason && *reason ? ": " : "",
             reason ? reason : "");
    struct journal_entry *e = record_event(ctl, JOURNAL_COMMAND, job, "Job", job->name, phase, phase, "CommandIssued",
                                           "%s", why);
    if (e) {
        e->job_uid = strdup(job->uid);
        e->ns = strdup(job->ns);
        e->name = strdup(job->name);
        e->command_action = strdup(job_action_name(action));
        e->command_reason = strdup(reason ? reason : "");
        e->command_json = strdup(command_json ? command_json : "{}");
    }
    if (remote == 1) /* else the engine carries it out, and its phases come back */
        job_execute_command(ctl, job, action, why);
    return 0;
}
