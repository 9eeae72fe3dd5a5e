/* The numa-aware plugin (Volcano's numaaware): a Guaranteed task asking whole CPUs goes only where the
 * node's static CPU manager can give them under its topology manager policy, which must be the task's
 * volcano.sh/numa-topology-policy; nodes that need fewer NUMA cells score higher. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/numa.h"
#include "scheduler/framework/plugin.h"

struct numa_aware {
    const struct session *ssn;
    double weight;
    int (*free)[NUMA_CELLS_MAX]; /* per session node: exclusive CPUs still free per cell, binds of this session out */
    int seen;                    /* binds replayed into `free` */
    struct bind_decision last;   /* binds[seen - 1] as it was replayed (a rollback may have replaced it) */
};

static const struct numa_topology *static_topology(const struct node *n)
{
    return n->numa && n->numa->static_cpus && n->numa->ncells > 0 ? n->numa : NULL;
}

/* Takes `replicas` times `want` CPUs from a node's free counts as numa_take would. */
static void take(const struct numa_topology *t, int *free, int want, int32_t replicas)
{
    for (int32_t r = 0; r < replicas; r++) {
        unsigned cells;
        if (numa_fit(t, free, want, t->policy, &cells) == 0)
            return;
        int left = want;
        for (int i = 0; i < t->ncells && left > 0; i++)
            if (cells & (1u << i)) {
                int n = free[i] < left ? free[i] : left;
                free[i] -= n;
                left -= n;
            }
    }
}

static void replay(struct numa_aware *s, const struct bind_decision *b, int32_t replicas)
{
    const struct session *ssn = s->ssn;
    const struct node *node = ssn->nodes[b->node].node;
    const struct numa_topology *t = static_topology(node);
    const struct task_spec *ts = &ssn->jobs[b->job].job->tasks[b->task];
    int want = t ? numa_exclusive_cpus(&ts->request, &ts->limit) : 0;
    if (want > 0)
        take(t, s->free[b->node], want, replicas);
}

/* Brings `free` up to the session's binds; starts over when a statement was rolled back (fewer binds,
 * or the last one replayed is no longer there as it was). */
static void sync_binds(struct numa_aware *s)
{
    const struct session *ssn = s->ssn;
    const struct bind_decision *last = s->seen > 0 && s->seen <= ssn->nbinds ? &ssn->binds[s->seen - 1] : NULL;
    if (s->seen > 0 && (!last || last->job != s->last.job || last->task != s->last.task || last->node != s->last.node ||
                        last->count < s->last.count)) {
        for (int n = 0; n < ssn->nnodes; n++) {
            const struct numa_topology *t = static_topology(ssn->nodes[n].node);
            if (t)
                numa_free_counts(t, s->free[n]);
        }
        s->seen = 0;
        last = NULL;
    }
    if (last && last->count > s->last.count)
        replay(s, last, last->count - s->last.count);
    for (int b = s->seen; b < ssn->nbinds; b++)
        replay(s, &ssn->binds[b], ssn->binds[b].count);
    s->seen = ssn->nbinds;
    if (s->seen > 0)
        s->last = ssn->binds[s->seen - 1];
}

static bool numa_predicate(void *state, const struct job_info *job, const struct task_info *task,
                           const struct node_info *node, char *reason, int reason_len)
{
    (void)job;
    struct numa_aware *s = state;
    sync_binds(s); /* every time, so no rollback between two binds goes unseen */
    enum topology_policy want_policy = (enum topology_policy)task->spec->topology_policy;
    int want = numa_exclusive_cpus(task->request, &task->spec->limit);
    if (want == 0) /* not Guaranteed with whole CPUs: the CPU manager leaves it in the shared pool */
        return true;
    const struct numa_topology *t = node->node->numa;
    if (want_policy != TOPO_NONE) {
        if (!t || t->ncells == 0) {
            snprintf(reason, (size_t)reason_len, "node(s) had no NUMA topology");
            return false;
        }
        if (!t->static_cpus) {
            snprintf(reason, (size_t)reason_len, "node(s) had a CPU manager policy other than static");
            return false;
        }
        if (t->policy != want_policy) {
            snprintf(reason, (size_t)reason_len, "node(s) had a topology manager policy other than %s",
                     topology_policy_name(want_policy));
            return false;
        }
    }
    if (!static_topology(node->node))
        return true;
    unsigned cells;
    if (numa_fit(t, s->free[node - s->ssn->nodes], want, t->policy, &cells) == 0) {
        snprintf(reason, (size_t)reason_len, "node(s) couldn't give %d exclusive CPUs under topology policy %s", want,
                 topology_policy_name(t->policy));
        return false;
    }
    return true;
}

/* Fewer cells, higher score: 100 for one, 50 for two... (Volcano normalises the count over the nodes). */
static double numa_order(void *state, const struct task_info *task, const struct node_info *node)
{
    struct numa_aware *s = state;
    const struct numa_topology *t = static_topology(node->node);
    int want = numa_exclusive_cpus(task->request, &task->spec->limit);
    if (!t || want == 0 || task->spec->topology_policy == TOPO_NONE)
        return 0;
    sync_binds(s);
    unsigned cells;
    int k = numa_fit(t, s->free[node - s->ssn->nodes], want, t->policy, &cells);
    return k > 0 ? s->weight * 100.0 / k : 0;
}

static int numa_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    struct numa_aware *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->ssn = ssn;
    s->weight = plugin_arg_number(conf, "weight", 1);
    s->free = calloc((size_t)(ssn->nnodes > 0 ? ssn->nnodes : 1), sizeof *s->free);
    if (!s->free) {
        free(s);
        return -1;
    }
    for (int n = 0; n < ssn->nnodes; n++) {
        const struct numa_topology *t = static_topology(ssn->nodes[n].node);
        if (t)
            numa_free_counts(t, s->free[n]);
    }
    *state = s;
    session_add_predicate(ssn, conf, tier, numa_predicate, s);
    session_add_node_order(ssn, conf, tier, numa_order, s);
    return 0;
}

static void numa_close(struct session *ssn, void *state)
{
    (void)ssn;
    struct numa_aware *s = state;
    free(s->free);
    free(s);
}

const struct plugin_def plugin_numa_aware = {"numa-aware", numa_open, numa_close};
const struct plugin_def plugin_numaaware = {"numaaware", numa_open, numa_close};
