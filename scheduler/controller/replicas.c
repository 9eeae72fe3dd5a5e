/* Replicas holding and letting go: node and queue resources held and given back (GPU devices too),
 * a pod created (Pending) or ended after a stop the controller asked for, and a deleted job freed
 * once reaped. */
#include <stdlib.h>

#include "common/log.h"
#include "common/memory.h"
#include "common/strv.h"
#include "scheduler/controller/internal.h"
#include "scheduler/controller/remote.h"

/* What a bound replica holds: its task's requests, with the memory it was placed with (a task's
 * memory grows under autoMemoryScale while older replicas keep theirs). */
static struct resvec held(const struct job *job, int flat)
{
    struct resvec v = job->tasks[job_task_of(job, flat)].request;
    v.v[RES_MEMORY] = job->replicas[flat].memory;
    return v;
}

static void account(struct controller *ctl, struct job *job, int flat, bool hold)
{
    const struct resvec req = held(job, flat);
    struct node *node = &ctl->cluster->nodes[job->replicas[flat].node];
    struct queue *q = cluster_find_queue(ctl->cluster, job->queue);
    if (hold) {
        resvec_add(&node->used, &req);
        resvec_add(&job->allocated, &req);
        if (q)
            resvec_add(&q->allocated, &req);
    } else {
        resvec_sub(&node->used, &req);
        resvec_sub(&job->allocated, &req);
        if (q)
            resvec_sub(&q->allocated, &req);
    }
}

/* The node's devices for the replica: the recorded ones when they are free (a task adopted after a
 * restart keeps its devices), else free ones by gpu_choose. The node's nvidia.com/gpu accounting
 * guarantees enough are free; a node configured with fewer since gives what it has, logged. */
static void hold_gpus(struct job *job, int flat, struct node *node, uint64_t recorded)
{
    struct replica *r = &job->replicas[flat];
    int need = (int)job->tasks[job_task_of(job, flat)].request.v[RES_GPU];
    r->gpus = 0;
    r->gpus_held = false;
    if (need <= 0 || node->gpus.count == 0)
        return;
    uint64_t mask = 0;
    if (recorded && gpu_mask_count(recorded) == need && gpu_take(&node->gpus, recorded) == 0) {
        mask = recorded;
    } else {
        int free_now = gpu_set_free_count(&node->gpus);
        if (free_now < need)
            log_warn("node %s has %d free GPU devices for a replica of %s/%s asking for %d", node->name, free_now,
                     job->ns, job->name, need);
        if (gpu_choose(&node->gpus, need < free_now ? need : free_now, &mask) == 0)
            gpu_take(&node->gpus, mask);
    }
    r->gpus = mask;
    r->gpus_held = mask != 0;
}

void replica_hold(struct controller *ctl, struct job *job, int flat, int node, uint64_t recorded_gpus)
{
    struct replica *r = &job->replicas[flat];
    r->node = node;
    r->memory = job->tasks[job_task_of(job, flat)].request.v[RES_MEMORY];
    account(ctl, job, flat, true);
    hold_gpus(job, flat, &ctl->cluster->nodes[node], recorded_gpus);
}

void replica_release(struct controller *ctl, struct job *job, int flat)
{
    struct replica *r = &job->replicas[flat];
    if (r->node < 0)
        return;
    account(ctl, job, flat, false);
    replica_release_cpus(ctl, job, flat);
    if (r->gpus_held) { /* r->gpus stays: the pod and its history still show what it had */
        gpu_give(&ctl->cluster->nodes[r->node].gpus, r->gpus);
        r->gpus_held = false;
    }
}

/* What its processes see of the node's GPUs: see internal.h. */
int replica_gpu_env(const struct controller *ctl, const struct replica *r, char ***env)
{
    if (r->node < 0 || ctl->cluster->nodes[r->node].gpus.count == 0)
        return 0;
    const struct gpu_set *gpus = &ctl->cluster->nodes[r->node].gpus;
    uint64_t mask = r->gpus;
    bool uuids = ctl->gpu_uuids || gpu_set_needs_uuids(gpus); /* MIG devices have no index CUDA takes */
    char list[GPU_DEVICES_MAX * (GPU_UUID_MAX + 1)];
    gpu_format(gpus, mask, uuids, list, sizeof list);
    int rc = strv_setenvf(env, "CUDA_VISIBLE_DEVICES=%s", list);
    rc |= strv_setenvf(env, "NVIDIA_VISIBLE_DEVICES=%s", mask ? list : "void");
    if (mask && !uuids)
        rc |= strv_setenv(env, "CUDA_DEVICE_ORDER=PCI_BUS_ID");
    return rc;
}

void job_pod_created(struct controller *ctl, struct job *job, int flat)
{
    int task = job_task_of(job, flat);
    if (job->pg.phase == PG_PENDING || !job_has_policies(job, task))
        return; /* pods exist once the gang is enqueued: apply_session raises it then */
    const struct task_spec *ts = &job->tasks[task];
    const struct lifecycle_policy *p = policy_choose(ts->policies, ts->npolicies, job->policies, job->npolicies,
                                                     EV_POD_PENDING, false, 0);
    if (!p) /* a PodPending policy always has a timeout (admission) */
        return;
    struct controller_timer t = {.due_ms = ctl->now_ms + p->timeout_ms,
                                 .kind = TIMER_ACTION,
                                 .action = (uint8_t)p->action,
                                 .event = EV_POD_PENDING,
                                 .task = task,
                                 .flat = flat,
                                 .version = job->status.version};
    timer_arm(ctl, job, &t);
}

