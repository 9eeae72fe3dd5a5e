/* The overcommit plugin: a job is enqueued only when the zone's resources, multiplied by the
 * overcommit factor (argument overcommit-factor, default 1.2), less what is used and what enqueued
 * jobs reserve, cover its minimum. Caldera's addition: eviction can make room, so when the conf
 * runs reclaim, a job whose queue is under its deserved share is enqueued anyway, and when it runs
 * preempt, so is a job that outranks a running job of its queue. (Volcano enqueues neither, and
 * its preempt and reclaim skip jobs not enqueued: on a full cluster they would never act.) */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "scheduler/framework/plugin.h"

#define DEFAULT_FACTOR 1.2

struct overcommit {
    const struct session *ssn;
    double factor;
    struct resvec used; /* held on the zone's nodes at session start */
    bool reclaim_runs, preempt_runs;
    int32_t *lowest_running; /* per queue: the lowest priority among its running jobs (INT32_MAX: none) */
};

static bool within_deserved(const struct session *ssn, const struct job_info *job)
{
    if (job->queue < 0)
        return false;
    const struct queue_info *q = &ssn->queues[job->queue];
    for (int r = 0; r < RES_MAX; r++) {
        if (r == RES_PODS)
            continue;
        int64_t want = q->allocated.v[r] + q->inqueue.v[r] + job->job->pg.min_resources.v[r];
        if (job->job->pg.min_resources.v[r] > 0 && want > q->deserved.v[r])
            return false;
    }
    return true;
}

static int enqueueable(void *state, const struct job_info *job, char *why, int why_len)
{
    const struct overcommit *oc = state;
    const struct session *ssn = oc->ssn;
    const struct resvec *min = &job->job->pg.min_resources;
    if (resvec_best_effort(min))
        return 1;
    struct resvec inqueue = {0};
    for (int q = 0; q < ssn->nqueues; q++)
        resvec_add(&inqueue, &ssn->queues[q].inqueue);
    for (int r = 0; r < RES_MAX; r++) {
        if (r == RES_PODS || min->v[r] == 0)
            continue;
        double idle = (double)ssn->total.v[r] * oc->factor - (double)oc->used.v[r] - (double)inqueue.v[r];
        if ((double)min->v[r] <= idle)
            continue;
        if (oc->reclaim_runs && within_deserved(ssn, job))
            return 1;
        if (oc->preempt_runs && job->queue >= 0 && job->job->priority > oc->lowest_running[job->queue])
            return 1;
        /* What it needs, not what is free: the reason is part of the job's status, and a free amount
         * would change, and be recorded again for every waiting gang, whenever any job starts or ends
         * (Volcano says only "resource in cluster is overused"). */
        char need[32];
        resource_format(r, min->v[r], need, sizeof need);
        snprintf(why, (size_t)why_len,
                 "the cluster cannot hold the job's minimum (overcommit factor %.2g): %s %s needed", oc->factor,
                 resource_name(r), need);
        return -1;
    }
    return 1;
}

static int overcommit_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    struct overcommit *oc = calloc(1, sizeof *oc);
    if (!oc)
        return -1;
    oc->ssn = ssn;
    oc->factor = plugin_arg_number(conf, "overcommit-factor", DEFAULT_FACTOR);
    if (oc->factor < 1)
        oc->factor = 1;
    for (int n = 0; n < ssn->nnodes; n++)
        resvec_add(&oc->used, &ssn->nodes[n].node->used);
    for (int a = 0; a < ssn->conf->nactions; a++) {
        if (strcmp(ssn->conf->actions[a], "reclaim") == 0)
            oc->reclaim_runs = true;
        if (strcmp(ssn->conf->actions[a], "preempt") == 0)
            oc->preempt_runs = true;
    }
    oc->lowest_running = malloc((size_t)(ssn->nqueues + 1) * sizeof *oc->lowest_running);
    if (!oc->lowest_running) {
        free(oc);
        return -1;
    }
    for (int q = 0; q <= ssn->nqueues; q++)
        oc->lowest_running[q] = INT32_MAX;
    for (const struct job *j = ssn->cluster->active_first; oc->preempt_runs && j; j = j->active_next) {
        int q = j->deleted || resvec_is_zero(&j->allocated) ? -1 : session_queue_index(ssn, j->queue);
        if (q >= 0 && j->priority < oc->lowest_running[q])
            oc->lowest_running[q] = j->priority;
    }
    *state = oc;
    session_add_job_enqueueable(ssn, conf, tier, enqueueable, oc);
    return 0;
}

static void overcommit_close(struct session *ssn, void *state)
{
    (void)ssn;
    struct overcommit *oc = state;
    free(oc->lowest_running);
    free(oc);
}

const struct plugin_def plugin_overcommit = {"overcommit", overcommit_open, overcommit_close};
