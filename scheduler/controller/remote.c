/* Jobs a backend runs (runtime/backend.h): admitted here by their queue's state, capability and the
 * jobs' priorities, sent whole to the engine, and what the engine reports turned into pods, attempt rows
 * and phases as for a local job. ARCHITECTURE.md "Backends" says which decisions move to the engine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "scheduler/controller/internal.h"
#include "scheduler/controller/remote.h"

#define RETRY_FIRST_MS 500
#define RETRY_MAX_MS 30000

static struct backend *backend_of(const struct controller *ctl, const struct job *job)
{
    return job->backend < BACKEND_KIND_COUNT ? ctl->backends[job->backend] : NULL;
}

bool remote_mirrors_phase(const struct controller *ctl, const struct job *job)
{
    const struct backend *b = backend_of(ctl, job);
    return b && b->engine_runs_policies;
}

/* --- admission: what is sent, and when ---------------------------------------------------------- */

static bool waits_to_be_sent(const struct controller *ctl, const struct job *job)
{
    if (!job->backend || job->deleted || job->dormant || job->status.phase != JOB_PENDING ||
        job->remote_state != REMOTE_UNSENT || ctl->now_ms < job->remote_retry_ms)
        return false;
    for (int t = 0; t < job->ntasks; t++)
        if (job->task_counts[t].pending > 0)
            return true;
    return false;
}

/* Higher priority first, then the older job, as Volcano's priority plugin orders jobs. */
static int by_priority(const void *a, const void *b)
{
    const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->created_ms != y->created_ms)
        return x->created_ms < y->created_ms ? -1 : 1;
    return strcmp(x->uid, y->uid);
}

/* What each queue's jobs already on an engine hold (their PodGroups' minResources), by the cluster's
 * queue index, read once a cycle: a queue's capability bounds what is sent, as Volcano's enqueue bounds
 * what is admitted. NULL when out of memory. */
static struct resvec *queues_sent(const struct controller *ctl)
{
    const struct cluster *c = ctl->cluster;
    struct resvec *sum = calloc((size_t)(c->nqueues > 0 ? c->nqueues : 1), sizeof *sum);
    for (const struct job *j = c->active_first; sum && j; j = j->active_next) {
        if (!j->backend || j->deleted || j->remote_state == REMOTE_UNSENT || job_phase_final(j->status.phase))
            continue;
        for (int q = 0; q < c->nqueues; q++)
            if (strcmp(c->queues[q]->name, j->queue) == 0)
                resvec_add(&sum[q], &j->pg.min_resources);
    }
    return sum;
}

/* Why the job's queue does not let it be sent now, or NULL; *queue gets the queue's index. */
static const char *queue_refuses(const struct controller *ctl, const struct job *job, const struct resvec *sent,
                                 int *queue, char *why, size_t len)
{
    const struct cluster *c = ctl->cluster;
    *queue = -1;
    for (int q = 0; q < c->nqueues && *queue < 0; q++)
        if (strcmp(c->queues[q]->name, job->queue) == 0)
            *queue = q;
    if (*queue < 0) {
        snprintf(why, len, "queue %s does not exist", job->queue);
        return why;
    }
    const struct queue *q = c->queues[*queue];
    if (q->state != QUEUE_OPEN) {
        snprintf(why, len, "queue %s is %s", q->name, queue_state_name(q->state));
        return why;
    }
    if (!q->has_capability)
        return NULL;
    struct resvec would = sent[*queue];
    resvec_add(&would, &job->pg.min_resources);
    for (int r = 0; r < RES_MAX; r++) {
        if (q->capability.v[r] > 0 && would.v[r] > q->capability.v[r]) {
            snprintf(why, len, "queue %s: its capability of %s would be exceeded", q->name, resource_name(r));
            return why;
        }
    }
    return NULL;
}

