/* The proportion plugin: each queue's deserved share of the zone, by weight, capped by its
 * capability and by what it asks for, never below its guarantee (Volcano's water-filling), level
 * by level for hierarchical queues. From it: queue order (lowest share first, higher
 * spec.priority before), allocatable (a queue grows only within its share, borrowing what others
 * do not ask for), overused, reclaim victims, and the enqueue check against capability. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/plugin.h"

#define MAX_ROUNDS 64

struct proportion {
    struct session *ssn;
    struct resvec *request;    /* per queue, children's requests included */
    struct resvec *capability; /* per queue: min(capability, zone total - guarantees + own guarantee) */
    bool *capped;              /* per queue: has a capability */
    struct resvec total_guarantee;
};

static bool dim_used(const struct session *ssn, int r) { return ssn->total.v[r] > 0; }

static double share_of(const struct session *ssn, const struct resvec *allocated, const struct resvec *deserved)
{
    double share = 0;
    for (int r = 0; r < RES_MAX; r++) {
        if (!dim_used(ssn, r) || r == RES_PODS)
            continue;
        double s = deserved->v[r] == 0 ? (allocated->v[r] == 0 ? 0 : 1)
                                       : (double)allocated->v[r] / (double)deserved->v[r];
        if (s > share)
            share = s;
    }
    return share;
}

static void update_share(struct session *ssn, int q)
{
    ssn->queues[q].share = share_of(ssn, &ssn->queues[q].allocated, &ssn->queues[q].deserved);
}

/* --- deserved shares ------------------------------------------------------ */

static void aggregate_requests(struct proportion *pp)
{
    struct session *ssn = pp->ssn;
    for (int q = 0; q < ssn->nqueues; q++)
        pp->request[q] = ssn->queues[q].request;
    for (int q = 0; q < ssn->nqueues; q++) /* add each queue's request to every ancestor */
        for (int p = ssn->queues[q].parent, hops = 0; p >= 0 && hops < ssn->nqueues; p = ssn->queues[p].parent, hops++)
            resvec_add(&pp->request[p], &ssn->queues[q].request);
}

/* Water-fills `available` among the queues whose parent is `parent` (-1: the top level). */
static void fill_level(struct proportion *pp, int parent, const struct resvec *available, int depth)
{
    if (depth > pp->ssn->nqueues) /* a cycle of parents (refused at admission; never loop on it) */
        return;
    struct session *ssn = pp->ssn;
    int n = 0;
    bool *meet = calloc((size_t)ssn->nqueues + 1, sizeof *meet);
    if (!meet)
        return;
    struct resvec remaining = *available;
    for (int q = 0; q < ssn->nqueues; q++) {
        if (ssn->queues[q].parent != parent)
            continue;
        n++;
        const struct queue *qq = ssn->queues[q].queue;
        memset(&ssn->queues[q].deserved, 0, sizeof ssn->queues[q].deserved);
        if (qq->has_guarantee) {
            ssn->queues[q].deserved = qq->guarantee;
            resvec_sub(&remaining, &qq->guarantee);
        }
    }
    for (int r = 0; r < RES_MAX; r++)
        if (remaining.v[r] < 0)
            remaining.v[r] = 0;
    for (int round = 0; n > 0 && round < MAX_ROUNDS; round++) {
        int64_t total_weight = 0;
        for (int q = 0; q < ssn->nqueues; q++)
            if (ssn->queues[q].parent == parent && !meet[q])
                total_weight += ssn->queues[q].queue->weight;
        if (total_weight == 0)
            break;
        struct resvec given = {0};
        for (int q = 0; q < ssn->nqueues; q++) {
            if (ssn->queues[q].parent != parent || meet[q])
                continue;
            struct queue_info *qi = &ssn->queues[q];
            bool all_met = true;
            for (int r = 0; r < RES_MAX; r++) {
                int64_t before = qi->deserved.v[r];
                int64_t add = (int64_t)floor((double)remaining.v[r] * qi->queue->weight / (double)total_weight);
                int64_t d = before + add;
                bool capped = d >= pp->capability[q].v[r], satisfied = d >= pp->request[q].v[r];
                if (capped)
                    d = pp->capability[q].v[r];
                if (satisfied && d > pp->request[q].v[r])
                    d = pp->request[q].v[r];
                if (!capped && !satisfied)
                    all_met = false;
                if (qi->queue->has_guarantee && d < qi->queue->guarantee.v[r])
                    d = qi->queue->guarantee.v[r];
                qi->deserved.v[r] = d > before ? d : before;
                given.v[r] += qi->deserved.v[r] - before;
            }
            meet[q] = all_met;
        }
        bool moved = !resvec_is_zero(&given);
        resvec_sub(&remaining, &given);
        if (!moved || resvec_is_zero(&remaining))
            break;
    }
    free(meet);
    /* then each queue's children share what it deserves */
    for (int q = 0; q < ssn->nqueues; q++)
        if (ssn->queues[q].parent == parent)
            fill_level(pp, q, &ssn->queues[q].deserved, depth + 1);
}

