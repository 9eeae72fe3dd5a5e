/* Applying a scheduling session's decisions: PodGroups that were enqueued, replicas bound to nodes
 * (started at once: the process runtime has no separate binding step), and the gang's verdicts. */
#include <stdlib.h>
#include <string.h>

#include "scheduler/controller/internal.h"

/* Starts `count` pending replicas of a task, lowest index first. */
static void start_replicas(struct controller *ctl, struct job *job, int task, int node, int32_t count)
{
    int32_t first = job->task_first[task], end = first + job->tasks[task].replicas;
    for (int32_t i = first; i < end && count > 0; i++) {
        struct replica *r = &job->replicas[i];
        if (r->phase != POD_PENDING || r->stopping)
            continue;
        replica_start(ctl, job, i, node);
        count--;
    }
}

static void update_unschedulable(struct controller *ctl, struct job *job, const struct job_info *ji)
{
    const char *now = ji->unschedulable;
    const char *was = job->pg.unschedulable;
    if (ji->placed_now && !job->pg.scheduled_ms)
        job->pg.scheduled_ms = ctl->now_ms;
    if ((!now && !was) || (now && was && strcmp(now, was) == 0))
        return;
    free(job->pg.unschedulable);
    job->pg.unschedulable = now ? strdup(now) : NULL;
    job->pg.unschedulable_ms = now ? ctl->now_ms : 0;
    const char *phase = podgroup_phase_name(job->pg.phase);
    record_event(ctl, JOURNAL_EVENT, job, "PodGroup", job->name, phase, phase, now ? "Unschedulable" : "Scheduled",
                 "%s", now ? now : "tasks in gang are ready to be scheduled");
    job_set_pending_reason(ctl, job, now);
}

/* Volcano's PodGroup Unknown: some of the gang runs, the rest cannot be placed (an evicted or lost
 * replica found no room), so the job cannot work as a gang; the Unknown event goes through the
 * job's policies (RestartJob is the usual answer). */
static void check_unknown(struct controller *ctl, struct job *job, const struct job_info *ji)
{
    if (!ji->unschedulable || job->pg.phase != PG_RUNNING)
        return;
    int32_t running = 0;
    for (int t = 0; t < job->ntasks; t++)
        running += job->task_counts[t].running - job->task_counts[t].stopping;
    if (running == 0 || running >= job->min_available)
        return;
    podgroup_set_phase(ctl, job, PG_UNKNOWN, "Unschedulable");
    job_raise(ctl, job, EV_UNKNOWN, -1, false, 0);
}

/* Evictions: the victim is stopped (SIGTERM, its grace, SIGKILL) and comes back Pending. */
static void apply_evictions(struct controller *ctl, struct session *ssn)
{
    for (int e = 0; e < ssn->nevicts; e++) {
        const struct evict_decision *d = &ssn->evicts[e];
        struct job *job = (struct job *)d->job;
        struct replica *r = &job->replicas[d->flat];
        if (r->phase != POD_RUNNING || r->stopping)
            continue;
        free(r->message);
        r->message = strdup(d->message);
        replica_stop(ctl, job, d->flat, TERM_EVICTED, false);
    }
}

/* While attempts cannot be recorded: nothing is bound or evicted, and the jobs the session would
 * have placed wait with `held` as their reason, as if unschedulable. */
static void hold_placements(struct session *ssn, const char *held_why)
{
    for (int b = 0; b < ssn->nbinds; b++) {
        struct job_info *ji = &ssn->jobs[ssn->binds[b].job];
        char *held = strdup(held_why);
        if (held) { /* the session frees it */
            free(ji->unschedulable);
            ji->unschedulable = held;
        }
        ji->placed_now = false;
    }
    ssn->nbinds = 0;
    ssn->nevicts = 0;
}

void controller_apply_session(struct controller *ctl, struct session *ssn)
{
    cluster_assert_owner(ctl->cluster);
    for (int q = 0; q < ssn->nqueues; q++) /* the zone's share of each queue, for status and metrics */
        resvec_add(&((struct queue *)ssn->queues[q].queue)->fair_share, &ssn->queues[q].deserved);
    const char *held = ssn->nbinds > 0 ? controller_starts_held(ctl) : ctl->starts_held;
    if (held)
        hold_placements(ssn, held);
    apply_evictions(ctl, ssn);
    for (int j = 0; j < ssn->njobs; j++) {
        struct job *job = (struct job *)ssn->jobs[j].job; /* the controller owns the jobs the session viewed */
        if (ssn->jobs[j].enqueued_now) {
            podgroup_set_phase(ctl, job, PG_INQUEUE, "Enqueued");
            for (int32_t i = 0; i < job->total_replicas; i++) /* its pods exist from now on */
                if (job->replicas[i].phase == POD_PENDING)
                    job_pod_created(ctl, job, i);
        }
    }
    for (int b = 0; b < ssn->nbinds; b++) {
        const struct bind_decision *d = &ssn->binds[b];
        start_replicas(ctl, (struct job *)ssn->jobs[d->job].job, d->task, ssn->nodes[d->node].index, d->count);
    }
    for (int j = 0; j < ssn->njobs; j++) {
        struct job *job = (struct job *)ssn->jobs[j].job;
        update_unschedulable(ctl, job, &ssn->jobs[j]);
        if (ssn->jobs[j].placed_now)
            job_sync(ctl, job);
        if (!held) /* a held gang is placeable: not Unknown */
            check_unknown(ctl, job, &ssn->jobs[j]);
    }
}
