/* The enqueue action: a PodGroup leaves Pending (and its pods come to exist) once the plugins
 * agree the cluster could hold its minimum, so jobs that cannot start don't crowd the allocator. */
#include "scheduler/framework/plugin.h"

static void enqueue_job(struct session *ssn, struct job_info *ji)
{
    char why[256];
    if (ji->inqueue || !session_job_valid(ssn, ji, why, sizeof why))
        return;
    if (session_job_enqueueable(ssn, ji)) {
        ji->inqueue = true;
        ji->enqueued_now = true;
    }
}

static void enqueue_execute(struct session *ssn) { session_each_job(ssn, enqueue_job); }

const struct action_def action_enqueue = {"enqueue", enqueue_execute};
