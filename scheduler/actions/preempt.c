/* The preempt action: within a queue, a starving job evicts running replicas of other jobs that
 * the plugins let it (priority: only lower priorities; conformance: never system-critical ones;
 * gang, when its enablePreemptable is on: never below a gang's minimum). Jobs whose priority class
 * says preemptionPolicy: Never do not preempt. */
#include "scheduler/actions/eviction.h"
#include "scheduler/framework/plugin.h"

static bool may_preempt(const struct session *ssn, const struct job_info *ji)
{
    if (!ji->job->priority_class)
        return true;
    const struct priority_class *pc = cluster_find_priority_class(ssn->cluster, ji->job->priority_class);
    return !pc || !pc->preempt_never;
}

static void preempt_job(struct session *ssn, struct job_info *ji)
{
    if (!ji->inqueue || ji->pending == 0 || ji->placed_now || ji->pipelined || ji->queue < 0 || !may_preempt(ssn, ji) ||
        !session_job_starving(ssn, ji))
        return;
    evict_for_job(ssn, ji, EVICT_PREEMPT);
}

static void preempt_execute(struct session *ssn) { session_each_job(ssn, false, preempt_job); }

const struct action_def action_preempt = {"preempt", preempt_execute};
