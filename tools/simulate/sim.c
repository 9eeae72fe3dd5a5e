/* The simulation loop: events from the virtual clock in order, arrivals and exits told to the
 * controller, and the scheduling cycle run as the core runs it, until nothing more can happen. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/core/cycle.h"
#include "common/duration.h"
#include "tools/simulate/sim_internal.h"

/* Every trace job's record, in trace order. */
static int init_jobs(struct sim *s)
{
    s->njobs = s->trace.njobs;
    s->jobs = calloc((size_t)s->njobs + 1, sizeof *s->jobs);
    if (!s->jobs)
        return -1;
    for (int i = 0; i < s->njobs; i++) {
        const struct trace_job *tj = &s->trace.jobs[i];
        struct sim_job *sj = &s->jobs[i];
        *sj = (struct sim_job){.name = strdup(tj->job->name),
                               .ns = strdup(tj->job->ns),
                               .queue = strdup(tj->job->queue),
                               .arrival_ms = tj->arrival_ms,
                               .duration_ms = tj->duration_ms,
                               .exit_code = tj->exit_code,
                               .start_ms = -1,
                               .end_ms = -1};
        if (!sj->name || !sj->ns || !sj->queue ||
            event_heap_push(&s->heap, tj->arrival_ms, SIM_EVENT_JOB_ARRIVAL, i, 0) != 0)
            return -1;
        s->pending_arrivals++;
    }
    return 0;
}

static int add_queue_record(struct sim *s, const char *name, int32_t weight, const struct queue *live)
{
    struct sim_queue *sq = &s->queues[s->nqueues++];
    *sq = (struct sim_queue){strdup(name), weight, live, json_array()};
    return sq->name && sq->samples ? 0 : -1;
}

/* `default` (created at the start, as the server does), then the trace's queues, which arrive
 * later; a trace Queue named default updates the first. */
static int init_queues(struct sim *s)
{
    const struct queue *def = cluster_find_queue(&s->cluster, "default");
    s->queues = calloc((size_t)s->trace.nqueues + 1, sizeof *s->queues);
    if (!s->queues || !def || add_queue_record(s, def->name, def->weight, def) != 0)
        return -1;
    for (int i = 0; i < s->trace.nqueues; i++) {
        const struct queue *q = s->trace.queues[i].queue;
        if ((strcmp(q->name, "default") != 0 && add_queue_record(s, q->name, q->weight, NULL) != 0) ||
            event_heap_push(&s->heap, s->trace.queues[i].arrival_ms, SIM_EVENT_QUEUE_ARRIVAL, i, 0) != 0)
            return -1;
        s->pending_arrivals++;
    }
    return 0;
}

static int init_objects(struct sim *s)
{
    for (int i = 0; i < s->trace.nobjects; i++) {
        if (event_heap_push(&s->heap, s->trace.objects[i].arrival_ms, SIM_EVENT_OBJECT_ARRIVAL, i, 0) != 0)
            return -1;
        s->pending_arrivals++;
    }
    return 0;
}

/* The server's start with an empty store: the built-in PriorityClasses and the default queue. */
static int start_cluster(struct sim *s)
{
    return controller_finish_recovery(&s->ctl) != 0 || sim_drain_journal(s) < 0 ? -1 : 0;
}

