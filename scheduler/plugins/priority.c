/* The priority plugin: jobs with a higher priority (from priorityClassName) are placed first.
 * Equal priorities fall through to the next plugin, and finally to creation order (FIFO). */
#include "scheduler/framework/plugin.h"

static int priority_job_order(void *state, const struct job_info *a, const struct job_info *b)
{
    (void)state;
    if (a->job->priority != b->job->priority)
        return a->job->priority > b->job->priority ? -1 : 1;
    return 0;
}

static int priority_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    *state = NULL;
    session_add_job_order(ssn, conf, tier, priority_job_order, NULL);
    return 0;
}

const struct plugin_def plugin_priority = {"priority", priority_open, NULL};
