/* Hand-built clusters for scheduler tests. Running replicas are accounted exactly as the
 * controller accounts them (node used, job allocated, queue allocated), so sessions see what they
 * would see in the server. */
#include "tests/lib/sched_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/uuid.h"
#include "scheduler/registry.h"

void fixture_init(struct sched_fixture *fx, const char *actions)
{
    memset(fx, 0, sizeof *fx);
    sched_conf_default(&fx->conf);
    fx->conf.nactions = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", actions);
    for (char *save = NULL, *a = strtok_r(buf, ", ", &save); a; a = strtok_r(NULL, ", ", &save))
        snprintf(fx->conf.actions[fx->conf.nactions++], CONF_NAME_MAX, "%s", a);
    fx->now_ms = 1000000;
    fixture_queue(fx, "default", 1);
}

void fixture_free(struct sched_fixture *fx)
{
    cluster_free(&fx->c);
    sched_conf_free(&fx->conf);
}

void fixture_node(struct sched_fixture *fx, const char *name, int64_t cpu_milli, int64_t mem)
{
    struct cluster *c = &fx->c;
    c->nodes = realloc(c->nodes, (size_t)(c->nnodes + 1) * sizeof *c->nodes);
    struct node *n = &c->nodes[c->nnodes++];
    memset(n, 0, sizeof *n);
    n->name = strdup(name);
    n->labels = json_object();
    n->taints = json_array();
    n->allocatable.v[RES_CPU] = cpu_milli;
    n->allocatable.v[RES_MEMORY] = mem;
    n->allocatable.v[RES_PODS] = 110;
}

struct queue *fixture_queue(struct sched_fixture *fx, const char *name, int32_t weight)
{
    struct queue *q = calloc(1, sizeof *q);
    q->name = strdup(name);
    q->weight = weight;
    q->reclaimable = true;
    q->created_ms = fx->c.nqueues;
    uuid_v4(q->uid);
    cluster_add_queue(&fx->c, q);
    return q;
}

struct job *fixture_job(struct sched_fixture *fx, const char *name, const char *queue, int replicas, int min_available,
                        int64_t cpu_milli)
{
    struct job *job = job_new(1);
    job->ns = strdup("default");
    job->name = strdup(name);
    job->key = malloc(strlen(name) + 9);
    sprintf(job->key, "default/%s", name);
    uuid_v4(job->uid);
    job->queue = strdup(queue);
    job->scheduler_name = strdup("volcano");
    job->created_ms = fx->now_ms++;
    job->min_available = min_available;
    job->manifest_tree = json_pack("{s:{s:s}}", "metadata", "name", name);
    job->tasks[0].name = strdup("worker");
    job->tasks[0].replicas = replicas;
    job->tasks[0].min_available = min_available;
    job->tasks[0].request.v[RES_CPU] = cpu_milli;
    job->tasks[0].request.v[RES_PODS] = 1;
    job_alloc_replicas(job);
    for (int i = 0; i < min_available; i++)
        job->pg.min_resources.v[RES_CPU] += cpu_milli, job->pg.min_resources.v[RES_PODS]++;
    job->pg.phase = PG_INQUEUE;
    job->status.phase = JOB_PENDING;
    cluster_add_job(&fx->c, job);
    return job;
}

void fixture_run(struct sched_fixture *fx, struct job *job, int flat, int node, int64_t start_ms)
{
    const struct resvec *req = &job->tasks[job_task_of(job, flat)].request;
    job_set_replica_phase(job, flat, POD_RUNNING);
    job->replicas[flat].node = node;
    job->replicas[flat].start_ms = start_ms;
    resvec_add(&fx->c.nodes[node].used, req);
    resvec_add(&job->allocated, req);
    struct queue *q = cluster_find_queue(&fx->c, job->queue);
    if (q)
        resvec_add(&q->allocated, req);
    job->status.phase = JOB_RUNNING;
    job->pg.phase = PG_RUNNING;
}

struct session fixture_cycle(struct sched_fixture *fx)
{
    struct session ssn;
    if (session_open(&ssn, &builtin_registry, &fx->c, &fx->conf, NULL, fx->now_ms) != 0)
        memset(&ssn, 0, sizeof ssn);
    session_run(&ssn);
    session_close(&ssn);
    return ssn;
}

int fixture_bound(const struct session *ssn, const struct job *job)
{
    int n = 0;
    for (int b = 0; b < ssn->nbinds; b++)
        if (ssn->jobs[ssn->binds[b].job].job == job)
            n += ssn->binds[b].count;
    return n;
}

int fixture_evicted(const struct session *ssn, const struct job *job)
{
    int n = 0;
    for (int e = 0; e < ssn->nevicts; e++)
        if (ssn->evicts[e].job == job)
            n++;
    return n;
}

const struct job_info *fixture_info(const struct session *ssn, const struct job *job)
{
    for (int j = 0; j < ssn->njobs; j++)
        if (ssn->jobs[j].job == job)
            return &ssn->jobs[j];
    return NULL;
}

static int count_and_refuse_wake(void *ctx, struct job *job)
{
    (void)job;
    (*(int *)ctx)++;
    return -1;
}

void fixture_count_wakes(struct sched_fixture *fx, int *count)
{
    fx->c.wake = count_and_refuse_wake;
    fx->c.wake_ctx = count;
}