static void send_job(struct controller *ctl, struct job *job, struct backend *b)
{
    if (job->pg.phase == PG_PENDING) { /* admitted: its pods exist from now on, as after enqueue */
        podgroup_set_phase(ctl, job, PG_INQUEUE, "Enqueued");
        for (int32_t i = 0; i < job->total_replicas; i++)
            if (job->replicas[i].phase == POD_PENDING)
                job_pod_created(ctl, job, i);
    }
    json_t *manifest = controller_job_manifest(ctl, job, job->uid);
    if (!manifest || b->send(b->ctx, job->uid, manifest) != 0) {
        job->remote_retry_ms = ctl->now_ms + RETRY_FIRST_MS;
        return;
    }
    job->remote_state = REMOTE_SENDING;
    job->remote_sends++;
    free(job->remote_ref); /* an earlier send's, stopped: the stored status forgets it too */
    job->remote_ref = NULL;
    char message[200];
    snprintf(message, sizeof message, "sending the job to %s (send %u)", b->name, job->remote_sends);
    record_job_phase(ctl, job, job->status.phase, "Sending", message);
}

void controller_remote_cycle(struct controller *ctl)
{
    cluster_assert_owner(ctl->cluster);
    struct job **wait = NULL;
    size_t n = 0, cap = 0;
    for (struct job *job = ctl->cluster->active_first; job; job = job->active_next) {
        if (job->backend && job->remote_state == REMOTE_STOPPING && job->live_procs == 0 &&
            job->status.phase == JOB_PENDING)
            job->remote_state = REMOTE_UNSENT; /* stopped for a restart: sent again */
        if (!waits_to_be_sent(ctl, job))
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            struct job **grown = realloc(wait, ncap * sizeof *grown);
            if (!grown)
                break;
            wait = grown;
            cap = ncap;
        }
        wait[n++] = job;
    }
    if (n > 1)
        qsort(wait, n, sizeof *wait, by_priority);
    struct resvec *sent = n > 0 ? queues_sent(ctl) : NULL;
    for (size_t i = 0; i < n && sent; i++) {
        struct job *job = wait[i];
        struct backend *b = backend_of(ctl, job);
        char why[300];
        if (!b) {
            snprintf(why, sizeof why, "the %s backend is not open on this server",
                     backend_kind_name((enum backend_kind)job->backend));
            job_set_pending_reason(ctl, job, why);
            continue;
        }
        int queue;
        if (queue_refuses(ctl, job, sent, &queue, why, sizeof why)) {
            job_set_pending_reason(ctl, job, why);
            continue;
        }
        send_job(ctl, job, b);
        if (job->remote_state == REMOTE_SENDING) /* now on its way: it counts for its queue */
            resvec_add(&sent[queue], &job->pg.min_resources);
    }
    free(sent);
    free(wait);
}

/* --- what the engine reports -------------------------------------------------------------------- */

static int task_named(const struct job *job, const char *name)
{
    for (int t = 0; t < job->ntasks; t++)
        if (strcmp(job->tasks[t].name, name) == 0)
            return t;
    return -1;
}

/* A new attempt of the replica runs on the engine: bound to the engine's node, recorded as started. */
static void attempt_started(struct controller *ctl, struct job *job, int flat, const struct backend_update *u,
                            const struct backend *b)
{
    struct replica *r = &job->replicas[flat];
    int node = u->node[0] ? cluster_add_remote_node(ctl->cluster, u->node, b->name, ctl->now_ms) : -1;
    r->attempts++;
    r->start_ms = u->start_ms > 0 ? u->start_ms : ctl->now_ms;
    r->end_ms = 0;
    r->exit_code = 0;
    r->reason = TERM_NONE;
    r->pid = 0;
    r->starting = r->backoff = false;
    free(r->message);
    r->message = NULL;
    if (node >= 0)
        replica_hold(ctl, job, flat, node, 0);
    const char *from = pod_phase_name((enum pod_phase)r->phase);
    if (r->phase != POD_RUNNING)
        job_set_replica_phase(job, flat, POD_RUNNING);
    job->live_procs++;
    int task = job_task_of(job, flat);
    char pod[320];
    job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
    struct journal_entry *e = record_event(ctl, JOURNAL_ATTEMPT_START, job, "Pod", pod, from, "Running", "Started",
                                           "attempt %u started on %s node %s (%s %s)", r->attempts, b->name,
                                           u->node[0] ? u->node : "?", b->name,
                                           job->remote_ref ? job->remote_ref : u->ref);
    if (e)
        fill_attempt_row(e, ctl, job, flat);
}