/* The pod's end after a stop the controller asked for. Returns the event to raise (EV_COUNT: none). */
enum job_event replica_end_stopped(struct controller *ctl, struct job *job, int flat, const char **outcome)
{
    struct replica *r = &job->replicas[flat];
    replica_release(ctl, job, flat);
    if (r->vanish) { /* a kill of the job or of its task: the pod is gone */
        r->vanish = false;
        job_set_replica_phase(job, flat, POD_ABSENT);
        r->node = -1;
        *outcome = "Deleted";
        return EV_COUNT;
    }
    switch ((enum term_reason)r->reason) {
    case TERM_SHUTDOWN: /* runs again when the server is back */
        job_set_replica_phase(job, flat, POD_PENDING);
        r->node = -1;
        replica_reborn(r);
        *outcome = "Requeued";
        return EV_COUNT;
    case TERM_DEADLINE: /* kubelet's activeDeadlineSeconds: the pod fails */
        job_set_replica_phase(job, flat, POD_FAILED);
        *outcome = "";
        return EV_POD_FAILED;
    case TERM_EVICTED:
    case TERM_DELETED_POD: /* the pod was deleted and is created again, as SyncJob would */
        job_set_replica_phase(job, flat, POD_PENDING);
        r->node = -1;
        replica_reborn(r);
        job_pod_created(ctl, job, flat);
        *outcome = "Requeued";
        return EV_POD_EVICTED;
    default: /* TERM_DELETED (the job is gone), TERM_STOPPED without vanish */
        job_set_replica_phase(job, flat, POD_FAILED);
        *outcome = "";
        return EV_COUNT;
    }
}

/* A replica of a job a backend runs (remote.c) stops on its engine: the engine's job is stopped (or
 * removed, once the job is deleted) once for all its replicas; their ends come as the engine's reports. */
static void engine_stop(struct controller *ctl, struct job *job, int flat)
{
    struct backend *b = job->backend < BACKEND_KIND_COUNT ? ctl->backends[job->backend] : NULL;
    job_set_replica_stopping(job, flat, true);
    if (!b)
        return;
    const char *ref = job->remote_ref ? job->remote_ref : "";
    if (job->deleted) {
        if (job->remote_state != REMOTE_REMOVING) {
            job->remote_state = REMOTE_REMOVING;
            b->remove(b->ctx, job->uid, ref);
        }
    } else if (job->remote_state == REMOTE_SENT || job->remote_state == REMOTE_SENDING) {
        job->remote_state = REMOTE_STOPPING;
        b->stop(b->ctx, job->uid, ref);
    }
}

void replicas_stop_engine_job(struct controller *ctl, struct job *job)
{
    struct backend *b = job->backend < BACKEND_KIND_COUNT ? ctl->backends[job->backend] : NULL;
    if (!b || b->engine_runs_policies || job->deleted ||
        (job->remote_state != REMOTE_SENT && job->remote_state != REMOTE_SENDING))
        return;
    job->remote_state = REMOTE_STOPPING;
    b->stop(b->ctx, job->uid, job->remote_ref ? job->remote_ref : "");
}

void replica_stop(struct controller *ctl, struct job *job, int flat, enum term_reason why, bool vanish)
{
    struct replica *r = &job->replicas[flat];
    if (r->phase != POD_RUNNING)
        return;
    if (r->stopping) {
        r->vanish = r->vanish || vanish;
        return;
    }
    r->reason = (uint8_t)why;
    r->vanish = vanish;
    if (r->backoff) { /* between two attempts: nothing runs, the stop is done */
        r->backoff = false;
        const char *outcome;
        replica_end_stopped(ctl, job, flat, &outcome);
        return;
    }
    int grace_ms = job->tasks[job_task_of(job, flat)].grace_seconds * 1000;
    if (why == TERM_SHUTDOWN && grace_ms > ctl->shutdown_grace_ms)
        grace_ms = ctl->shutdown_grace_ms;
    if (job->backend) { /* its engine stops it */
        engine_stop(ctl, job, flat);
        return;
    }
    job_set_replica_stopping(job, flat, true);
    ctl->ops.stop(ctl->ops.ctx, job, flat, grace_ms);
}

#define BIG_JOB_REPLICAS 10000

void job_release_if_done(struct controller *ctl, struct job *job)
{
    if (job->deleted && job->live_procs == 0) {
        bool big = job->total_replicas >= BIG_JOB_REPLICAS;
        controller_remove_job_volumes(ctl, job);
        cluster_remove_job(ctl->cluster, job);
        job_free(job);
        if (big) /* its replicas, their entries and renderings: megabytes glibc's arenas would keep */
            memory_return_soon();
    }
}
