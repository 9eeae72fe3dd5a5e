/* The allocate action: in job order, place each inqueue job's pending replicas on nodes, gang by
 * gang. Jobs that request only a pod slot (best-effort) are left to backfill, as in Volcano. */
#include "scheduler/framework/plugin.h"

static bool has_regular_task(const struct job_info *ji)
{
    for (int i = 0; i < ji->ntasks; i++)
        if (!ji->tasks[i].best_effort)
            return true;
    return false;
}

static void allocate_job(struct session *ssn, struct job_info *ji)
{
    char why[256];
    if (!ji->inqueue || ji->pending == 0 || !has_regular_task(ji) || !session_job_valid(ssn, ji, why, sizeof why))
        return;
    session_place_job(ssn, ji, false);
}

static void allocate_execute(struct session *ssn) { session_each_job(ssn, allocate_job); }

const struct action_def action_allocate = {"allocate", allocate_execute};