int sim_new(struct trace *trace, const struct sim_options *opt, struct sim **out, char *err, size_t errlen)
{
    struct sim *s = calloc(1, sizeof *s);
    *out = NULL;
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->trace = *trace;
    memset(trace, 0, sizeof *trace);
    s->cluster.nodes = s->trace.nodes;
    s->cluster.nnodes = s->trace.nnodes;
    s->trace.nodes = NULL;
    s->trace.nnodes = 0;
    for (int i = 0; i < s->cluster.nnodes; i++)
        s->cluster.nodes[i].created_ms = SIM_EPOCH_MS;
    s->timer_at = -1;
    s->ctl = (struct controller){
        .cluster = &s->cluster, .data_dir = "/nonexistent/caldera-simulate", .now_ms = SIM_EPOCH_MS};
    sim_install_ops(s);
    s->file = opt->file;
    s->events = opt->events ? json_array() : NULL;
    s->zones = zone_table_build(&s->cluster, &s->trace.settings.conf);
    s->ctl.zones = s->zones;
    if (!s->zones || (opt->events && !s->events) || start_cluster(s) != 0 || init_objects(s) != 0 ||
        init_queues(s) != 0 || init_jobs(s) != 0 || event_heap_push(&s->heap, 0, SIM_EVENT_CYCLE, 0, 0) != 0 ||
        event_heap_push(&s->heap, 0, SIM_EVENT_SAMPLE, 0, 0) != 0) {
        snprintf(err, errlen, "out of memory");
        sim_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

void sim_free(struct sim *s)
{
    if (!s)
        return;
    journal_list_free(&s->ctl.journal);
    controller_free_timers(&s->ctl);
    cluster_free(&s->cluster);
    zone_table_free(s->zones);
    trace_free(&s->trace);
    event_heap_free(&s->heap);
    free(s->procs);
    for (int i = 0; i < s->njobs; i++) {
        free(s->jobs[i].name);
        free(s->jobs[i].ns);
        free(s->jobs[i].queue);
        free(s->jobs[i].rejected);
    }
    free(s->jobs);
    for (int i = 0; i < s->nqueues; i++) {
        free(s->queues[i].name);
        json_decref(s->queues[i].samples);
    }
    free(s->queues);
    hmap_free(&s->jobs_by_ptr);
    hmap_free(&s->jobs_by_uid);
    json_decref(s->events);
    free(s);
}

/* --- the loop ----------------------------------------------------------- */

static bool all_jobs_final(const struct sim *s)
{
    for (int i = 0; i < s->njobs; i++) {
        const struct sim_job *sj = &s->jobs[i];
        if (!sj->arrived || (sj->job && !job_phase_final(sj->job->status.phase)))
            return false;
    }
    return true;
}

/* Nothing can change any more: no arrival or process ahead, and either every job is final or the
 * last scheduling cycle changed nothing (the scheduler reads no clock, so the next would not either). */
static bool at_rest(const struct sim *s, bool settled)
{
    return s->pending_arrivals == 0 && s->live_procs == 0 && s->ctl.ntimers == 0 && (settled || all_jobs_final(s));
}

/* The controller's timers on the virtual clock: one SIM_EVENT_TIMER at the earliest due time. */
static int book_timer(struct sim *s)
{
    int64_t due = controller_next_timer(&s->ctl);
    if (due < 0)
        return 0;
    int64_t at = due - SIM_EPOCH_MS < s->now_ms ? s->now_ms : due - SIM_EPOCH_MS;
    if (s->timer_at >= 0 && s->timer_at <= at)
        return 0;
    s->timer_at = at;
    return event_heap_push(&s->heap, at, SIM_EVENT_TIMER, 0, 0);
}

static void set_now(struct sim *s, int64_t t)
{
    s->now_ms = t;
    s->ctl.now_ms = SIM_EPOCH_MS + t;
}

static int out_of_memory(const struct sim *s, char *err, size_t errlen)
{
    char at[32];
    snprintf(err, errlen, "out of memory at %s", duration_text(s->now_ms, at, sizeof at));
    return -1;
}

/* Runs the cycle once; *settled says whether it recorded nothing. */
static int run_cycle(struct sim *s, bool *settled, char *err, size_t errlen)
{
    struct cycle_stats stats = {0};
    s->in_cycle = true;
    int rc = schedule_cycle(&s->ctl, &s->trace.settings.conf, s->zones, &stats);
    s->in_cycle = false;
    *settled = s->ctl.journal.count == 0;
    controller_sync_queues(&s->ctl);
    if (rc != 0 || sim_drain_journal(s) < 0 || s->out_of_memory)
        return out_of_memory(s, err, errlen);
    return 0;
}

static int arrive(struct sim *s, const struct sim_event *ev, char *err, size_t errlen)
{
    switch (ev->kind) {
    case SIM_EVENT_OBJECT_ARRIVAL: return sim_object_arrives(s, ev->ref, err, errlen);
    case SIM_EVENT_QUEUE_ARRIVAL: return sim_queue_arrives(s, ev->ref, err, errlen);
    case SIM_EVENT_JOB_ARRIVAL: return sim_job_arrives(s, ev->ref, err, errlen);
    default: return 0;
    }
}

/* One iteration of the core's loop at this instant: every exit, arrival and tick due now, then
 * one scheduling cycle if any of them changed something or a tick came. */
static int run_round(struct sim *s, bool *settled, char *err, size_t errlen)
{
    bool changed = false, tick = false;
    const struct sim_event *next;
    while ((next = event_heap_peek(&s->heap)) && next->time_ms == s->now_ms && next->kind < SIM_EVENT_SAMPLE) {
        struct sim_event ev;
        int rc = 0;
        event_heap_pop(&s->heap, &ev);
        if (ev.kind == SIM_EVENT_EXIT) {
            changed |= sim_deliver_exit(s, &ev);
        } else if (ev.kind == SIM_EVENT_TIMER) {
            if (ev.time_ms == s->timer_at)
                s->timer_at = -1;
            changed |= controller_run_timers(&s->ctl) > 0;
        } else if (ev.kind == SIM_EVENT_CYCLE) {
            tick = true;
            if (event_heap_push(&s->heap, s->now_ms + s->trace.settings.period_ms, SIM_EVENT_CYCLE, 0, 0) != 0)
                rc = -1;
        } else {
            changed = true;
            rc = arrive(s, &ev, err, errlen);
        }
        if (rc == 0 && sim_drain_journal(s) < 0)
            rc = -1;
        if (rc == -1)
            return out_of_memory(s, err, errlen);
        if (rc != 0)
            return rc;
    }
    int rc = changed || tick ? run_cycle(s, settled, err, errlen) : 0;
    if (rc == 0 && book_timer(s) != 0)
        return out_of_memory(s, err, errlen);
    return rc;
}

static void stop_at(struct sim *s, int64_t t, const char *why)
{
    s->end_ms = t;
    s->stopped = why;
}

int sim_run(struct sim *s, char *err, size_t errlen)
{
    const struct trace_settings *set = &s->trace.settings;
    int64_t instant = -1;
    int rounds = 0;
    bool settled = false;
    for (;;) {
        const struct sim_event *next = event_heap_peek(&s->heap);
        bool instant_done = instant >= 0 && (!next || next->time_ms > instant);
        if (instant_done && set->until_ms < 0 && at_rest(s, settled)) {
            stop_at(s, instant, all_jobs_final(s) ? "finished" : "stalled");
            break;
        }
        if (set->until_ms >= 0 && (!next || next->time_ms > set->until_ms)) {
            stop_at(s, set->until_ms, "until");
            break;
        }
        if (!next) { /* cannot happen: samples go on for ever */
            stop_at(s, instant, "finished");
            break;
        }
        if (next->time_ms > SIM_LIMIT_MS) {
            stop_at(s, SIM_LIMIT_MS, "limit");
            break;
        }
        if (next->time_ms != instant) {
            instant = next->time_ms;
            rounds = 0;
        }
        set_now(s, instant);
        struct sim_event ev = *next;
        if (ev.kind == SIM_EVENT_SAMPLE) {
            event_heap_pop(&s->heap, &ev);
            if (sim_sample_queues(s) != 0 ||
                event_heap_push(&s->heap, instant + set->sample_ms, SIM_EVENT_SAMPLE, 0, 0) != 0)
                return out_of_memory(s, err, errlen);
            continue;
        }
        if (ev.kind == SIM_EVENT_CYCLE && at_rest(s, settled)) {
            event_heap_pop(&s->heap, &ev); /* running to `until` with nothing left to schedule */
            continue;
        }
        if (++rounds > SIM_MAX_ROUNDS) {
            char at[32];
            snprintf(err, errlen,
                     "the cluster did not settle at %s: %d scheduling rounds at one instant "
                     "(replicas evicted and placed again without end?)",
                     duration_text(instant, at, sizeof at), SIM_MAX_ROUNDS);
            return -1;
        }
        int rc = run_round(s, &settled, err, errlen);
        if (rc != 0)
            return rc;
    }
    return 0;
}
