/* Rebuilding the live state from the store at start-up: queues, the replicas of jobs (restore_jobs.c
 * reads the jobs) from their attempts, and dormant jobs woken. An attempt recorded as running (the
 * last run crashed, or stopped keeping its tasks) is adopted again when its process still runs,
 * else ended with the status its supervisor wrote, else as Unknown for the policies to decide. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/queue.h"
#include "common/grow.h"
#include "common/log.h"
#include "scheduler/controller/internal.h"
#include "scheduler/controller/remote.h"
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

static int restore_attempt_row(struct controller *ctl, struct job *job, const struct store_attempt_row *row);

/* A dormant job being read back (controller_wake_job): its row is parsed into a job of its own, its
 * attempts restored into that, and only a whole job takes the stub's place. */
struct waking {
    struct controller *ctl;
    const struct job *stub;
    struct job *full; /* NULL until the job's row is parsed */
};

static int wake_row(void *ctx, const struct store_job_row *row)
{
    struct waking *w = ctx;
    const struct job *stub = w->stub; /* what the API has shown of it stays */
    w->full = restore_parse_job(stub->uid, stub->ns, stub->name, stub->created_ms, stub->resource_version,
                                row->spec_json, row->status_json, row->source_json);
    if (!w->full)
        return -1; /* logged */
    w->ctl->restore_chain.job = NULL;
    return 0;
}

static int wake_attempt(void *ctx, const struct store_attempt_row *row)
{
    struct waking *w = ctx;
    return w->full ? restore_attempt_row(w->ctl, w->full, row) : -1;
}

/* The stub keeps its place in the lists and indexes; everything else becomes the parsed job's. */
static void take_place(struct job *stub, struct job *full)
{
    struct job awake = *full;
    awake.key = stub->key;
    awake.prev = stub->prev;
    awake.next = stub->next;
    awake.active_prev = stub->active_prev;
    awake.active_next = stub->active_next;
    awake.active = stub->active;
    awake.deleted = stub->deleted;
    awake.live_procs = stub->live_procs;
    awake.timers = stub->timers;
    awake.dormant = false;
    free(stub->ns);
    free(stub->name);
    free(stub->queue);
    *stub = awake;
    free(full); /* its contents live on in the stub */
}

int controller_wake_job(struct controller *ctl, struct job *stub)
{
    cluster_assert_owner(ctl->cluster);
    struct waking w = {ctl, stub, NULL};
    const struct store_loader loader = {.ctx = &w, .job = wake_row, .attempt = wake_attempt};
    char err[512] = "the database is not open";
    int found = ctl->store ? store_load_job(ctl->store, stub->uid, &loader, err, sizeof err) : -1;
    ctl->restore_chain.job = NULL;
    if (found <= 0 || !w.full) { /* a row that does not parse was logged by parse_job */
        if (found <= 0)
            log_error("job %s/%s (%s): cannot be read: %s", stub->ns, stub->name, stub->uid,
                      found == 0 ? "its row is not in the database" : err);
        job_free(w.full);
        return -1; /* it stays dormant and out of reach */
    }
    take_place(stub, w.full);
    job_count_replicas(stub);
    stub->pg.phase = PG_COMPLETED;
    return 0;
}

static int wake_hook(void *ctx, struct job *job) { return controller_wake_job(ctx, job); }

void controller_enable_waking(struct controller *ctl)
{
    ctl->cluster->wake = wake_hook;
    ctl->cluster->wake_ctx = ctl;
    job_set_manifest_reader(controller_read_kept_manifest);
}

/* The devices an attempt recorded, as a mask over its node's devices (0: none, or not its node's). */
static uint64_t recorded_gpus(const struct controller *ctl, int node, const struct store_attempt_row *row)
{
    uint64_t mask = 0;
    if (node < 0 || !row->gpus || gpu_parse_indexes(&ctl->cluster->nodes[node].gpus, row->gpus, &mask) != 0)
        return 0;
    return mask;
}

/* An attempt recorded as running: the pod runs (as far as anyone knows) until recovery has asked the
 * runtime whether its process is still there (adopt_recovered). */
/* How many times in a row the pod of this row restarted in place just before it (its restartCount),
 * from the chain the rows before it left; 0 for the first attempt of a pod. */
