/* The predicates plugin: may this replica run on this node? Resources (cpu, memory, gpu, pod
 * count, extended), and the node being schedulable. Reasons read like Kubernetes' FitError. */
#include <stdio.h>

#include "scheduler/framework/plugin.h"

static bool predicates_fit(void *state, const struct job_info *job, const struct task_info *task,
                           const struct node_info *node, char *reason, int reason_len)
{
    (void)state;
    (void)job;
    if (node->node->unschedulable) {
        snprintf(reason, (size_t)reason_len, "node(s) were unschedulable");
        return false;
    }
    int short_dim = resvec_first_short(task->request, &node->idle);
    if (short_dim < 0)
        return true;
    if (short_dim == RES_PODS)
        snprintf(reason, (size_t)reason_len, "too many pods");
    else
        snprintf(reason, (size_t)reason_len, "insufficient %s", resource_name(short_dim));
    return false;
}

static int predicates_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    *state = NULL;
    session_add_predicate(ssn, conf, tier, predicates_fit, NULL);
    return 0;
}

const struct plugin_def plugin_predicates = {"predicates", predicates_open, NULL};
