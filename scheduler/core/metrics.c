/* The live part of GET /metrics, rendered on the core thread: queues (weight, state, capability,
 * deserved, allocated, jobs by phase), pods by phase per queue and namespace, per-job start and
 * finish times, and the scheduling cycle's histogram. One walk of the queues and the active jobs. */
#include <stdlib.h>
#include <string.h>

#include "common/hashmap.h"
#include "scheduler/core/internal.h"

/* Finished jobs keep their start and finish series while they are among the last this many to
 * leave the active list: the families stay bounded whatever the number of live jobs. */
#define FINISHED_JOBS_SHOWN 1000

/* Pods by phase of one queue and namespace. */
struct pod_tally {
    const char *queue, *ns; /* the job's strings: the walk ends before any job can go */
    int64_t pods[POD_PHASE_COUNT];
    char key[]; /* "queue\x1fns" */
};

struct metrics_walk {
    struct hmap queue_index;          /* queue name -> index + 1 */
    int32_t (*jobs)[JOB_PHASE_COUNT]; /* per queue */
    struct hmap pods_by_key;          /* "queue\x1fns" -> struct pod_tally */
    struct sbuf start, finish;        /* the per-job samples, each its own family */
    struct sbuf requested, used;      /* finished jobs' requested and used, by resource */
    bool failed;
};

static const char *unit_of(int resource)
{
    if (resource == RES_CPU)
        return "core";
    return resource == RES_MEMORY || resource == RES_EPHEMERAL ? "byte" : "integer";
}

static void resource_sample(struct sbuf *out, const char *name, const char *queue, int r, int64_t value)
{
    sbuf_printf(out, "%s{queue=\"", name);
    metrics_label_value(out, queue);
    sbuf_puts(out, "\",resource=\"");
    metrics_label_value(out, resource_name(r));
    if (r == RES_CPU)
        sbuf_printf(out, "\",unit=\"%s\"} %.15g\n", unit_of(r), (double)value / 1000.0);
    else
        sbuf_printf(out, "\",unit=\"%s\"} %lld\n", unit_of(r), (long long)value);
}

/* `name{queue="q"} ` with its value to follow. */
static void queue_labels(struct sbuf *out, const char *name, const char *queue)
{
    sbuf_printf(out, "%s{queue=\"", name);
    metrics_label_value(out, queue);
    sbuf_puts(out, "\"");
}

static void render_queue_specs(struct sbuf *out, const struct cluster *cl)
{
    metrics_family(out, "caldera_queue_weight", "gauge", "Weight of the queue (spec.weight).");
    for (int i = 0; i < cl->nqueues; i++) {
        queue_labels(out, "caldera_queue_weight", cl->queues[i]->name);
        sbuf_printf(out, "} %d\n", cl->queues[i]->weight);
    }
    metrics_family(out, "caldera_queue_state", "gauge",
                   "State of the queue: 1 for the state it is in, 0 for the others.");
    for (int i = 0; i < cl->nqueues; i++)
        for (enum queue_state s = QUEUE_OPEN; s <= QUEUE_CLOSED; s++) {
            queue_labels(out, "caldera_queue_state", cl->queues[i]->name);
            sbuf_printf(out, ",state=\"%s\"} %d\n", queue_state_name(s), cl->queues[i]->state == s);
        }
    metrics_family(out, "caldera_queue_capability", "gauge",
                   "Capability of the queue per resource it names (cpu in cores, memory in bytes); a resource not "
                   "named is unlimited.");
    for (int i = 0; i < cl->nqueues; i++) {
        const struct queue *q = cl->queues[i];
        json_t *cap = json_object_get(json_object_get(q->manifest, "spec"), "capability");
        const char *key;
        json_t *v;
        json_object_foreach(cap, key, v)
        {
            int r = q->has_capability ? resource_index(key) : -1;
            if (r >= 0)
                resource_sample(out, "caldera_queue_capability", q->name, r, q->capability.v[r]);
        }
    }
    metrics_family(out, "caldera_queue_deserved", "gauge",
                   "Deserved (fair) share of the queue per resource as the last scheduling cycle computed it.");
    for (int i = 0; i < cl->nqueues; i++)
        for (int r = 0; r < resource_count(); r++)
            resource_sample(out, "caldera_queue_deserved", cl->queues[i]->name, r, cl->queues[i]->fair_share.v[r]);
    metrics_family(out, "caldera_queue_allocated", "gauge",
                   "Resources requested by the queue's pods that hold a place on a node.");
    for (int i = 0; i < cl->nqueues; i++)
        for (int r = 0; r < resource_count(); r++)
            resource_sample(out, "caldera_queue_allocated", cl->queues[i]->name, r, cl->queues[i]->allocated.v[r]);
}

