/* The allocate action: in job order, place each inqueue job's pending replicas on nodes, gang by
 * gang. Jobs that request only a pod slot (best-effort) are left to backfill, as in Volcano. */
#include <stdlib.h>

#include "scheduler/framework/plugin.h"

static bool has_regular_task(const struct job_info *ji)
{
    for (int i = 0; i < ji->ntasks; i++)
        if (!ji->tasks[i].best_effort)
            return true;
    return false;
}

static void allocate_execute(struct session *ssn)
{
    int *order = session_sorted_jobs(ssn);
    if (!order)
        return;
    for (int i = 0; i < ssn->njobs; i++) {
        struct job_info *ji = &ssn->jobs[order[i]];
        char why[256];
        if (!ji->inqueue || ji->pending == 0 || !has_regular_task(ji) || !session_job_valid(ssn, ji, why, sizeof why))
            continue;
        session_place_job(ssn, ji, false);
    }
    free(order);
}

const struct action_def action_allocate = {"allocate", allocate_execute};
