/* One session's life over one zone: the snapshot (nodes, queues, jobs with work to place), the
 * plugins opened tier by tier, the actions run in order, then its close and free. The snapshot reads
 * counts the controller keeps current, so it never scans replicas. */
#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/hooks.h"
#include "scheduler/framework/pod_index.h"
#include "scheduler/framework/plugin.h"

/* Jobs in these phases have nothing to place: they are finishing, stopped or done. */
static bool job_wants_placement(const struct job *job)
{
    return !job->deleted && (job->status.phase == JOB_PENDING || job->status.phase == JOB_RUNNING);
}

/* A job a backend runs (job->backend) is in no zone: its engine places it. */
static bool in_zone(const struct job *job, const char *scheduler_name)
{
    return job->backend == 0 && strcmp(job->scheduler_name, scheduler_name) == 0;
}

static int snapshot_job(const struct job *job, int queue, struct job_info *ji)
{
    memset(ji, 0, sizeof *ji);
    ji->job = job;
    ji->queue = queue;
    ji->inqueue = job->pg.phase != PG_PENDING;
    ji->allocated = job->allocated;
    ji->tasks = calloc((size_t)job->ntasks, sizeof *ji->tasks);
    if (!ji->tasks)
        return -1;
    for (int t = 0; t < job->ntasks; t++) {
        const struct task_counts *c = &job->task_counts[t];
        ji->ready += c->running - c->stopping + c->succeeded;
        if (c->pending == 0)
            continue;
        const struct task_spec *ts = &job->tasks[t];
        struct task_info *ti = &ji->tasks[ji->ntasks++];
        ti->task = t;
        ti->job = ji;
        ti->spec = ts;
        ti->request = &ts->request;
        ti->pending = c->pending;
        ti->best_effort = resvec_best_effort(&ts->request);
        ti->filter = -1;
        ji->pending += c->pending;
    }
    return 0;
}

static int snapshot_nodes(struct session *ssn, const struct session_zone *zone)
{
    const struct cluster *c = ssn->cluster;
    int n = zone && zone->node_indexes ? zone->nnodes : c->nnodes;
    ssn->nodes = calloc((size_t)(n > 0 ? n : 1), sizeof *ssn->nodes);
    if (!ssn->nodes)
        return -1;
    for (int i = 0; i < n; i++) {
        int idx = zone && zone->node_indexes ? zone->node_indexes[i] : i;
        struct node_info *ni = &ssn->nodes[ssn->nnodes++];
        ni->node = &c->nodes[idx];
        ni->index = idx;
        ni->idle = ni->node->allocatable;
        resvec_sub(&ni->idle, &ni->node->used);
        if (ni->idle.v[RES_GPU] < 0) /* a held GPU turned unhealthy: none free, and no other resource short */
            ni->idle.v[RES_GPU] = 0;
        resvec_add(&ssn->total, &ni->node->allocatable);
    }
    return 0;
}

static int snapshot_queues(struct session *ssn)
{
    const struct cluster *c = ssn->cluster;
    ssn->queues = calloc((size_t)(c->nqueues > 0 ? c->nqueues : 1), sizeof *ssn->queues);
    if (!ssn->queues)
        return -1;
    for (int q = 0; q < c->nqueues; q++) {
        struct queue_info *qi = &ssn->queues[ssn->nqueues++];
        qi->queue = c->queues[q];
        qi->parent = -1;
        qi->deserved = ssn->total; /* until a plugin (proportion) computes fair shares */
    }
    for (int q = 0; q < ssn->nqueues; q++)
        if (ssn->queues[q].queue->parent)
            ssn->queues[q].parent = session_queue_index(ssn, ssn->queues[q].queue->parent);
    return 0;
}

/* Every job of the zone counts toward its queue's use; only those with work enter the session. */
static int snapshot_jobs(struct session *ssn)
{
    const struct cluster *c = ssn->cluster;
    ssn->jobs = calloc((size_t)(c->nactive > 0 ? c->nactive : 1), sizeof *ssn->jobs);
    if (!ssn->jobs)
        return -1;
    for (const struct job *job = c->active_first; job; job = job->active_next) {
        if (job->deleted || !in_zone(job, ssn->scheduler_name))
            continue;
        int q = session_queue_index(ssn, job->queue);
        if (q >= 0) {
            resvec_add(&ssn->queues[q].allocated, &job->allocated);
            resvec_add(&ssn->queues[q].request, &job->allocated);
        }
        if (!job_wants_placement(job))
            continue;
        bool has_pending = false;
        for (int t = 0; t < job->ntasks && !has_pending; t++)
            has_pending = job->task_counts[t].pending > 0;
        if (!has_pending && job->pg.phase != PG_PENDING)
            continue;
        struct job_info *ji = &ssn->jobs[ssn->njobs];
        if (snapshot_job(job, q, ji) != 0)
            return -1;
        ssn->njobs++;
        if (q < 0)
            continue;
        for (int t = 0; t < ji->ntasks; t++)
            for (int32_t k = 0; k < ji->tasks[t].pending; k++)
                resvec_add(&ssn->queues[q].request, ji->tasks[t].request);
        if (job->pg.phase == PG_INQUEUE) { /* enqueued, not running yet: reserve its minimum */
            struct resvec rest = job->pg.min_resources;
            resvec_sub(&rest, &job->allocated);
            for (int r = 0; r < RES_MAX; r++)
                if (rest.v[r] > 0)
                    ssn->queues[q].inqueue.v[r] += rest.v[r];
        }
    }
    return 0;
}

