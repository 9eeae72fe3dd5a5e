/* The predicates plugin: may this replica run on this node? A static filter (schedulable, node
 * selector, required node affinity, taints), a dynamic fit on idle resources, then the rules about
 * other pods (topology spread, pod anti-affinity and affinity), in Kubernetes' words. */
#include <stdio.h>

#include "scheduler/plugins/pod_rules.h"

#include "scheduler/framework/plugin.h"
#include "scheduler/plugins/node_match.h"

/* kube-scheduler's NodeUnschedulable lets a pod that tolerates this taint onto a cordoned node. */
static bool tolerates_unschedulable(const struct placement_constraints *c)
{
    const struct taint_view cordon = {"node.kubernetes.io/unschedulable", "", "NoSchedule"};
    return constraints_tolerate(c, &cordon);
}

/* Volcano's order: NodeUnschedulable, NodeAffinity (selector, then required terms), TaintToleration.
 * Depends only on the constraints (whose signature keys the framework's cache) and the node. */
static bool predicates_filter(void *state, const struct task_info *task, const struct node *node, char *reason,
                              int reason_len)
{
    (void)state;
    const struct placement_constraints *c = constraints_of(task->spec);
    struct taint_view taint;
    if (node->unschedulable && !tolerates_unschedulable(c)) {
        snprintf(reason, (size_t)reason_len, "node(s) were unschedulable");
        return false;
    }
    if (!node_matches_selector(c, node)) {
        snprintf(reason, (size_t)reason_len, "node(s) didn't match node selector");
        return false;
    }
    if (!node_matches_required_affinity(c, node)) {
        snprintf(reason, (size_t)reason_len, "node(s) didn't match node affinity");
        return false;
    }
    if (node_untolerated_taint(c, node, &taint)) {
        snprintf(reason, (size_t)reason_len, "node(s) had untolerated taint {%s: %s}", taint.key, taint.value);
        return false;
    }
    return true;
}

/* Every dimension of one replica's request must fit what the node has left in this session. */
static bool predicates_fit(void *state, const struct job_info *job, const struct task_info *task,
                           const struct node_info *node, char *reason, int reason_len)
{
    (void)state;
    (void)job;
    int short_dim = resvec_first_short(task->request, &node->idle);
    if (short_dim < 0)
        return true;
    if (short_dim == RES_PODS)
        snprintf(reason, (size_t)reason_len, "too many pods");
    else
        snprintf(reason, (size_t)reason_len, "insufficient %s", resource_name(short_dim));
    return false;
}

/* kube-scheduler's PodTopologySpread and InterPodAffinity filters; state is the session. */
static bool predicates_pod_rules(void *state, const struct job_info *job, const struct task_info *task,
                                 const struct node_info *node, char *reason, int reason_len)
{
    struct session *ssn = state;
    /* task is the session's own (ssn->jobs[..].tasks): the rules resolved for it are kept on it */
    return pod_rules_admit(ssn, job, (struct task_info *)task, (int)(node - ssn->nodes), reason, reason_len);
}

static int predicates_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    *state = NULL;
    session_add_node_filter(ssn, conf, tier, predicates_filter, NULL);
    session_add_predicate(ssn, conf, tier, predicates_fit, NULL);
    if (pod_rules_in_session(ssn))
        session_add_predicate(ssn, conf, tier, predicates_pod_rules, ssn);
    return 0;
}

const struct plugin_def plugin_predicates = {"predicates", predicates_open, NULL};
