/* Rebuilding the live state from the store at start-up: queues, jobs (re-admitted through the same
 * parser as a submit), and their replicas from their attempts. An attempt recorded as running (the
 * last run crashed, or stopped keeping its tasks) is adopted again when its process still runs,
 * else ended with the status its supervisor wrote, else as Unknown for the policies to decide. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake.h"
#include "adapters/queue.h"
#include "adapters/volcano_job.h"
#include "common/log.h"
#include "scheduler/controller/internal.h"
#include "scheduler/controller/objects.h"

int controller_restore_queue(struct controller *ctl, const struct store_queue_row *row)
{
    struct queue *q = queue_from_store_json(row->json);
    if (!q || cluster_add_queue(ctl->cluster, q) != 0) {
        log_error("cannot restore queue %s from the database", row->name);
        queue_free(q);
        return -1;
    }
    return 0;
}

int controller_restore_job(struct controller *ctl, const struct store_job_row *row)
{
    struct api_status st = {0};
    struct intake in;
    struct job *job = NULL;
    if (intake_parse(row->spec_json, strlen(row->spec_json), INTAKE_JSON, &in, &st) != 0 || in.ndocs != 1) {
        log_error("job %s/%s (%s): stored spec unreadable: %s", row->ns, row->name, row->uid, st.message);
        return -1;
    }
    int rc = volcano_job_from_doc(&in.docs[0], row->ns, &job, &st);
    intake_free(&in);
    if (rc != 0) {
        log_error("job %s/%s (%s): stored spec no longer valid: %s", row->ns, row->name, row->uid, st.message);
        return -1;
    }
    snprintf(job->uid, sizeof job->uid, "%s", row->uid);
    job->created_ms = row->created_ms;
    job->resource_version = row->resource_version;
    if (asprintf(&job->key, "%s/%s", job->ns, job->name) < 0 || volcano_job_restore_status(job, row->status_json) != 0 ||
        cluster_add_job(ctl->cluster, job) != 0) {
        log_error("job %s/%s (%s): stored status unreadable", row->ns, row->name, row->uid);
        if (job->key == NULL || !cluster_find_job_uid(ctl->cluster, job->uid))
            job_free(job);
        return -1;
    }
    job->pg.phase = job->status.phase == JOB_PENDING ? PG_PENDING : PG_INQUEUE;
    /* No pod until an attempt of this version says there is one; the sync after recovery creates
     * again what a live job misses. */
    for (int32_t i = 0; i < job->total_replicas; i++)
        job_set_replica_phase(job, i, POD_ABSENT);
    return 0;
}

/* An attempt recorded as running: the pod runs (as far as anyone knows) until recovery has asked the
 * runtime whether its process is still there (adopt_recovered). */