static int open_plugin(struct session *ssn, const struct plugin_def *def, const struct plugin_conf *pc, int tier)
{
    struct session_hooks *h = ssn->hooks;
    if (h->nopen >= MAX_HOOKS)
        return 0;
    void *state = NULL;
    if (def->open(ssn, pc, tier, &state) != 0)
        return -1;
    h->open_plugins[h->nopen] = def;
    h->open_states[h->nopen++] = state;
    return 0;
}

/* The configured plugins in tier order. Namespace quotas always apply (they are an API object a
 * user created, not a scheduling preference): quota opens even when the conf does not name it,
 * ahead of every tier, because in Volcano's enqueue rule the first tier that permits decides. */
static int open_plugins(struct session *ssn)
{
    if (ssn->cluster->nquotas > 0 && !sched_conf_plugin(ssn->conf, "quota")) {
        const struct plugin_def *quota = registry_plugin(ssn->registry, "quota");
        plugin_conf_init(&ssn->hooks->implicit, "quota");
        if (quota && open_plugin(ssn, quota, &ssn->hooks->implicit, -1) != 0)
            return -1;
    }
    for (int t = 0; t < ssn->conf->ntiers; t++) {
        const struct tier_conf *tier = &ssn->conf->tiers[t];
        for (int p = 0; p < tier->nplugins; p++) {
            const struct plugin_def *def = registry_plugin(ssn->registry, tier->plugins[p].name);
            if (def && open_plugin(ssn, def, &tier->plugins[p], t) != 0)
                return -1;
        }
    }
    return 0;
}

static void read_action_args(struct session *ssn)
{
    int min_nodes = 0, percentage = 0;
    for (int a = 0; a < ssn->conf->nactions; a++) {
        const json_t *args = ssn->conf->action_args[a];
        if (!args || strcmp(ssn->conf->actions[a], "allocate") != 0)
            continue;
        struct plugin_conf pc = {.arguments = (json_t *)args};
        min_nodes = (int)plugin_arg_number(&pc, "minNodesToFind", 0);
        percentage = (int)plugin_arg_number(&pc, "percentageOfNodesToFind", 0);
    }
    ssn->nodes_to_find = session_nodes_to_find(ssn->nnodes, min_nodes, percentage);
}

int session_open(struct session *ssn, const struct plugin_registry *registry, const struct cluster *cluster,
                 const struct sched_conf *conf, const struct session_zone *zone, int64_t now_ms)
{
    memset(ssn, 0, sizeof *ssn);
    ssn->conf = conf;
    ssn->registry = registry;
    ssn->cluster = cluster;
    ssn->now_ms = now_ms;
    ssn->scheduler_name = zone && zone->scheduler_name ? zone->scheduler_name : DEFAULT_SCHEDULER_NAME;
    ssn->hooks = calloc(1, sizeof *ssn->hooks);
    if (!ssn->hooks || snapshot_nodes(ssn, zone) != 0 || snapshot_queues(ssn) != 0 || snapshot_jobs(ssn) != 0)
        goto fail;
    read_action_args(ssn);
    if (open_plugins(ssn) != 0)
        goto fail;
    return 0;
fail:
    session_free(ssn);
    return -1;
}

void session_run(struct session *ssn)
{
    for (int a = 0; a < ssn->conf->nactions; a++) {
        const struct action_def *def = registry_action(ssn->registry, ssn->conf->actions[a]);
        if (def)
            def->execute(ssn);
    }
}

void session_close(struct session *ssn)
{
    struct session_hooks *h = ssn->hooks;
    if (!h)
        return;
    for (int i = h->nopen - 1; i >= 0; i--)
        if (h->open_plugins[i]->close)
            h->open_plugins[i]->close(ssn, h->open_states[i]);
    h->nopen = 0;
}

void session_free(struct session *ssn)
{
    session_close(ssn);
    for (int j = 0; j < ssn->njobs; j++) {
        free(ssn->jobs[j].tasks);
        free(ssn->jobs[j].unschedulable);
    }
    session_filters_free(ssn);
    session_victims_free(ssn);
    session_pod_index_free(ssn);
    free(ssn->jobs);
    free(ssn->nodes);
    free(ssn->queues);
    free(ssn->binds);
    free(ssn->evicts);
    free(ssn->unfit);
    free(ssn->hooks);
    memset(ssn, 0, sizeof *ssn);
}