static enum term_reason reason_of(const struct backend_update *u)
{
    int parsed = term_reason_parse(u->reason);
    if (parsed >= 0)
        return (enum term_reason)parsed;
    return u->phase == BACKEND_POD_SUCCEEDED ? TERM_COMPLETED : TERM_ERROR;
}

/* The engine runs the policies (Volcano): the attempt's end is recorded and the pod takes the phase
 * the engine gives it; the job's phase comes from the engine too (BACKEND_JOB_PHASE). */
static void mirror_end(struct controller *ctl, struct job *job, int flat, const struct backend_update *u)
{
    struct replica *r = &job->replicas[flat];
    int task = job_task_of(job, flat);
    char pod[320];
    job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
    job->live_procs--;
    r->end_ms = u->end_ms > 0 ? u->end_ms : ctl->now_ms;
    r->exit_code = u->exit_code;
    r->reason = (uint8_t)reason_of(u);
    free(r->message);
    r->message = u->message[0] ? strdup(u->message) : NULL;
    if (r->stopping)
        job_set_replica_stopping(job, flat, false);
    replica_release(ctl, job, flat);
    job_set_replica_phase(job, flat, u->phase == BACKEND_POD_SUCCEEDED ? POD_SUCCEEDED : POD_FAILED);
    struct journal_entry *e = record_event(ctl, JOURNAL_ATTEMPT_END, job, "Pod", pod, "Running",
                                           pod_phase_name((enum pod_phase)r->phase), term_reason_name(r->reason),
                                           "attempt %u exited with code %d on %s", r->attempts, r->exit_code,
                                           u->node[0] ? u->node : "the engine");
    if (e) {
        fill_attempt_row(e, ctl, job, flat);
        fill_attempt_end(e, r, "");
    }
    job_count_replicas(job);
    if (job->deleted)
        job_release_if_done(ctl, job);
}

/* Caldera runs the policies (Slurm): the end goes through the pod's and the job's policies exactly as
 * a local process's exit does. */
static void policy_end(struct controller *ctl, struct job *job, int flat, const struct backend_update *u)
{
    struct replica *r = &job->replicas[flat];
    struct replica_exit ex = {
        .exit_code = u->exit_code,
        .signal = u->term_signal,
        .oom = strcmp(u->reason, "OOMKilled") == 0,
        .end_ms = u->end_ms > 0 ? u->end_ms : ctl->now_ms,
    };
    if (u->message[0] && !r->stopping) {
        free(r->message);
        r->message = strdup(u->message);
    }
    controller_replica_exited(ctl, job, flat, &ex);
}

