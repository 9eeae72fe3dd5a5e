/* The nodeorder plugin: Volcano's node scores (least/most requested, balanced resources, preferred
 * node affinity, taint toleration, pod affinity, topology spread), each 0..100 times its weight
 * from the plugin's arguments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/plugin.h"
#include "scheduler/plugins/node_match.h"
#include "scheduler/plugins/pod_rules.h"

#define MAX_NODE_SCORE 100

/* A node's PreferNoSchedule taints: views[first .. first+count). */
struct node_taints {
    int first, count;
};

struct nodeorder_state {
    double least_requested, most_requested, balanced, affinity, taint, pod_affinity, pod_spread; /* weights */
    const struct session *ssn;     /* for the pod rules' counts; NULL when no job has pod rules */
    struct node_taints *taints_of; /* by cluster node index; only this session's nodes are filled */
    struct taint_view *views;
    int max_prefer_taints; /* the most PreferNoSchedule taints any node of the session has */
};

/* What the node would hold of resource r with one more replica, and what it can hold. */
struct usage {
    int64_t requested, allocatable;
};

static struct usage usage_of(const struct task_info *task, const struct node_info *ni, int r)
{
    struct usage u;
    u.allocatable = ni->node->allocatable.v[r];
    u.requested = u.allocatable - ni->idle.v[r] + task->request->v[r];
    return u;
}

/* kube-scheduler's leastRequestedScore: the share left free, 0..100 (integer, as kube rounds). */
static int64_t least_requested_of(struct usage u)
{
    if (u.requested > u.allocatable)
        return 0;
    return (u.allocatable - u.requested) * MAX_NODE_SCORE / u.allocatable;
}

/* kube-scheduler's mostRequestedScore: the share in use, 0..100, capped at full. */
static int64_t most_requested_of(struct usage u)
{
    int64_t requested = u.requested > u.allocatable ? u.allocatable : u.requested;
    return requested * MAX_NODE_SCORE / u.allocatable;
}

/* Least or most requested over cpu and memory, equally weighted; resources the node does not
 * offer are left out, as kube-scheduler leaves them out. */
static double requested_score(const struct task_info *task, const struct node_info *ni, bool most)
{
    static const int dims[] = {RES_CPU, RES_MEMORY};
    int64_t sum = 0, weights = 0;
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        struct usage u = usage_of(task, ni, dims[i]);
        if (u.allocatable <= 0)
            continue;
        sum += most ? most_requested_of(u) : least_requested_of(u);
        weights++;
    }
    return weights ? (double)(sum / weights) : 0;
}

/* kube-scheduler's BalancedAllocation: (1 - standard deviation of the cpu and memory fractions)
 * x 100; with two fractions the deviation is half their difference. */
static double balanced_score(const struct task_info *task, const struct node_info *ni)
{
    static const int dims[] = {RES_CPU, RES_MEMORY};
    double fraction[2];
    int n = 0;
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        struct usage u = usage_of(task, ni, dims[i]);
        if (u.allocatable <= 0)
            continue;
        double f = (double)u.requested / (double)u.allocatable;
        fraction[n++] = f > 1 ? 1 : f;
    }
    double std = n == 2 ? fabs(fraction[0] - fraction[1]) / 2 : 0;
    return (double)(int64_t)((1 - std) * MAX_NODE_SCORE);
}

/* kube-scheduler sums the weights of the matching preferred terms and normalises by the best
 * node; a per-node score normalises by the most any node could match instead (same order). */
static double affinity_score(const struct task_info *task, const struct node_info *ni)
{
    const struct placement_constraints *c = constraints_of(task->spec);
    if (c->npreferred == 0)
        return 0;
    int total = constraints_preferred_total(c);
    return total > 0 ? (double)(node_preferred_weight(c, ni->node) * MAX_NODE_SCORE / total) : 0;
}

/* kube-scheduler counts the PreferNoSchedule taints a pod does not tolerate and reverses the
 * count against the worst node: 100 - count x 100 / max. The max here is the most such taints
 * any node of the session has, so the score needs no other node. */
