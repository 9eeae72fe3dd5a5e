/* The quota plugin: namespace ResourceQuotas as a shared platform wants them. A job that would
 * take its namespace over a hard limit is not failed (as Kubernetes' own quota does) but waits in
 * its queue, with the limit named in its pending reason. Opened even when the conf does not list
 * it, whenever a ResourceQuota exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hashmap.h"
#include "scheduler/framework/plugin.h"

struct ns_quota {
    const char *ns; /* points into a quota of the cluster */
    bool limited[RES_MAX];
    struct resvec hard;     /* the tightest limit over the namespace's quotas */
    struct resvec used;     /* held by its replicas, plus placed now */
    struct resvec reserved; /* the minimums of its enqueued jobs not yet running (only enqueue counts them) */
};

struct quota {
    struct hmap by_ns;
};

static const char *hard_key(int r)
{
    static const char *const keys[] = {"requests.cpu", "requests.memory", "pods"};
    return r <= RES_PODS ? keys[r] : NULL;
}

/* The first limited dimension where base + more goes over, or -1. */
static int over_limit(const struct ns_quota *q, const struct resvec *base, const struct resvec *more)
{
    for (int r = 0; r < RES_MAX; r++)
        if (q->limited[r] && more->v[r] > 0 && base->v[r] + more->v[r] > q->hard.v[r])
            return r;
    return -1;
}

/* The limit and what this job or task asks, never the namespace's usage: the reason is part of a
 * waiting job's status, recorded again whenever its text changes, and usage moves with every other
 * job of the namespace. */
static void explain(const struct ns_quota *q, int r, const struct resvec *more, const char *what, char *why, int len)
{
    char hard[32], ask[32];
    resource_format(r, q->hard.v[r], hard, sizeof hard);
    resource_format(r, more->v[r], ask, sizeof ask);
    const char *key = hard_key(r);
    char ext[96];
    if (!key) {
        snprintf(ext, sizeof ext, "requests.%s", resource_name(r));
        key = ext;
    }
    snprintf(why, (size_t)len, "namespace %s quota: hard limit %s of %s leaves no room for this %s's %s", q->ns, hard,
             key, what, ask);
}

static int quota_enqueueable(void *state, const struct job_info *job, char *why, int why_len)
{
    struct quota *qs = state;
    struct ns_quota *q = strmap_get(&qs->by_ns, job->job->ns);
    if (!q)
        return 0;
    const struct resvec *min = &job->job->pg.min_resources;
    struct resvec committed = q->used;
    resvec_add(&committed, &q->reserved);
    int r = over_limit(q, &committed, min);
    if (r >= 0) {
        explain(q, r, min, "job", why, why_len);
        return -1;
    }
    resvec_add(&q->reserved, min); /* as Volcano's enqueue reserves a job's minimum */
    return 0;
}

static bool quota_allocatable(void *state, const struct queue_info *queue, const struct job_info *job,
                              const struct task_info *task, char *why, int why_len)
{
    (void)queue;
    struct quota *qs = state;
    const struct ns_quota *q = strmap_get(&qs->by_ns, job->job->ns);
    if (!q)
        return true;
    int r = over_limit(q, &q->used, task->request);
    if (r < 0)
        return true;
    explain(q, r, task->request, "task", why, why_len);
    return false;
}

static void quota_on_allocate(void *state, const struct job *job, struct job_info *info, const struct resvec *request,
                              int32_t count, int sign)
{
    (void)info;
    struct quota *qs = state;
    struct ns_quota *q = strmap_get(&qs->by_ns, job->ns);
    for (int32_t k = 0; q && k < count; k++) {
        if (sign > 0)
            resvec_add(&q->used, request);
        else
            resvec_sub(&q->used, request);
    }
}

static int add_quota(struct quota *qs, const struct resource_quota *rq)
{
    struct ns_quota *q = strmap_get(&qs->by_ns, rq->ns);
    if (!q) {
        if (!(q = calloc(1, sizeof *q)))
            return -1;
        q->ns = rq->ns;
        if (strmap_put(&qs->by_ns, q->ns, q) != 0) {
            free(q);
            return -1;
        }
    }
    for (int r = 0; r < RES_MAX; r++) {
        if (!rq->limited[r])
            continue;
        if (!q->limited[r] || rq->hard.v[r] < q->hard.v[r])
            q->hard.v[r] = rq->hard.v[r];
        q->limited[r] = true;
    }
    return 0;
}

static int quota_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    struct quota *qs = calloc(1, sizeof *qs);
    if (!qs)
        return -1;
    *state = qs;
    const struct cluster *c = ssn->cluster;
    for (int i = 0; i < c->nquotas; i++)
        if (add_quota(qs, c->quotas[i]) != 0)
            return -1;
    /* a namespace's use counts every zone: the quota is the namespace's, not the partition's */
    for (const struct job *job = c->active_first; job; job = job->active_next) {
        struct ns_quota *q = job->deleted ? NULL : strmap_get(&qs->by_ns, job->ns);
        if (!q)
            continue;
        resvec_add(&q->used, &job->allocated);
        if (job->pg.phase == PG_INQUEUE) {
            struct resvec rest = job->pg.min_resources;
            resvec_sub(&rest, &job->allocated);
            for (int r = 0; r < RES_MAX; r++)
                if (rest.v[r] > 0)
                    q->reserved.v[r] += rest.v[r];
        }
    }
    session_add_job_enqueueable(ssn, conf, tier, quota_enqueueable, qs);
    session_add_allocatable(ssn, conf, tier, quota_allocatable, qs);
    session_add_allocate_event(ssn, quota_on_allocate, qs);
    return 0;
}

static void quota_close(struct session *ssn, void *state)
{
    (void)ssn;
    struct quota *qs = state;
    void *v;
    for (size_t i = 0; hmap_next(&qs->by_ns, &i, NULL, &v);)
        free(v);
    hmap_free(&qs->by_ns);
    free(qs);
}

const struct plugin_def plugin_quota = {"quota", quota_open, quota_close};
