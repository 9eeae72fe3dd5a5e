/* The enqueue action: a PodGroup leaves Pending (and its pods come to exist) once the plugins
 * agree the cluster could hold its minimum, so jobs that cannot start don't crowd the allocator. */
#include <stdlib.h>

#include "scheduler/framework/plugin.h"

static void enqueue_execute(struct session *ssn)
{
    int *order = session_sorted_jobs(ssn);
    if (!order)
        return;
    for (int i = 0; i < ssn->njobs; i++) {
        struct job_info *ji = &ssn->jobs[order[i]];
        char why[256];
        if (ji->inqueue || !session_job_valid(ssn, ji, why, sizeof why))
            continue;
        if (session_job_enqueueable(ssn, ji)) {
            ji->inqueue = true;
            ji->enqueued_now = true;
        }
    }
    free(order);
}

const struct action_def action_enqueue = {"enqueue", enqueue_execute};
