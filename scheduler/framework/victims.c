/* Running replicas as eviction candidates, indexed by node; built on first use by preempt or
 * reclaim. Replicas already being stopped are not candidates: their resources count as releasing
 * on their node, so a preemptor waiting for them does not evict anyone else. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/hashmap.h"
#include "scheduler/framework/hooks.h"

struct session_victims {
    struct victim *all;
    int n;
    struct victim **by_node; /* grouped by node, in the order of `first` */
    int *first;              /* per session node: index of its first victim in by_node; first[nnodes] = n */
};

static int build(struct session *ssn)
{
    const struct cluster *c = ssn->cluster;
    struct session_victims *sv = calloc(1, sizeof *sv);
    int *slot = malloc((size_t)(c->nnodes > 0 ? c->nnodes : 1) * sizeof *slot);
    struct hmap job_index = {0};
    if (!sv || !slot)
        goto fail;
    for (int i = 0; i < c->nnodes; i++)
        slot[i] = -1;
    for (int n = 0; n < ssn->nnodes; n++)
        slot[ssn->nodes[n].index] = n;
    for (int j = 0; j < ssn->njobs; j++)
        if (ptrmap_put(&job_index, ssn->jobs[j].job, &ssn->jobs[j]) != 0)
            goto fail;
    int cap = 0;
    for (const struct job *job = c->active_first; job; job = job->active_next) {
        if (job->deleted || job->backend != 0 || strcmp(job->scheduler_name, ssn->scheduler_name) != 0)
            continue;
        int queue = session_queue_index(ssn, job->queue);
        struct job_info *info = ptrmap_get(&job_index, job);
        for (int32_t i = 0; i < job->total_replicas; i++) {
            const struct replica *r = &job->replicas[i];
            if (r->phase != POD_RUNNING || r->node < 0 || slot[r->node] < 0)
                continue;
            const struct resvec *req = &job->tasks[job_task_of(job, i)].request;
            if (r->stopping) {
                resvec_add(&ssn->nodes[slot[r->node]].releasing, req);
                continue;
            }
            if (GROW(sv->all, cap, (size_t)sv->n + 1, 256) != 0)
                goto fail;
            sv->all[sv->n++] = (struct victim){
                job,           i,           slot[r->node], queue, info ? (int)(info - ssn->jobs) : -1, req,
                job->priority, r->start_ms, false};
        }
    }
    sv->first = calloc((size_t)ssn->nnodes + 1, sizeof *sv->first);
    sv->by_node = malloc((size_t)(sv->n > 0 ? sv->n : 1) * sizeof *sv->by_node);
    if (!sv->first || !sv->by_node)
        goto fail;
    for (int i = 0; i < sv->n; i++)
        sv->first[sv->all[i].node + 1]++;
    for (int n = 0; n < ssn->nnodes; n++)
        sv->first[n + 1] += sv->first[n];
    int *fill = calloc((size_t)(ssn->nnodes > 0 ? ssn->nnodes : 1), sizeof *fill);
    if (!fill)
        goto fail;
    for (int i = 0; i < sv->n; i++) {
        int node = sv->all[i].node;
        sv->by_node[sv->first[node] + fill[node]++] = &sv->all[i];
    }
    free(fill);
    free(slot);
    hmap_free(&job_index);
    ssn->victims = sv;
    return 0;
fail:
    free(slot);
    hmap_free(&job_index);
    if (sv) {
        free(sv->all);
        free(sv->by_node);
        free(sv->first);
        free(sv);
    }
    ssn->out_of_memory = true;
    return -1;
}

struct victim **session_victims_on(struct session *ssn, int node, int *n)
{
    *n = 0;
    if (!ssn->victims && build(ssn) != 0)
        return NULL;
    const struct session_victims *sv = ssn->victims;
    *n = sv->first[node + 1] - sv->first[node];
    return sv->by_node + sv->first[node];
}

int session_evict(struct session *ssn, struct victim *v, const char *fmt, ...)
{
    if (GROW(ssn->evicts, ssn->evicts_cap, (size_t)ssn->nevicts + 1, 16) != 0) {
        ssn->out_of_memory = true;
        return -1;
    }
    struct evict_decision *d = &ssn->evicts[ssn->nevicts++];
    d->job = v->job;
    d->flat = v->flat;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
    v->evicted = true;
    resvec_add(&ssn->nodes[v->node].releasing, v->request);
    struct job_info *info = v->job_info >= 0 ? &ssn->jobs[v->job_info] : NULL;
    if (info) {
        info->evicted_now++;
        info->ready--;
    }
    session_account(ssn, v->job, info, v->queue, v->request, 1, -1);
    return 0;
}

void session_unevict(struct session *ssn, int mark, struct victim **chosen, int nchosen)
{
    for (int i = 0; i < nchosen; i++) {
        struct victim *v = chosen[i];
        v->evicted = false;
        resvec_sub(&ssn->nodes[v->node].releasing, v->request);
        struct job_info *info = v->job_info >= 0 ? &ssn->jobs[v->job_info] : NULL;
        if (info) {
            info->evicted_now--;
            info->ready++;
        }
        session_account(ssn, v->job, info, v->queue, v->request, 1, +1);
    }
    ssn->nevicts = mark;
}

void session_victims_free(struct session *ssn)
{
    struct session_victims *sv = ssn->victims;
    if (!sv)
        return;
    free(sv->all);
    free(sv->by_node);
    free(sv->first);
    free(sv);
    ssn->victims = NULL;
}