static uint16_t restarts_before(const struct controller *ctl, const struct job *job, int flat,
                                const struct store_attempt_row *row)
{
    const struct restore_chain *c = &ctl->restore_chain;
    return c->job == job && c->flat == flat && c->next_attempt == row->attempt ? c->restarts : 0;
}

static int remember_running(struct controller *ctl, struct job *job, int flat, const struct store_attempt_row *row)
{
    struct replica *r = &job->replicas[flat];
    if (GROW(ctl->recovered, ctl->recovered_cap, (size_t)ctl->nrecovered + 1, 64) != 0)
        return -1;
    struct recovered_attempt *ra = &ctl->recovered[ctl->nrecovered++];
    snprintf(ra->job_uid, sizeof ra->job_uid, "%s", job->uid);
    ra->flat = flat;
    ra->pid = row->pid;
    ra->pid_start = row->pid_start;
    ra->attempt = (uint32_t)row->attempt;
    ra->node = job->backend && row->node && *row->node /* an engine's node: known again from its pods */
                   ? cluster_add_remote_node(ctl->cluster, row->node, backend_kind_name(job->backend), ctl->now_ms)
                   : cluster_find_node(ctl->cluster, row->node ? row->node : "");
    ra->gpus = recorded_gpus(ctl, ra->node, row);
    r->start_ms = row->start_ms;
    r->restarts = restarts_before(ctl, job, flat, row);
    r->born = (uint32_t)row->attempt - 1 - r->restarts;
    job_set_replica_phase(job, flat, POD_RUNNING);
    return 0;
}

int controller_restore_attempt(struct controller *ctl, const struct store_attempt_row *row)
{
    struct job *job = ctl->restore_last; /* a job's rows come together: one lookup per job */
    if (!job || strcmp(job->uid, row->job_uid) != 0)
        job = ctl->restore_last = strmap_get(&ctl->cluster->jobs_by_uid, row->job_uid); /* no waking */
    if (!job)
        return 0; /* an attempt of a job that is gone: history only */
    if (job == ctl->restore_woken)
        return 0; /* read with the job when the load woke it */
    if (job->dormant) {
        if (row->ended)
            return 0; /* read from the database when the job wakes */
        /* Still running after all: it must be watched. Waking reads all its rows, this one too. */
        if (controller_wake_job(ctl, job) != 0)
            return -1;
        ctl->restore_woken = job;
        return 0;
    }
    return restore_attempt_row(ctl, job, row);
}

