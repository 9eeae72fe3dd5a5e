/* Volcano's task-topology plugin on virtual nodes: a job's affinity annotation keeps its talking
 * tasks on one node, anti-affinity keeps replicas apart, task order places listed tasks first, and
 * annotations naming no task of the job are ignored, as Volcano ignores them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/uuid.h"
#include "tests/lib/sched_fixture.h"
#include "tests/lib/test.h"

/* Adds task-topology to the conf's second tier, as Volcano's guide configures it. */
static void with_task_topology(struct sched_fixture *fx)
{
    struct tier_conf *tier = &fx->conf.tiers[fx->conf.ntiers > 1 ? 1 : 0];
    plugin_conf_init(&tier->plugins[tier->nplugins], "task-topology");
    tier->plugins[tier->nplugins].arguments = json_pack("{s:i}", "task-topology.weight", 10);
    tier->nplugins++;
}

/* Takes a plugin out of the conf (its arguments go with it). */
static void drop_plugin(struct sched_fixture *fx, const char *name)
{
    for (int t = 0; t < fx->conf.ntiers; t++) {
        struct tier_conf *tier = &fx->conf.tiers[t];
        for (int p = 0; p < tier->nplugins; p++)
            if (strcmp(tier->plugins[p].name, name) == 0) {
                json_decref(tier->plugins[p].arguments);
                memmove(&tier->plugins[p], &tier->plugins[p + 1],
                        (size_t)(tier->nplugins - p - 1) * sizeof *tier->plugins);
                tier->nplugins--;
                return;
            }
    }
}

/* A job of two tasks, ps (ps replicas) and worker (workers), every replica 1 cpu, gang of all,
 * with the given annotations (a JSON object text). */
static struct job *ps_worker_job(struct sched_fixture *fx, const char *name, int ps, int workers,
                                 const char *annotations)
{
    struct job *job = job_new(2);
    job->ns = strdup("default");
    job->name = strdup(name);
    job->key = malloc(strlen(name) + 9);
    sprintf(job->key, "default/%s", name);
    uuid_v4(job->uid);
    job->queue = strdup("default");
    job->scheduler_name = strdup("volcano");
    job->created_ms = fx->now_ms++;
    job->min_available = ps + workers;
    job->manifest_tree = json_pack("{s:{s:s, s:o}}", "metadata", "name", name, "annotations",
                                   json_loads(annotations, 0, NULL));
    const char *names[2] = {"ps", "worker"};
    int counts[2] = {ps, workers};
    for (int t = 0; t < 2; t++) {
        job->tasks[t].name = strdup(names[t]);
        job->tasks[t].replicas = counts[t];
        job->tasks[t].min_available = counts[t];
        job->tasks[t].request.v[RES_CPU] = 1000;
        job->tasks[t].request.v[RES_PODS] = 1;
        job->pg.min_resources.v[RES_CPU] += 1000 * counts[t];
        job->pg.min_resources.v[RES_PODS] += counts[t];
    }
    job_alloc_replicas(job);
    job->pg.phase = PG_INQUEUE;
    job->status.phase = JOB_PENDING;
    cluster_add_job(&fx->c, job);
    return job;
}

/* Replicas of task t of job bound per node index. */
static void bound_per_node(const struct session *ssn, const struct job *job, int task, int *per, int nnodes)
{
    memset(per, 0, (size_t)nnodes * sizeof *per);
    for (int b = 0; b < ssn->nbinds; b++)
        if (ssn->jobs[ssn->binds[b].job].job == job && ssn->binds[b].task == task)
            per[ssn->nodes[ssn->binds[b].node].index] += ssn->binds[b].count;
}

static int nodes_used(const int *per, int n)
{
    int used = 0;
    for (int i = 0; i < n; i++)
        used += per[i] > 0;
    return used;
}

static void affinity_keeps_ps_and_workers_together(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    with_task_topology(&fx);
    drop_plugin(&fx, "nodeorder");
    fixture_node(&fx, "n0", 8000, 64 * GiB);
    fixture_node(&fx, "n1", 8000, 64 * GiB);
    /* n1 is busier, which binpack prefers; the running ps is on n0. */
    struct job *busy = fixture_job(&fx, "busy", "default", 1, 1, 4000);
    fixture_run(&fx, busy, 0, 1, 1);
    struct job *job = ps_worker_job(&fx, "tf", 1, 3, "{\"volcano.sh/task-topology-affinity\": \"ps,worker\"}");
    fixture_run(&fx, job, 0, 0, 1);
    struct session ssn = fixture_cycle(&fx);
    int workers[2];
    bound_per_node(&ssn, job, 1, workers, 2);
    CHECK_INT(fixture_bound(&ssn, job), 3);
    CHECK_INT(workers[0], 3); /* beside their ps */
    session_free(&ssn);
    fixture_free(&fx);
}

static void anti_affinity_spreads_replicas(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    with_task_topology(&fx);
    for (int i = 0; i < 4; i++) {
        char name[8];
        snprintf(name, sizeof name, "n%d", i);
        fixture_node(&fx, name, 8000, 64 * GiB);
    }
    /* Without the plugin binpack-free scoring could stack them; with self anti-affinity each worker
     * is in its own bucket, and a node holding a worker scores lower for the next. */
    struct job *job = ps_worker_job(&fx, "tf", 1, 4, "{\"volcano.sh/task-topology-anti-affinity\": \"worker\"}");
    struct session ssn = fixture_cycle(&fx);
    int workers[4];
    bound_per_node(&ssn, job, 1, workers, 4);
    CHECK_INT(fixture_bound(&ssn, job), 5);
    CHECK_INT(nodes_used(workers, 4), 4);
    session_free(&ssn);
    fixture_free(&fx);
}

static void task_order_places_listed_tasks_first(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    with_task_topology(&fx);
    fixture_node(&fx, "n0", 8000, 64 * GiB);
    struct job *job = ps_worker_job(&fx, "tf", 1, 2,
                                    "{\"volcano.sh/task-topology-affinity\": \"ps,worker\","
                                    " \"volcano.sh/task-topology-task-order\": \"worker,ps\"}");
    struct session ssn = fixture_cycle(&fx);
    REQUIRE(ssn.nbinds > 0);
    CHECK_INT(ssn.binds[0].task, 1); /* worker first, as listed */
    CHECK_INT(fixture_bound(&ssn, job), 3);
    session_free(&ssn);
    fixture_free(&fx);

    fixture_init(&fx, "enqueue, allocate");
    with_task_topology(&fx);
    fixture_node(&fx, "n0", 8000, 64 * GiB);
    job = ps_worker_job(&fx, "tf", 1, 2, "{\"volcano.sh/task-topology-task-order\": \"worker,chief\"}");
    ssn = fixture_cycle(&fx); /* chief is no task of the job: the annotations are ignored */
    REQUIRE(ssn.nbinds > 0);
    CHECK_INT(ssn.binds[0].task, 0);
    session_free(&ssn);
    fixture_free(&fx);
}

TEST_MAIN(TEST_CASE(affinity_keeps_ps_and_workers_together), TEST_CASE(anti_affinity_spreads_replicas),
          TEST_CASE(task_order_places_listed_tasks_first))
