/* The backfill action: place best-effort replicas (no requests but a pod slot) wherever a node has
 * room, still all-or-nothing per gang. */
#include <stdlib.h>

#include "scheduler/framework/plugin.h"

static void backfill_execute(struct session *ssn)
{
    int *order = session_sorted_jobs(ssn);
    if (!order)
        return;
    for (int i = 0; i < ssn->njobs; i++) {
        struct job_info *ji = &ssn->jobs[order[i]];
        char why[256];
        if (!ji->inqueue || ji->pending == 0 || ji->placed_now || !session_job_valid(ssn, ji, why, sizeof why))
            continue;
        bool only_best_effort = true;
        for (int t = 0; t < ji->ntasks; t++)
            if (!ji->tasks[t].best_effort && ji->tasks[t].pending > 0)
                only_best_effort = false;
        if (only_best_effort)
            session_place_job(ssn, ji, true);
    }
    free(order);
}

const struct action_def action_backfill = {"backfill", backfill_execute};