static int restore_attempt_row(struct controller *ctl, struct job *job, const struct store_attempt_row *row)
{
    int task, index;
    if (job_parse_pod_name(job, row->pod, &task, &index) != 0)
        return 0; /* an attempt of a job that changed shape: history only */
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
    r->gpus = recorded_gpus(ctl, r->node, row); /* shown, not held: the attempt ended */
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
    uint16_t restarts = restarts_before(ctl, job, flat, row);
    r->restarts = restarts; /* the attempts that restarted in place just before this one were this pod's */
    r->born = (uint32_t)row->attempt - 1 - restarts;
    ctl->restore_chain.job = NULL;
    if (strcmp(outcome, "Restarting") == 0 && restarts < UINT16_MAX) /* its next attempt, if any, is this pod's */
        ctl->restore_chain = (struct restore_chain){job, flat, row->attempt + 1, (uint16_t)(restarts + 1)};
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
    if (ra->node >= 0) {
        replica_hold(ctl, job, flat, ra->node, ra->gpus);
        replica_hold_cpus(ctl, job, flat, true);
    }
    job->live_procs++;
    if (job->backend) { /* its engine runs it on: what happened meanwhile comes with the job's adopt */
        r->proc = -1;
        return;
    }
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

/* Recovered attempts in their jobs' creation order (the store hands attempts out by job uid), each
 * job's in load order (pod, attempt); those of the same job stay together. */
struct recovered_key {
    int64_t created_ms;
    const char *uid;
    int at; /* index in ctl->recovered */
};

static int compare_recovered(const void *a, const void *b)
{
    const struct recovered_key *x = a, *y = b;
    if (x->created_ms != y->created_ms)
        return x->created_ms < y->created_ms ? -1 : 1;
    int c = strcmp(x->uid, y->uid);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

static int sort_recovered(struct controller *ctl)
{
    if (ctl->nrecovered < 2)
        return 0;
    struct recovered_key *keys = malloc((size_t)ctl->nrecovered * sizeof *keys);
    struct recovered_attempt *sorted = malloc((size_t)ctl->nrecovered * sizeof *sorted);
    if (!keys || !sorted) {
        free(keys);
        free(sorted);
        return -1;
    }
    for (int i = 0; i < ctl->nrecovered; i++) {
        const struct job *job = cluster_find_job_uid(ctl->cluster, ctl->recovered[i].job_uid);
        keys[i] = (struct recovered_key){job ? job->created_ms : 0, ctl->recovered[i].job_uid, i};
    }
    qsort(keys, (size_t)ctl->nrecovered, sizeof *keys, compare_recovered);
    for (int i = 0; i < ctl->nrecovered; i++)
        sorted[i] = ctl->recovered[keys[i].at];
    free(keys);
    free(ctl->recovered);
    ctl->recovered = sorted;
    ctl->recovered_cap = ctl->nrecovered;
    return 0;
}

/* Every attempt recorded as running when the last run ended, in the jobs' creation order. */
static void adopt_recovered(struct controller *ctl)
{
    if (sort_recovered(ctl) != 0)
        log_warn("out of memory sorting the recovered attempts: they are adopted in the store's order");
    /* Attempts that asked for GPUs but recorded none (started before schema 7) are given devices
     * after every other has taken back the devices it recorded. */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < ctl->nrecovered; i++) {
            const struct recovered_attempt *ra = &ctl->recovered[i];
            struct job *job = cluster_find_job_uid(ctl->cluster, ra->job_uid);
            if (!job || ra->flat >= job->total_replicas)
                continue;
            const struct replica *r = &job->replicas[ra->flat];
            if (r->phase != POD_RUNNING || r->attempts != ra->attempt)
                continue; /* a later row superseded it: its process, if any, is swept as an orphan */
            bool unrecorded = !ra->gpus && job->tasks[job_task_of(job, ra->flat)].request.v[RES_GPU] > 0;
            if (unrecorded == (pass == 1))
                adopt_one(ctl, job, ra);
        }
    }
    free(ctl->recovered);
    ctl->recovered = NULL;
    ctl->nrecovered = ctl->recovered_cap = 0;
}

/* activeDeadlineSeconds of the pods still running after a restart, counted from their last
 * attempt's start (the runtime's timers did not survive the server; an in-place restart before the
 * stop thus gives its pod that much longer). */
static void rearm_deadlines(struct controller *ctl, struct job *job)
{
    for (int32_t flat = 0; flat < job->total_replicas; flat++) {
        const struct replica *r = &job->replicas[flat];
        int task = job_task_of(job, flat);
        int64_t ads = job->tasks[task].active_deadline_seconds;
        if (ads <= 0 || r->phase != POD_RUNNING)
            continue;
        struct controller_timer t = {.due_ms = r->start_ms + ads * 1000,
                                     .kind = TIMER_DEADLINE,
                                     .task = task,
                                     .flat = flat,
                                     .version = job->status.version,
                                     .attempt = r->born,
                                     .deadline_s = ads};
        timer_arm(ctl, job, &t);
    }
}

int controller_finish_recovery(struct controller *ctl)
{
    ctl->restore_last = ctl->restore_woken = NULL; /* the load is over */
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
        if (job->dormant)
            continue;             /* finished, nothing to derive until it is read */
        free(job->stored_status); /* what a GET was answered with until now */
        job->stored_status = NULL;
        job_count_replicas(job);
        if (job_phase_final(job->status.phase)) {
            job->pg.phase = PG_COMPLETED;
            job_arm_ttl(ctl, job); /* a job finishing from here on arms it itself */
        } else if (job->status.running + job->status.succeeded + job->status.failed > 0 || job->remote_ref) {
            job->pg.phase = PG_INQUEUE;
        }
    }
    adopt_recovered(ctl);
    for (struct job *job = ctl->cluster->first; job; job = job->next) {
        if (job->dormant)
            continue;
        rearm_deadlines(ctl, job);
        if (!remote_mirrors_phase(ctl, job)) /* else its engine's phase, as it comes */
            job_sync(ctl, job);
    }
    controller_remote_adopt(ctl);
    return 0;
}
