/* The backfill action: place best-effort replicas (no requests but a pod slot) wherever a node has
 * room, still all-or-nothing per gang. Jobs mixing both kinds were placed whole by allocate. */
#include "scheduler/framework/plugin.h"

static bool only_best_effort(const struct job_info *ji)
{
    for (int t = 0; t < ji->ntasks; t++)
        if (!ji->tasks[t].best_effort && ji->tasks[t].pending > 0)
            return false;
    return true;
}

static void backfill_job(struct session *ssn, struct job_info *ji)
{
    char why[SESSION_MESSAGE_MAX];
    if (!ji->inqueue || ji->pending == 0 || ji->placed_now || !only_best_effort(ji) ||
        !session_job_valid(ssn, ji, why, sizeof why))
        return;
    session_place_job(ssn, ji, true);
}

static void backfill_execute(struct session *ssn) { session_each_job(ssn, false, backfill_job); }

const struct action_def action_backfill = {"backfill", backfill_execute};