static struct pod_tally *pod_tally_for(struct metrics_walk *w, const struct job *job)
{
    size_t qlen = strlen(job->queue), nslen = strlen(job->ns);
    char key[512];
    if (qlen + nslen + 2 > sizeof key)
        return NULL; /* names are DNS labels: never this long */
    memcpy(key, job->queue, qlen);
    key[qlen] = '\x1f';
    memcpy(key + qlen + 1, job->ns, nslen + 1);
    struct pod_tally *t = strmap_get(&w->pods_by_key, key);
    if (t)
        return t;
    t = calloc(1, sizeof *t + qlen + nslen + 2);
    if (!t || (memcpy(t->key, key, qlen + nslen + 2), strmap_put(&w->pods_by_key, t->key, t) != 0)) {
        free(t);
        w->failed = true;
        return NULL;
    }
    t->queue = job->queue;
    t->ns = job->ns;
    return t;
}

/* `name{namespace="...",name="...",queue="..."`: a job's series up to its closing quote. */
static void job_labels(struct sbuf *out, const char *name, const struct job *job)
{
    sbuf_printf(out, "%s{namespace=\"", name);
    metrics_label_value(out, job->ns);
    sbuf_puts(out, "\",name=\"");
    metrics_label_value(out, job->name);
    sbuf_puts(out, "\",queue=\"");
    metrics_label_value(out, job->queue);
}

static void job_sample(struct sbuf *out, const char *name, const struct job *job, int64_t ms)
{
    job_labels(out, name, job);
    sbuf_printf(out, "\"} %.3f\n", (double)ms / 1000.0);
}

static void usage_sample(struct sbuf *out, const char *name, const struct job *job, const char *resource, double v)
{
    job_labels(out, name, job);
    sbuf_printf(out, "\",resource=\"%s\"} %.3f\n", resource, v);
}

/* A finished job's requested and used CPU (core-seconds), memory (bytes) and GPUs (GPU-seconds, when
 * it asked for any) over the attempts that ended while this server ran. */
static void job_usage(struct metrics_walk *w, const struct job *job)
{
    const struct job_usage *u = &job->usage;
    if (u->attempts == 0)
        return;
    usage_sample(&w->requested, "caldera_job_requested", job, "cpu", u->cpu_requested_s);
    usage_sample(&w->used, "caldera_job_used", job, "cpu", u->cpu_used_s);
    usage_sample(&w->requested, "caldera_job_requested", job, "memory", (double)u->memory_requested);
    usage_sample(&w->used, "caldera_job_used", job, "memory", (double)u->memory_peak);
    if (u->gpu_requested_s > 0) {
        usage_sample(&w->requested, "caldera_job_requested", job, "nvidia.com/gpu", u->gpu_requested_s);
        usage_sample(&w->used, "caldera_job_used", job, "nvidia.com/gpu", u->gpu_used_s);
    }
}

static void job_times(struct metrics_walk *w, const struct job *job)
{
    if (job->status.running_since_ms > 0)
        job_sample(&w->start, "caldera_job_start_timestamp_seconds", job, job->status.running_since_ms);
    if (job_phase_final(job->status.phase)) {
        job_sample(&w->finish, "caldera_job_finish_timestamp_seconds", job, job->status.transition_ms);
        job_usage(w, job);
    }
}

/* One active job into the tallies and the per-job families. */
static void walk_job(struct metrics_walk *w, const struct job *job)
{
    intptr_t qi = (intptr_t)strmap_get(&w->queue_index, job->queue);
    if (qi > 0 && job->status.phase < JOB_PHASE_COUNT)
        w->jobs[qi - 1][job->status.phase]++;
    struct pod_tally *t = pod_tally_for(w, job);
    if (t)
        for (int i = 0; i < job->ntasks; i++) {
            const struct task_counts *n = &job->task_counts[i];
            if (job->pg.phase != PG_PENDING) /* no pod exists before the gang is enqueued */
                t->pods[POD_PENDING] += n->pending;
            t->pods[POD_RUNNING] += n->running;
            t->pods[POD_SUCCEEDED] += n->succeeded;
            t->pods[POD_FAILED] += n->failed;
            t->pods[POD_UNKNOWN] += n->unknown;
        }
    job_times(w, job);
}

static int compare_tallies(const void *a, const void *b)
{
    const struct pod_tally *x = *(struct pod_tally *const *)a, *y = *(struct pod_tally *const *)b;
    int c = strcmp(x->queue, y->queue);
    return c ? c : strcmp(x->ns, y->ns);
}

static void render_pods(struct sbuf *out, struct metrics_walk *w)
{
    metrics_family(out, "caldera_pods", "gauge",
                   "Pods (task replicas) of the active jobs by phase, per queue and namespace; a finished job's pods "
                   "leave the count once it holds nothing.");
    struct pod_tally **all = calloc(w->pods_by_key.count + 1, sizeof *all);
    if (!all) {
        w->failed = true;
        return;
    }
    size_t n = 0, pos = 0;
    const void *key;
    void *value;
    while (hmap_next(&w->pods_by_key, &pos, &key, &value))
        all[n++] = value;
    qsort(all, n, sizeof *all, compare_tallies);
    for (size_t i = 0; i < n; i++)
        for (int p = 0; p < POD_PHASE_COUNT; p++) {
            sbuf_puts(out, "caldera_pods{queue=\"");
            metrics_label_value(out, all[i]->queue);
            sbuf_puts(out, "\",namespace=\"");
            metrics_label_value(out, all[i]->ns);
            sbuf_printf(out, "\",phase=\"%s\"} %lld\n", pod_phase_name((enum pod_phase)p), (long long)all[i]->pods[p]);
        }
    free(all);
}