static void pod_update(struct controller *ctl, struct job *job, const struct backend_update *u, struct backend *b)
{
    int task = task_named(job, u->task);
    if (task < 0 || u->index < 0 || u->index >= job->tasks[task].replicas)
        return; /* a pod of another shape of the job: nothing of Caldera's */
    int flat = job->task_first[task] + u->index;
    struct replica *r = &job->replicas[flat];
    bool ended = u->phase == BACKEND_POD_SUCCEEDED || u->phase == BACKEND_POD_FAILED;
    if (u->phase == BACKEND_POD_PENDING) {
        if (u->message[0] && job->status.phase == JOB_PENDING)
            job_set_pending_reason(ctl, job, u->message); /* the engine's own words: its scheduler waits */
        return;
    }
    if (b->engine_runs_policies) {
        /* r->proc holds the engine's attempt number last seen: restarts in place and new pods count up */
        if (r->phase == POD_ABSENT || (r->proc >= 0 && u->attempt < (uint32_t)r->proc))
            return;
        bool same = r->proc >= 0 && u->attempt == (uint32_t)r->proc;
        if (same && r->phase != POD_RUNNING)
            return;                                             /* that attempt's end is recorded already */
        if (!same && r->phase == POD_RUNNING && r->proc >= 0) { /* its end never came: the engine moved on */
            struct backend_update lost = *u;
            lost.phase = BACKEND_POD_FAILED;
            lost.exit_code = -1;
            snprintf(lost.reason, sizeof lost.reason, "Unknown");
            snprintf(lost.message, sizeof lost.message, "the engine went on to attempt %u", u->attempt);
            mirror_end(ctl, job, flat, &lost);
        }
        if (r->phase != POD_RUNNING)
            attempt_started(ctl, job, flat, u, b);
        r->proc = (int32_t)u->attempt;
        if (ended)
            mirror_end(ctl, job, flat, u);
        return;
    }
    if (r->phase == POD_ABSENT || r->phase == POD_SUCCEEDED || r->phase == POD_FAILED)
        return; /* finished here already: a repeated report (after a restart, an adopt) */
    if (r->phase == POD_PENDING) {
        if (job->remote_state == REMOTE_STOPPING)
            return; /* the end of a stopped send, for a pod created again since */
        attempt_started(ctl, job, flat, u, b);
        if (!ended && !job->deleted)
            job_raise(ctl, job, EV_POD_RUNNING, flat, false, 0);
    }
    if (ended && job->replicas[flat].phase == POD_RUNNING)
        policy_end(ctl, job, flat, u);
}

/* The engine's own lifecycle (Volcano's controller): Caldera's job takes its phase and retryCount. */
static void job_phase_update(struct controller *ctl, struct job *job, const struct backend_update *u)
{
    int phase = job_phase_parse(u->job_phase);
    if (phase < 0 || job->deleted)
        return;
    job->status.retry_count = u->retry_count;
    if (job->status.phase == JOB_PENDING && phase != JOB_PENDING)
        podgroup_set_phase(ctl, job, PG_RUNNING, "Scheduled");
    job_set_phase(ctl, job, (enum job_phase)phase, u->reason[0] ? u->reason : "Engine",
                  u->message[0] ? u->message : NULL);
    job_count_replicas(job);
    if (job_phase_final(job->status.phase)) {
        if (job->pg.phase != PG_COMPLETED)
            podgroup_set_phase(ctl, job, PG_COMPLETED, "Completed");
        if (resvec_is_zero(&job->allocated) && job->live_procs == 0)
            cluster_retire_job(ctl->cluster, job);
    }
}

/* Every replica still running on the engine ends here, stopped, with `message`: the engine no longer
 * has them (a removal, a deletion behind Caldera's back). A deleted job is freed with its last. */
static void end_all(struct controller *ctl, struct job *job, const char *message)
{
    for (int32_t flat = job->total_replicas - 1; flat >= 0; flat--) {
        struct replica *r = &job->replicas[flat];
        if (r->phase != POD_RUNNING)
            continue;
        if (!r->stopping) {
            r->reason = TERM_STOPPED;
            job_set_replica_stopping(job, flat, true);
        }
        free(r->message);
        r->message = strdup(message);
        struct replica_exit ex = {.exit_code = 137, .signal = 9, .end_ms = ctl->now_ms};
        bool last = job->deleted && job->live_procs == 1;
        controller_replica_exited(ctl, job, flat, &ex);
        if (last)
            return;
    }
}

