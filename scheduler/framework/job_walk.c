/* Walking the session's jobs the way Volcano's allocate does: pick the queue that comes first by
 * queue order (lowest share), in it the namespace that comes first (namespace fair share), in it
 * the best job by job order; hand it over; then choose again, because shares moved. */
#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/session.h"

struct ns_group {
    const char *ns;
    int *jobs; /* session job indexes in job order */
    int n, next;
};

struct queue_walk {
    struct ns_group *groups;
    int ngroups;
    int remaining;
};

static int cmp_jobs(const void *a, const void *b, void *ctx)
{
    const struct session *ssn = ctx;
    const struct job_info *x = &ssn->jobs[*(const int *)a], *y = &ssn->jobs[*(const int *)b];
    if (x->queue != y->queue)
        return x->queue < y->queue ? -1 : 1;
    int ns = strcmp(x->job->ns, y->job->ns);
    if (ns != 0)
        return ns;
    return session_job_order(ssn, x, y);
}

/* Queue index nqueues holds jobs whose queue is unknown: they come last, without limits. */
static struct queue_walk *build(struct session *ssn, int *order)
{
    struct queue_walk *walks = calloc((size_t)ssn->nqueues + 1, sizeof *walks);
    if (!walks)
        return NULL;
    qsort_r(order, (size_t)ssn->njobs, sizeof *order, cmp_jobs, ssn);
    for (int i = 0; i < ssn->njobs; i++) {
        const struct job_info *ji = &ssn->jobs[order[i]];
        struct queue_walk *w = &walks[ji->queue >= 0 ? ji->queue : ssn->nqueues];
        if (w->ngroups == 0 || strcmp(w->groups[w->ngroups - 1].ns, ji->job->ns) != 0) {
            struct ns_group *grown = realloc(w->groups, (size_t)(w->ngroups + 1) * sizeof *grown);
            if (!grown)
                return walks; /* the caller sees the walk incomplete through out_of_memory */
            w->groups = grown;
            w->groups[w->ngroups++] = (struct ns_group){ji->job->ns, &order[i], 0, 0};
        }
        w->groups[w->ngroups - 1].n++;
        w->remaining++;
    }
    return walks;
}

static bool queue_open(const struct session *ssn, const struct queue_walk *walks, int q, bool skip_limited)
{
    if (walks[q].remaining == 0)
        return false;
    if (q == ssn->nqueues || !skip_limited)
        return true;
    return !ssn->queues[q].blocked && !session_overused(ssn, &ssn->queues[q]);
}

static int pick_queue(const struct session *ssn, const struct queue_walk *walks, bool skip_limited)
{
    int best = -1;
    for (int q = 0; q < ssn->nqueues; q++) {
        if (!queue_open(ssn, walks, q, skip_limited))
            continue;
        if (best < 0 || session_queue_order(ssn, &ssn->queues[q], &ssn->queues[best]) < 0)
            best = q;
    }
    if (best < 0 && walks[ssn->nqueues].remaining > 0)
        best = ssn->nqueues;
    return best;
}

static struct ns_group *pick_namespace(const struct session *ssn, struct queue_walk *w)
{
    struct ns_group *best = NULL;
    for (int g = 0; g < w->ngroups; g++) {
        struct ns_group *ng = &w->groups[g];
        if (ng->next < ng->n && (!best || session_namespace_order(ssn, ng->ns, best->ns) < 0))
            best = ng;
    }
    return best;
}

int session_each_job(struct session *ssn, bool skip_limited, void (*fn)(struct session *ssn, struct job_info *job))
{
    int *order = malloc((size_t)(ssn->njobs > 0 ? ssn->njobs : 1) * sizeof *order);
    if (!order)
        return -1;
    for (int i = 0; i < ssn->njobs; i++)
        order[i] = i;
    struct queue_walk *walks = build(ssn, order);
    if (!walks) {
        free(order);
        return -1;
    }
    for (int q; (q = pick_queue(ssn, walks, skip_limited)) >= 0;) {
        struct ns_group *ng = pick_namespace(ssn, &walks[q]);
        if (!ng)
            break;
        walks[q].remaining--;
        fn(ssn, &ssn->jobs[ng->jobs[ng->next++]]);
    }
    for (int q = 0; q <= ssn->nqueues; q++)
        free(walks[q].groups);
    free(walks);
    free(order);
    return 0;
}