static void render_queue_jobs(struct sbuf *out, const struct cluster *cl, const struct metrics_walk *w)
{
    metrics_family(out, "caldera_queue_jobs", "gauge",
                   "Jobs of the queue in each phase a job passes through before it finishes (finished jobs are not "
                   "counted here).");
    for (int i = 0; i < cl->nqueues; i++)
        for (int p = 0; p < JOB_PHASE_COUNT; p++) {
            if (job_phase_final((enum job_phase)p))
                continue;
            queue_labels(out, "caldera_queue_jobs", cl->queues[i]->name);
            sbuf_printf(out, ",phase=\"%s\"} %d\n", job_phase_name((enum job_phase)p), w->jobs[i][p]);
        }
}

static void walk_free(struct metrics_walk *w)
{
    size_t pos = 0;
    const void *key;
    void *value;
    while (hmap_next(&w->pods_by_key, &pos, &key, &value))
        free(value);
    hmap_free(&w->pods_by_key);
    hmap_free(&w->queue_index);
    free(w->jobs);
    sbuf_free(&w->start);
    sbuf_free(&w->finish);
    sbuf_free(&w->requested);
    sbuf_free(&w->used);
}

static void render(struct core *c, struct sbuf *out, struct metrics_walk *w)
{
    const struct cluster *cl = &c->cluster;
    w->jobs = calloc((size_t)cl->nqueues + 1, sizeof *w->jobs);
    if (!w->jobs) {
        w->failed = true;
        return;
    }
    for (int i = 0; i < cl->nqueues; i++)
        if (strmap_put(&w->queue_index, cl->queues[i]->name, (void *)(intptr_t)(i + 1)) != 0)
            w->failed = true;
    /* Only the active list: unfinished jobs, and finished ones until they hold nothing. Dormant
     * (unparsed) jobs are never in it, so nothing is woken and the walk is O(active jobs). */
    for (const struct job *job = cl->active_first; job && !w->failed; job = job->active_next)
        if (!job->deleted && !job->dormant)
            walk_job(w, job);
    /* The jobs that finished last: O(FINISHED_JOBS_SHOWN). A dormant one (finished before this start
     * and not read since) is not woken for this. */
    int seen = 0;
    for (const struct job *job = cl->retired_last; job && seen < FINISHED_JOBS_SHOWN; job = job->active_prev, seen++)
        if (!job->deleted && !job->dormant)
            job_times(w, job);
    render_queue_specs(out, cl);
    render_queue_jobs(out, cl, w);
    render_pods(out, w);
    metrics_family(out, "caldera_job_start_timestamp_seconds", "gauge",
                   "When the job last entered Running, in seconds since the epoch; unfinished jobs and the last 1000 "
                   "to finish.");
    sbuf_puts(out, sbuf_str(&w->start));
    metrics_family(out, "caldera_job_finish_timestamp_seconds", "gauge",
                   "When the job finished (Completed, Failed or Terminated), in seconds since the epoch; the last 1000 "
                   "jobs to finish.");
    sbuf_puts(out, sbuf_str(&w->finish));
    metrics_family(out, "caldera_job_requested", "gauge",
                   "What a finished job asked for over its attempts that ended while this server ran, by resource: "
                   "cpu in core-seconds (request times run time), memory in bytes (the largest request), "
                   "nvidia.com/gpu in GPU-seconds; the last 1000 jobs to finish.");
    sbuf_puts(out, sbuf_str(&w->requested));
    metrics_family(out, "caldera_job_used", "gauge",
                   "What a finished job used of what caldera_job_requested shows: cpu in core-seconds (CPU time), "
                   "memory in bytes (the highest peak), nvidia.com/gpu in GPU-seconds (times the sampled mean "
                   "utilisation); the last 1000 jobs to finish.");
    sbuf_puts(out, sbuf_str(&w->used));
    core_render_gpu_metrics(c, out);
    core_render_gpu_health_metrics(c, out);
    metrics_family(out, "caldera_scheduler_cycle_duration_seconds", "histogram",
                   "Duration of one scheduling cycle over every zone.");
    metrics_histogram_samples(out, "caldera_scheduler_cycle_duration_seconds", "", &c->cycle_seconds);
    if (w->start.failed || w->finish.failed || w->requested.failed || w->used.failed)
        w->failed = true;
}

void core_handle_metrics(struct core *c, struct core_request *req)
{
    struct sbuf out = {0};
    struct metrics_walk w = {0};
    render(c, &out, &w);
    bool failed = w.failed || out.failed;
    walk_free(&w);
    if (failed) {
        sbuf_free(&out);
        api_fail(&req->status, 500, "InternalError", "out of memory rendering the metrics");
        return;
    }
    req->text = sbuf_take(&out);
    core_answer(req, 200, json_object(), 0);
}