/* Deleted on the engine behind Caldera's back: the job fails with the reason (nothing is sent again). */
static void job_gone(struct controller *ctl, struct job *job, struct backend *b, const char *message)
{
    char why[700];
    snprintf(why, sizeof why, "the job was deleted on %s behind Caldera's back%s%s", b->name, *message ? ": " : "",
             message);
    job->remote_state = REMOTE_UNSENT;
    if (!job->deleted && !job_phase_final(job->status.phase))
        job_set_phase(ctl, job, JOB_FAILED, "DeletedOnEngine", why);
    end_all(ctl, job, why);
    if (!job->deleted && job->live_procs == 0 && resvec_is_zero(&job->allocated))
        cluster_retire_job(ctl->cluster, job);
}

static void send_failed(struct controller *ctl, struct job *job, struct backend *b, const struct backend_update *u)
{
    if (job->remote_state != REMOTE_SENDING)
        return;
    job->remote_state = REMOTE_UNSENT;
    char why[700];
    snprintf(why, sizeof why, "%s: %s", b->name, u->message);
    if (u->retryable) {
        int64_t wait = RETRY_FIRST_MS;
        for (uint32_t i = 1; i < job->remote_sends && wait < RETRY_MAX_MS; i++)
            wait *= 2;
        job->remote_retry_ms = ctl->now_ms + (wait < RETRY_MAX_MS ? wait : RETRY_MAX_MS);
        char pending[800];
        snprintf(pending, sizeof pending, "waiting for %s", why);
        job_set_pending_reason(ctl, job, pending);
        return;
    }
    job_set_phase(ctl, job, JOB_FAILED, "SendFailed", why);
    job_sync(ctl, job);
}

static void sent(struct controller *ctl, struct job *job, struct backend *b, const struct backend_update *u)
{
    if (job->remote_state != REMOTE_SENDING)
        return;
    job->remote_state = REMOTE_SENT;
    free(job->remote_ref);
    job->remote_ref = strdup(u->ref);
    job_set_pending_reason(ctl, job, NULL);
    char message[300];
    snprintf(message, sizeof message, "sent to %s as %s", b->name, u->ref);
    record_job_phase(ctl, job, job->status.phase, "Sent", message); /* the stored status keeps the ref */
}

void controller_backend_update(struct controller *ctl, const struct backend_update *u)
{
    cluster_assert_owner(ctl->cluster);
    if (u->kind == BACKEND_ENGINE) {
        if (u->ok)
            log_info("backend: the engine is reachable again%s%s", u->message[0] ? ": " : "", u->message);
        else
            log_warn("backend: the engine is unreachable: %s", u->message);
        return;
    }
    struct job *job = cluster_wake(ctl->cluster, cluster_find_job_uid(ctl->cluster, u->job_uid));
    struct backend *b = job ? backend_of(ctl, job) : NULL;
    if (!job || !b)
        return; /* a job Caldera no longer has (freed once its engine let it go) */
    bool about_send = u->kind == BACKEND_SENT || u->kind == BACKEND_SEND_FAILED;
    if (!about_send &&
        (job->remote_state == REMOTE_SENDING || (u->ref[0] && job->remote_ref && strcmp(u->ref, job->remote_ref) != 0)))
        return; /* about an earlier send of the job, stopped since */
    switch (u->kind) {
    case BACKEND_SENT: sent(ctl, job, b, u); break;
    case BACKEND_SEND_FAILED: send_failed(ctl, job, b, u); break;
    case BACKEND_POD: pod_update(ctl, job, u, b); break;
    case BACKEND_JOB_PHASE:
        if (b->engine_runs_policies)
            job_phase_update(ctl, job, u);
        break;
    case BACKEND_GONE: job_gone(ctl, job, b, u->message); break;
    case BACKEND_REMOVED:
        job->remote_state = REMOTE_UNSENT;
        end_all(ctl, job, "removed from the engine");
        break;
    case BACKEND_ENGINE: break;
    }
}

