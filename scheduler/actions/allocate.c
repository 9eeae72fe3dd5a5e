/* The allocate action: queue by queue (lowest share first, overused queues skipped), job by job,
 * place each inqueue job's pending replicas, gang by gang. Best-effort-only jobs are left to
 * backfill, as in Volcano. A queue with dequeueStrategy fifo stops at its first job that waits.
 * Without an enqueue action in the conf, allocate admits Pending PodGroups itself, as Volcano's. */
#include <stdio.h>
#include <string.h>

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
    if (!ji->inqueue || ji->pending == 0 || !has_regular_task(ji) ||
        !session_job_valid(ssn, ji, ji->reason, sizeof ji->reason))
        return;
    if (!session_place_job(ssn, ji, false) && ji->queue >= 0 && ssn->queues[ji->queue].queue->dequeue_fifo &&
        ji->ready < ji->job->min_available)
        ssn->queues[ji->queue].blocked = true;
}

/* Jobs of a queue allocate skipped because the queue already holds its deserved share get that as
 * their reason: otherwise nothing would tell their owners why they wait. */
static void explain_overused_queues(struct session *ssn)
{
    for (int j = 0; j < ssn->njobs; j++) {
        struct job_info *ji = &ssn->jobs[j];
        if (ji->tried || !ji->inqueue || ji->pending == 0 || ji->queue < 0 ||
            !session_overused(ssn, &ssn->queues[ji->queue]))
            continue;
        const struct queue_info *q = &ssn->queues[ji->queue];
        char deserved[32], allocated[32];
        resource_format(RES_CPU, q->deserved.v[RES_CPU], deserved, sizeof deserved);
        resource_format(RES_CPU, q->allocated.v[RES_CPU], allocated, sizeof allocated);
        snprintf(ji->reason, sizeof ji->reason, "queue %s is at its deserved share: cpu %s deserved, %s allocated",
                 q->queue->name, deserved, allocated);
        ji->tried = true;
    }
}

static bool conf_runs_enqueue(const struct sched_conf *conf)
{
    for (int a = 0; a < conf->nactions; a++)
        if (strcmp(conf->actions[a], "enqueue") == 0)
            return true;
    return false;
}

/* Volcano's allocate: "If not config enqueue action, change Pending pg into Inqueue status to avoid
 * blocking job scheduling", for every job of the session, before any queue or validity check. */
static void admit_pending_jobs(struct session *ssn)
{
    if (conf_runs_enqueue(ssn->conf))
        return;
    for (int j = 0; j < ssn->njobs; j++) {
        struct job_info *ji = &ssn->jobs[j];
        if (ji->inqueue)
            continue;
        ji->inqueue = true;
        ji->enqueued_now = true;
    }
}

static void allocate_execute(struct session *ssn)
{
    admit_pending_jobs(ssn);
    session_each_job(ssn, true, allocate_job);
    explain_overused_queues(ssn);
}

const struct action_def action_allocate = {"allocate", allocate_execute};