static int remember_running(struct controller *ctl, struct job *job, int flat, const struct store_attempt_row *row)
{
    struct replica *r = &job->replicas[flat];
    if (ctl->nrecovered == ctl->recovered_cap) {
        int cap = ctl->recovered_cap ? ctl->recovered_cap * 2 : 64;
        struct recovered_attempt *grown = realloc(ctl->recovered, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        ctl->recovered = grown;
        ctl->recovered_cap = cap;
    }
    struct recovered_attempt *ra = &ctl->recovered[ctl->nrecovered++];
    snprintf(ra->job_uid, sizeof ra->job_uid, "%s", job->uid);
    ra->flat = flat;
    ra->pid = row->pid;
    ra->pid_start = row->pid_start;
    ra->attempt = (uint32_t)row->attempt;
    ra->node = cluster_find_node(ctl->cluster, row->node ? row->node : "");
    r->start_ms = row->start_ms;
    r->born = (uint32_t)row->attempt - 1;
    job_set_replica_phase(job, flat, POD_RUNNING);
    return 0;
}

int controller_restore_attempt(struct controller *ctl, const struct store_attempt_row *row)
{
    struct job *job = cluster_find_job_uid(ctl->cluster, row->job_uid);
    int task, index;
    if (!job || job_parse_pod_name(job, row->pod, &task, &index) != 0)
        return 0; /* an attempt of a job that is gone or changed shape: history only */
    int flat = job->task_first[task] + index;
    struct replica *r = &job->replicas[flat];
    if ((uint32_t)row->attempt > r->attempts)
        r->attempts = (uint32_t)row->attempt;
    if (row->job_version != job->status.version && row->kept_version != job->status.version)
        return 0; /* from before a kill of the whole job that removed its pod */
    if (!row->ended)
        return remember_running(ctl, job, flat, row);
    int reason = term_reason_parse(row->reason ? row->reason : "");
    r->reason = (uint8_t)(reason < 0 ? TERM_ERROR : reason);
    r->exit_code = row->exit_code;
    r->start_ms = row->start_ms;
    r->end_ms = row->end_ms;
    r->node = cluster_find_node(ctl->cluster, row->node ? row->node : "");
    free(r->message);
    r->message = row->message && *row->message ? strdup(row->message) : NULL;
    const char *outcome = row->outcome ? row->outcome : "";
    enum pod_phase phase;
    if (strcmp(outcome, "Deleted") == 0)
        phase = POD_ABSENT; /* removed by a kill of the job */
    else if (*outcome || r->reason == TERM_SHUTDOWN || r->reason == TERM_UNKNOWN)
        phase = POD_PENDING; /* requeued, restarting in place, stopped by a shutdown or lost: it runs again */
    else
        phase = r->reason == TERM_COMPLETED ? POD_SUCCEEDED : POD_FAILED;
    job_set_replica_phase(job, flat, phase);
    r->born = (uint32_t)row->attempt - 1; /* as near as the rows tell: in-place restarts are not kept */
    if (phase != POD_SUCCEEDED && phase != POD_FAILED) {
        r->node = -1;
        replica_reborn(r);
    }
    return 0;
}

/* Asks the runtime about one attempt recorded as running: watched again, or ended meanwhile (its
 * real status, or Unknown), which then goes through the pod's and job's policies like any exit. */
static void adopt_one(struct controller *ctl, struct job *job, const struct recovered_attempt *ra)
{
    int flat = ra->flat;
    struct replica *r = &job->replicas[flat];
    r->node = -1;
    if (ra->node >= 0)
        replica_hold(ctl, job, flat, ra->node);
    job->live_procs++;
    struct replica_exit ex = {.unknown = true, .exit_code = -1, .end_ms = ctl->now_ms};
    if (ctl->ops.adopt && ctl->ops.adopt(ctl->ops.ctx, job, flat, ra->pid, ra->pid_start, &ex) == 1) {
        int task = job_task_of(job, flat);
        char pod[320];
        job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
        record_event(ctl, JOURNAL_EVENT, job, "Pod", pod, "Running", "Running", "Adopted",
                     "attempt %u (pid %d) outlived the server's restart and is watched again", ra->attempt, ra->pid);
        if (ra->node < 0) { /* its node left the configuration: it cannot stay */
            free(r->message);
            r->message = strdup("its node is no longer configured");
            replica_stop(ctl, job, flat, TERM_EVICTED, false);
        }
        return;
    }
    controller_replica_exited(ctl, job, flat, &ex);
}

/* Every attempt recorded as running when the last run ended, in load order. */
static void adopt_recovered(struct controller *ctl)
{
    for (int i = 0; i < ctl->nrecovered; i++) {
        const struct recovered_attempt *ra = &ctl->recovered[i];
        struct job *job = cluster_find_job_uid(ctl->cluster, ra->job_uid);
        if (!job || ra->flat >= job->total_replicas)
            continue;
        const struct replica *r = &job->replicas[ra->flat];
        if (r->phase != POD_RUNNING || r->attempts != ra->attempt)
            continue; /* a later row superseded it: its process, if any, is swept as an orphan */
        adopt_one(ctl, job, ra);
    }
    free(ctl->recovered);
    ctl->recovered = NULL;
    ctl->nrecovered = ctl->recovered_cap = 0;
}

int controller_finish_recovery(struct controller *ctl)
{
    if (controller_finish_objects(ctl) != 0)
        return -1;
    if (!cluster_find_queue(ctl->cluster, "default")) {
        struct queue *q = queue_new_default(ctl->now_ms);
        if (!q || cluster_add_queue(ctl->cluster, q) != 0) {
            queue_free(q);
            return -1;
        }
        struct journal_entry *e = journal_entry_new(JOURNAL_QUEUE_PUT);
        if (e) {
            e->ev.seq = q->resource_version = ++ctl->cluster->seq;
            e->ev.time_ms = ctl->now_ms;
            e->ev.kind = strdup("Queue");
            e->ev.ns = strdup("");
            e->ev.name = strdup(q->name);
            e->ev.job_uid = strdup("");
            e->ev.from_phase = strdup("");
            e->ev.to_phase = strdup("Open");
            e->ev.reason = strdup("Created");
            e->ev.message = strdup("the default queue");
            e->queue_name = strdup(q->name);
            e->queue_json = queue_to_store_json(q);
            journal_list_push(&ctl->journal, e);
        }
    }
    for (struct job *job = ctl->cluster->first; job; job = job->next) {
        job_count_replicas(job);
        if (job_phase_final(job->status.phase)) {
            job->pg.phase = PG_COMPLETED;
            job_arm_ttl(ctl, job); /* a job finishing from here on arms it itself */
        } else if (job->status.running + job->status.succeeded + job->status.failed > 0) {
            job->pg.phase = PG_INQUEUE;
        }
    }
    adopt_recovered(ctl);
    for (struct job *job = ctl->cluster->first; job; job = job->next)
        job_sync(ctl, job);
    return 0;
}
