/* The gang plugin: a job binds nothing until minAvailable of its replicas can run together; jobs
 * short of their gang come first and are the ones that may preempt; and a job that cannot run gets
 * Volcano's "x/y tasks in gang unschedulable" condition with the reason a person can act on. */
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

static bool gang_job_starving(void *state, const struct job_info *ji)
{
    (void)state;
    return ji->ready < ji->job->min_available;
}

/* Jobs that already hold their gang go after those still short of it. */
static int gang_job_order(void *state, const struct job_info *a, const struct job_info *b)
{
    bool ra = gang_job_ready(state, a), rb = gang_job_ready(state, b);
    return ra == rb ? 0 : ra ? 1 : -1;
}

struct occupancy {
    const struct job *job;
    int32_t occupied; /* replicas it still holds as victims are chosen */
};

/* With enablePreemptable, a victim's job must stay at or above its minimum. */
static int gang_victims(void *state, const struct job_info *preemptor, struct victim **cands, int n)
{
    const struct session *ssn = state;
    (void)preemptor;
    struct occupancy seen[64];
    int nseen = 0, kept = 0;
    for (int i = 0; i < n; i++) {
        const struct victim *v = cands[i];
        int s;
        for (s = 0; s < nseen && seen[s].job != v->job; s++)
            ;
        if (s == nseen) {
            if (nseen == 64)
                continue; /* more distinct jobs on one node than tracked: keep them safe */
            int32_t occupied = v->job_info >= 0 ? ssn->jobs[v->job_info].ready : job_ready_count(v->job);
            seen[nseen++] = (struct occupancy){v->job, occupied};
        }
        if (seen[s].occupied > v->job->min_available) {
            seen[s].occupied--;
            cands[kept++] = cands[i];
        }
    }
    return kept;
}

static int gang_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    *state = ssn;
    session_add_job_valid(ssn, conf, tier, gang_job_valid, ssn);
    session_add_job_ready(ssn, conf, tier, gang_job_ready, ssn);
    session_add_job_starving(ssn, conf, tier, gang_job_starving, ssn);
    session_add_job_order(ssn, conf, tier, gang_job_order, ssn);
    session_add_preemptable(ssn, conf, tier, gang_victims, ssn);
    session_add_reclaimable(ssn, conf, tier, gang_victims, ssn);
    return 0;
}

/* The message the PodGroup shows: what holds the job (a limit, or the nodes), in Volcano's shape. */
static void verdict(const struct job_info *ji, bool valid, const char *invalid_why, char *msg, size_t len)
{
    int32_t min = ji->job->min_available, unready = min - ji->ready;
    if (!valid)
        snprintf(msg, len, "%s", invalid_why);
    else if (ji->pipelined)
        snprintf(msg, len, "%d/%d tasks in gang unschedulable: waiting for evicted pods to release their resources",
                 unready > 0 ? unready : 0, ji->job->total_replicas);
    else if (!ji->inqueue)
        snprintf(msg, len, "pod group is Pending: %s", ji->reason[0] ? ji->reason : "not enqueued yet");
    else
        snprintf(msg, len, "%d/%d tasks in gang unschedulable: pod group is not ready, %d Pending, %d minAvailable%s%s",
                 unready > 0 ? unready : 0, ji->job->total_replicas, ji->pending, min,
                 ji->reason[0] || ji->fit_error[0] ? "; " : "", ji->reason[0] ? ji->reason : ji->fit_error);
}

/* Volcano writes the gang verdict when the session closes: every job that waits (not enqueued, or
 * tried and still short of its gang) gets the Unschedulable message; the others get none. */
static void gang_close(struct session *ssn, void *state)
{
    (void)state;
    for (int j = 0; j < ssn->njobs; j++) {
        struct job_info *ji = &ssn->jobs[j];
        free(ji->unschedulable);
        ji->unschedulable = NULL;
        char why[SESSION_MESSAGE_MAX];
        bool valid = gang_job_valid(NULL, ji, why, sizeof why);
        bool waits = !valid || ji->pipelined || (!ji->inqueue && ji->reason[0]) ||
                     (ji->tried && !gang_job_ready(NULL, ji));
        if (!waits)
            continue;
        char msg[1200];
        verdict(ji, valid, why, msg, sizeof msg);
        ji->unschedulable = strdup(msg);
    }
}

const struct plugin_def plugin_gang = {"gang", gang_open, gang_close};