static double taint_score(const struct nodeorder_state *st, const struct task_info *task, const struct node_info *ni)
{
    const struct node_taints *nt = &st->taints_of[ni->index];
    if (st->max_prefer_taints == 0 || nt->count == 0)
        return MAX_NODE_SCORE;
    int count = intolerable_taints(constraints_of(task->spec), st->views + nt->first, nt->count);
    return (double)(MAX_NODE_SCORE - (int64_t)count * MAX_NODE_SCORE / st->max_prefer_taints);
}

static double nodeorder_score(void *state, const struct task_info *task, const struct node_info *ni)
{
    const struct nodeorder_state *st = state;
    double score = 0;
    if (st->least_requested != 0)
        score += requested_score(task, ni, false) * st->least_requested;
    if (st->most_requested != 0)
        score += requested_score(task, ni, true) * st->most_requested;
    if (st->balanced != 0)
        score += balanced_score(task, ni) * st->balanced;
    if (st->affinity != 0)
        score += affinity_score(task, ni) * st->affinity;
    if (st->taint != 0)
        score += taint_score(st, task, ni) * st->taint;
    if (st->ssn && st->pod_affinity != 0)
        score += pod_affinity_score(st->ssn, task, (int)(ni - st->ssn->nodes)) * st->pod_affinity;
    if (st->ssn && st->pod_spread != 0)
        score += pod_spread_score(st->ssn, task, (int)(ni - st->ssn->nodes)) * st->pod_spread;
    return score;
}

static bool prefer_no_schedule(const struct taint_view *t) { return strcmp(t->effect, "PreferNoSchedule") == 0; }

/* Reads every session node's PreferNoSchedule taints once, so scoring touches no JSON for them. */
static int digest_taints(struct nodeorder_state *st, const struct session *ssn)
{
    size_t total = 0;
    for (int i = 0; i < ssn->nnodes; i++)
        total += json_array_size(ssn->nodes[i].node->taints);
    st->taints_of = calloc((size_t)ssn->cluster->nnodes + 1, sizeof *st->taints_of);
    st->views = calloc(total + 1, sizeof *st->views);
    if (!st->taints_of || !st->views)
        return -1;
    int next = 0;
    for (int i = 0; i < ssn->nnodes; i++) {
        const struct node_info *ni = &ssn->nodes[i];
        struct node_taints *nt = &st->taints_of[ni->index];
        nt->first = next;
        for (size_t t = 0; t < json_array_size(ni->node->taints); t++) {
            taint_view_of(ni->node->taints, t, &st->views[next]);
            if (prefer_no_schedule(&st->views[next]))
                next++;
        }
        nt->count = next - nt->first;
        if (nt->count > st->max_prefer_taints)
            st->max_prefer_taints = nt->count;
    }
    return 0;
}

static void nodeorder_free(struct nodeorder_state *st)
{
    if (!st)
        return;
    free(st->taints_of);
    free(st->views);
    free(st);
}

static int nodeorder_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    *state = NULL;
    if (!conf->enabled[SW_NODE_ORDER])
        return 0;
    struct nodeorder_state *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    st->least_requested = plugin_arg_number(conf, "leastrequested.weight", 1);
    st->most_requested = plugin_arg_number(conf, "mostrequested.weight", 0);
    st->balanced = plugin_arg_number(conf, "balancedresource.weight", 1);
    st->affinity = plugin_arg_number(conf, "nodeaffinity.weight", 2); /* Volcano's current defaults */
    st->taint = plugin_arg_number(conf, "tainttoleration.weight", 3);
    st->pod_affinity = plugin_arg_number(conf, "podaffinity.weight", 2);
    st->pod_spread = plugin_arg_number(conf, "podtopologyspread.weight", 2);
    st->ssn = pod_rules_in_session(ssn) ? ssn : NULL;
    if (digest_taints(st, ssn) != 0) {
        nodeorder_free(st);
        return -1;
    }
    *state = st;
    session_add_node_order(ssn, conf, tier, nodeorder_score, st);
    return 0;
}

static void nodeorder_close(struct session *ssn, void *state)
{
    (void)ssn;
    nodeorder_free(state);
}

const struct plugin_def plugin_nodeorder = {"nodeorder", nodeorder_open, nodeorder_close};