static void compute_deserved(struct proportion *pp)
{
    struct session *ssn = pp->ssn;
    for (int q = 0; q < ssn->nqueues; q++) {
        const struct queue *qq = ssn->queues[q].queue;
        if (qq->has_guarantee && ssn->queues[q].parent < 0)
            resvec_add(&pp->total_guarantee, &qq->guarantee);
    }
    for (int q = 0; q < ssn->nqueues; q++) {
        const struct queue *qq = ssn->queues[q].queue;
        struct resvec real = ssn->total; /* Volcano's realCapability: what guarantees leave, plus its own */
        resvec_sub(&real, &pp->total_guarantee);
        if (qq->has_guarantee)
            resvec_add(&real, &qq->guarantee);
        /* dimensions the capability does not name stay unlimited (Volcano's MinDimensionResource
         * with Infinity); an explicit 0 is read the same way, as nobody caps a queue at nothing */
        for (int r = 0; qq->has_capability && r < RES_MAX; r++)
            if (qq->capability.v[r] > 0 && qq->capability.v[r] < real.v[r])
                real.v[r] = qq->capability.v[r];
        pp->capability[q] = real;
        pp->capped[q] = qq->has_capability;
    }
    aggregate_requests(pp);
    fill_level(pp, -1, &ssn->total, 0);
    for (int q = 0; q < ssn->nqueues; q++)
        update_share(ssn, q);
}

/* --- extension points ------------------------------------------------------ */

static int queue_order(void *state, const struct queue_info *a, const struct queue_info *b)
{
    (void)state;
    if (a->queue->priority != b->queue->priority)
        return a->queue->priority > b->queue->priority ? -1 : 1;
    if (a->share != b->share)
        return a->share < b->share ? -1 : 1;
    return 0;
}

/* Allocated of a queue and all its descendants. */
static struct resvec subtree_allocated(const struct session *ssn, int q)
{
    struct resvec sum = ssn->queues[q].allocated;
    for (int c = 0; c < ssn->nqueues; c++)
        for (int p = ssn->queues[c].parent, hops = 0; p >= 0 && hops < ssn->nqueues; p = ssn->queues[p].parent, hops++)
            if (p == q)
                resvec_add(&sum, &ssn->queues[c].allocated);
    return sum;
}

static bool allocatable(void *state, const struct queue_info *qi, const struct job_info *job,
                        const struct task_info *task, char *why, int why_len)
{
    struct proportion *pp = state;
    struct session *ssn = pp->ssn;
    (void)job;
    if (!qi)
        return true;
    for (int q = (int)(qi - ssn->queues), hops = 0; q >= 0 && hops <= ssn->nqueues; q = ssn->queues[q].parent, hops++) {
        struct resvec used = subtree_allocated(ssn, q);
        resvec_add(&used, task->request);
        int short_dim = -1;
        for (int r = 0; r < RES_MAX && short_dim < 0; r++)
            if (r != RES_PODS && task->request->v[r] > 0 && used.v[r] > ssn->queues[q].deserved.v[r])
                short_dim = r;
        if (short_dim < 0)
            continue;
        /* the share and the queue's usage move with every other job: neither is quoted */
        char ask[32];
        resource_format(short_dim, task->request->v[short_dim], ask, sizeof ask);
        snprintf(why, (size_t)why_len, "queue %s is at its deserved share of %s; this task asks %s",
                 ssn->queues[q].queue->name, resource_name(short_dim), ask);
        return false;
    }
    return true;
}

static bool overused(void *state, const struct queue_info *qi)
{
    struct proportion *pp = state;
    for (int r = 0; r < RES_MAX; r++)
        if (r != RES_PODS && dim_used(pp->ssn, r) && qi->deserved.v[r] > qi->allocated.v[r])
            return false;
    return true;
}

