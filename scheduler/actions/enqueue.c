/* The enqueue action: a PodGroup leaves Pending (and its pods come to exist) once the plugins
 * agree the cluster could hold its minimum (overcommit, proportion's capability, quota), so jobs
 * that cannot start don't crowd the allocator. A refusal leaves the plugin's reason on the job. */
#include "scheduler/framework/plugin.h"

static void enqueue_job(struct session *ssn, struct job_info *ji)
{
    if (ji->inqueue)
        return;
    if (!session_job_valid(ssn, ji, ji->reason, sizeof ji->reason))
        return;
    if (!session_job_enqueueable(ssn, ji, ji->reason, sizeof ji->reason))
        return;
    ji->reason[0] = '\0';
    ji->inqueue = true;
    ji->enqueued_now = true;
    if (ji->queue >= 0) /* reserve its minimum so the next job's check sees it */
        resvec_add(&ssn->queues[ji->queue].inqueue, &ji->job->pg.min_resources);
}

static void enqueue_execute(struct session *ssn) { session_each_job(ssn, false, enqueue_job); }

const struct action_def action_enqueue = {"enqueue", enqueue_execute};
