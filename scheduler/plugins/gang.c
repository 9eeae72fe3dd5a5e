/* The gang plugin: a job binds nothing until minAvailable of its replicas can run together, and
 * a job that cannot gets Volcano's "x/y tasks in gang unschedulable" condition with the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/plugin.h"

/* Replicas that could still run: pending, running or succeeded (failed ones no longer count). */
static int32_t valid_replicas(const struct job_info *ji) { return ji->pending + ji->ready; }

static bool gang_job_valid(void *state, const struct job_info *ji, char *why, int why_len)
{
    (void)state;
    int32_t valid = valid_replicas(ji);
    if (valid >= ji->job->min_available)
        return true;
    snprintf(why, (size_t)why_len, "Not enough valid tasks for gang-scheduling, valid: %d, min: %d", valid,
             ji->job->min_available);
    return false;
}

static bool gang_job_ready(void *state, const struct job_info *ji)
{
    (void)state;
    return ji->ready >= ji->job->min_available;
}

static int gang_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    *state = NULL;
    session_add_job_valid(ssn, conf, tier, gang_job_valid, NULL);
    session_add_job_ready(ssn, conf, tier, gang_job_ready, NULL);
    return 0;
}

/* Volcano writes the gang verdict when the session closes: every job that was tried and is still
 * not ready gets the Unschedulable message; the others get none. */
static void gang_close(struct session *ssn, void *state)
{
    (void)state;
    for (int j = 0; j < ssn->njobs; j++) {
        struct job_info *ji = &ssn->jobs[j];
        free(ji->unschedulable);
        ji->unschedulable = NULL;
        char why[256];
        bool valid = gang_job_valid(NULL, ji, why, sizeof why);
        if (valid && (!ji->tried || gang_job_ready(NULL, ji)))
            continue;
        int32_t min = ji->job->min_available;
        int32_t unready = min - ji->ready;
        char msg[1024];
        if (!valid)
            snprintf(msg, sizeof msg, "%s", why);
        else
            snprintf(msg, sizeof msg, "%d/%d tasks in gang unschedulable: pod group is not ready, %d Pending, %d minAvailable%s%s",
                     unready > 0 ? unready : 0, ji->job->total_replicas, ji->pending, min, ji->fit_error[0] ? "; " : "",
                     ji->fit_error);
        ji->unschedulable = strdup(msg);
    }
}

const struct plugin_def plugin_gang = {"gang", gang_open, gang_close};