/* Volcano's rule: a victim's queue must be over its deserved share, and keep giving only while it
 * still holds at least what the reclaimer needs. */
static int reclaimable(void *state, const struct job_info *reclaimer, struct victim **cands, int n)
{
    struct proportion *pp = state;
    struct session *ssn = pp->ssn;
    struct resvec *left = calloc((size_t)ssn->nqueues + 1, sizeof *left);
    bool *seen = calloc((size_t)ssn->nqueues + 1, sizeof *seen);
    const struct resvec *need = reclaimer->ntasks > 0 ? reclaimer->tasks[0].request : NULL;
    int kept = 0;
    for (int i = 0; left && seen && need && i < n; i++) {
        int q = cands[i]->queue;
        if (q < 0)
            continue;
        if (!seen[q]) {
            left[q] = ssn->queues[q].allocated;
            seen[q] = true;
        }
        bool enough = true, over = false;
        for (int r = 0; r < RES_MAX; r++) {
            if (r == RES_PODS)
                continue;
            if (left[q].v[r] < need->v[r])
                enough = false;
            if (left[q].v[r] > ssn->queues[q].deserved.v[r])
                over = true;
        }
        if (!enough || !over)
            continue;
        resvec_sub(&left[q], cands[i]->request);
        cands[kept++] = cands[i];
    }
    free(left);
    free(seen);
    return kept;
}

static int enqueueable(void *state, const struct job_info *job, char *why, int why_len)
{
    struct proportion *pp = state;
    struct session *ssn = pp->ssn;
    if (job->queue < 0 || !pp->capped[job->queue])
        return 0;
    const struct queue_info *qi = &ssn->queues[job->queue];
    struct resvec want = job->job->pg.min_resources;
    resvec_add(&want, &qi->allocated);
    resvec_add(&want, &qi->inqueue);
    for (int r = 0; r < RES_MAX; r++) {
        if (r == RES_PODS || job->job->pg.min_resources.v[r] == 0 || want.v[r] <= pp->capability[job->queue].v[r])
            continue;
        /* the capability and the job's minimum, not the queue's usage, which moves with its other jobs */
        char cap[32], need[32];
        resource_format(r, pp->capability[job->queue].v[r], cap, sizeof cap);
        resource_format(r, job->job->pg.min_resources.v[r], need, sizeof need);
        snprintf(why, (size_t)why_len,
                 "queue %s capability exceeded: %s %s capability leaves no room for this job's %s", qi->queue->name,
                 resource_name(r), cap, need);
        return -1;
    }
    return 0;
}

static void on_allocate(void *state, const struct job *job, struct job_info *info, const struct resvec *request,
                        int32_t count, int sign)
{
    struct proportion *pp = state;
    (void)request;
    (void)count;
    (void)sign;
    int q = info ? info->queue : session_queue_index(pp->ssn, job->queue);
    if (q >= 0)
        update_share(pp->ssn, q);
}

static int proportion_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    struct proportion *pp = calloc(1, sizeof *pp);
    size_t n = (size_t)ssn->nqueues + 1;
    if (!pp || !(pp->request = calloc(n, sizeof *pp->request)) ||
        !(pp->capability = calloc(n, sizeof *pp->capability)) || !(pp->capped = calloc(n, sizeof *pp->capped))) {
        if (pp) {
            free(pp->request);
            free(pp->capability);
        }
        free(pp);
        return -1;
    }
    pp->ssn = ssn;
    compute_deserved(pp);
    *state = pp;
    session_add_queue_order(ssn, conf, tier, queue_order, pp);
    session_add_allocatable(ssn, conf, tier, allocatable, pp);
    session_add_overused(ssn, conf, tier, overused, pp);
    session_add_reclaimable(ssn, conf, tier, reclaimable, pp);
    session_add_job_enqueueable(ssn, conf, tier, enqueueable, pp);
    session_add_allocate_event(ssn, on_allocate, pp);
    return 0;
}

static void proportion_close(struct session *ssn, void *state)
{
    (void)ssn;
    struct proportion *pp = state;
    free(pp->request);
    free(pp->capability);
    free(pp->capped);
    free(pp);
}

const struct plugin_def plugin_proportion = {"proportion", proportion_open, proportion_close};
