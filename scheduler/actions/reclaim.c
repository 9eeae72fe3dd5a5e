/* The reclaim action: a starving job of a queue under its deserved share takes back resources
 * other queues borrowed beyond theirs, evicting from queues with `reclaimable: true` only (a queue
 * with reclaimable false keeps what it took). */
#include "scheduler/actions/eviction.h"
#include "scheduler/framework/plugin.h"

static void reclaim_job(struct session *ssn, struct job_info *ji)
{
    if (!ji->inqueue || ji->pending == 0 || ji->placed_now || ji->pipelined || ji->queue < 0 ||
        session_overused(ssn, &ssn->queues[ji->queue]) || !session_job_starving(ssn, ji))
        return;
    evict_for_job(ssn, ji, EVICT_RECLAIM);
}

static void reclaim_execute(struct session *ssn) { session_each_job(ssn, false, reclaim_job); }

const struct action_def action_reclaim = {"reclaim", reclaim_execute};
