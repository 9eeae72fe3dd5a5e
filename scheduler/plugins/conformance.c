/* The conformance plugin: preemption and reclaim never evict replicas of the system-critical
 * priority classes, nor anything in the kube-system namespace, as in Volcano. */
#include <string.h>

#include "scheduler/framework/plugin.h"

#define SYSTEM_CRITICAL_PRIORITY 2000000000

static int conformance_victims(void *state, const struct job_info *job, struct victim **cands, int n)
{
    (void)state;
    (void)job;
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (cands[i]->priority < SYSTEM_CRITICAL_PRIORITY && strcmp(cands[i]->job->ns, "kube-system") != 0)
            cands[kept++] = cands[i];
    return kept;
}

static int conformance_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    *state = NULL;
    session_add_preemptable(ssn, conf, tier, conformance_victims, NULL);
    session_add_reclaimable(ssn, conf, tier, conformance_victims, NULL);
    return 0;
}

const struct plugin_def plugin_conformance = {"conformance", conformance_open, NULL};