/* --- Caldera's decisions carried out on the engine ---------------------------------------------- */

void remote_job_deleted(struct controller *ctl, struct job *job)
{
    struct backend *b = backend_of(ctl, job);
    if (!b || job->remote_state == REMOTE_REMOVING)
        return;
    bool sent_once = job->remote_state != REMOTE_UNSENT || job->remote_ref;
    job->remote_state = REMOTE_REMOVING;
    if (sent_once)
        b->remove(b->ctx, job->uid, job->remote_ref ? job->remote_ref : "");
}

#define SUSPENDED_REASON "Suspended"

/* Slurm: AbortJob and ResumeJob (vcctl's suspend and resume) are Slurm's own suspend and resume of
 * a running job: its allocation is kept, its tasks stopped and continued. 1 when the action is not one
 * of those (Caldera's own, as for a local job: TerminateJob kills, which cancels on Slurm). */
static int slurm_suspend_resume(struct controller *ctl, struct job *job, struct backend *b, enum job_action action,
                                struct api_status *st)
{
    bool suspended = job->status.phase == JOB_ABORTED && job->status.reason &&
                     strcmp(job->status.reason, SUSPENDED_REASON) == 0; /* stored with the status */
    bool suspend = action == ACT_ABORT_JOB && job->status.phase == JOB_RUNNING && job->remote_state == REMOTE_SENT;
    bool resume = action == ACT_RESUME_JOB && suspended;
    if (!suspend && !resume)
        return 1;
    const char *ref = job->remote_ref ? job->remote_ref : "";
    if (b->act(b->ctx, job->uid, ref, suspend ? BACKEND_SUSPEND : BACKEND_RESUME) != 0)
        return api_fail(st, 503, "ServiceUnavailable", "cannot reach the %s backend", b->name);
    char message[300];
    snprintf(message, sizeof message, "%s on %s (scontrol %s %s): %s", suspend ? "suspended" : "resumed", b->name,
             suspend ? "suspend" : "resume", ref,
             suspend ? "its allocation is kept and its tasks are stopped" : "its tasks go on");
    job_set_phase(ctl, job, suspend ? JOB_ABORTED : JOB_RUNNING, suspend ? SUSPENDED_REASON : "Resumed", message);
    return 0;
}

int remote_command(struct controller *ctl, struct job *job, enum job_action action, struct api_status *st)
{
    struct backend *b = backend_of(ctl, job);
    if (!b)
        return 1;
    if (!b->engine_runs_policies)
        return slurm_suspend_resume(ctl, job, b, action, st);
    if (action != ACT_ABORT_JOB && action != ACT_RESUME_JOB)
        return api_fail(st, 422, "Invalid", "%s is not sent to %s; its engine takes AbortJob and ResumeJob",
                        job_action_name(action), b->name);
    if (b->act(b->ctx, job->uid, job->remote_ref ? job->remote_ref : "",
               action == ACT_ABORT_JOB ? BACKEND_SUSPEND : BACKEND_RESUME) != 0)
        return api_fail(st, 503, "ServiceUnavailable", "cannot reach the %s backend", b->name);
    return 0;
}

void controller_remote_adopt(struct controller *ctl)
{
    for (struct job *job = ctl->cluster->active_first; job; job = job->active_next) {
        struct backend *b = backend_of(ctl, job);
        if (!b || job->deleted || job_phase_final(job->status.phase))
            continue;
        if (!job->remote_ref) { /* sent or not when the server stopped: send (again); never twice on the engine */
            job->remote_state = REMOTE_UNSENT;
            continue;
        }
        job->remote_state = REMOTE_SENT;
        if (b->adopt(b->ctx, job->uid, job->remote_ref) != 0)
            log_warn("backend %s: cannot follow job %s/%s (%s) again", b->name, job->ns, job->name, job->remote_ref);
    }
}
