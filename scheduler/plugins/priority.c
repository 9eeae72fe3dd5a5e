/* The priority plugin: jobs of a higher priority (from their PriorityClass) are placed first, within
 * a job the tasks of a higher priority (their template's priorityClassName, else the Job's) first,
 * and in preemption a job may only evict replicas of jobs of a strictly lower priority. */
#include "scheduler/framework/plugin.h"

static int priority_job_order(void *state, const struct job_info *a, const struct job_info *b)
{
    (void)state;
    if (a->job->priority != b->job->priority)
        return a->job->priority > b->job->priority ? -1 : 1;
    return 0;
}

static int priority_task_order(void *state, const struct job_info *job, const struct task_info *a,
                               const struct task_info *b)
{
    (void)state, (void)job;
    if (a->spec->priority != b->spec->priority)
        return a->spec->priority > b->spec->priority ? -1 : 1;
    return 0;
}

static int priority_preemptable(void *state, const struct job_info *preemptor, struct victim **cands, int n)
{
    (void)state;
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (cands[i]->priority < preemptor->job->priority)
            cands[kept++] = cands[i];
    return kept;
}

static int priority_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    *state = NULL;
    session_add_job_order(ssn, conf, tier, priority_job_order, NULL);
    session_add_task_order(ssn, conf, tier, priority_task_order, NULL);
    session_add_preemptable(ssn, conf, tier, priority_preemptable, NULL);
    return 0;
}

const struct plugin_def plugin_priority = {"priority", priority_open, NULL};
