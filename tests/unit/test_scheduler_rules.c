/* Volcano's placement rules, one case each: proportion's deserved shares (weight, capability,
 * borrowing, hierarchy), Volcano's four queue scenarios exactly as its overview writes them, DRF order,
 * preemption by priority with elastic jobs shrinking before gangs break, overcommit, namespace
 * quota, node zones, SLA, the fifo dequeue strategy and task priority within a job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/plugin.h"
#include "scheduler/registry.h"
#include "tests/lib/sched_fixture.h"
#include "tests/lib/test.h"

#define CPU(n) ((int64_t)(n)*1000)

static const struct queue_info *qinfo(const struct session *ssn, const char *name)
{
    int q = session_queue_index(ssn, name);
    return q >= 0 ? &ssn->queues[q] : NULL;
}

/* A job whose replicas are all running, from start_ms on, on node 0. */
static struct job *running_job(struct sched_fixture *fx, const char *name, const char *queue, int replicas, int64_t cpu,
                               int64_t start_ms)
{
    struct job *job = fixture_job(fx, name, queue, replicas, replicas, cpu);
    for (int i = 0; i < replicas; i++)
        fixture_run(fx, job, i, 0, start_ms);
    return job;
}

static void deserved_by_weight_and_borrowing(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    fixture_node(&fx, "n1", CPU(4), 16 * GiB);
    fixture_queue(&fx, "light", 1);
    fixture_queue(&fx, "heavy", 3);
    fixture_job(&fx, "a", "light", 8, 1, CPU(1));
    fixture_job(&fx, "b", "heavy", 8, 1, CPU(1));
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(qinfo(&ssn, "light")->deserved.v[RES_CPU], CPU(1));
    CHECK_INT(qinfo(&ssn, "heavy")->deserved.v[RES_CPU], CPU(3));
    session_free(&ssn);
    fixture_free(&fx);

    fixture_init(&fx, "enqueue, allocate");
    fixture_node(&fx, "n1", CPU(4), 16 * GiB);
    fixture_queue(&fx, "busy", 1);
    fixture_queue(&fx, "idle", 3);
    struct job *a = fixture_job(&fx, "a", "busy", 4, 1, CPU(1));
    ssn = fixture_cycle(&fx);
    CHECK_INT(qinfo(&ssn, "busy")->deserved.v[RES_CPU], CPU(4)); /* borrows what idle does not ask for */
    CHECK_INT(fixture_bound(&ssn, a), 4);
    session_free(&ssn);
    fixture_free(&fx);
}

static void capability_caps_deserved_and_guarantee_floors_it(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    fixture_node(&fx, "n1", CPU(10), 16 * GiB);
    struct queue *capped = fixture_queue(&fx, "capped", 1);
    capped->has_capability = true;
    capped->capability.v[RES_CPU] = CPU(2);
    struct queue *other = fixture_queue(&fx, "other", 1);
    other->has_guarantee = true;
    other->guarantee.v[RES_CPU] = CPU(1);
    fixture_job(&fx, "a", "capped", 10, 1, CPU(1));
    fixture_job(&fx, "b", "default", 10, 1, CPU(1));
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(qinfo(&ssn, "capped")->deserved.v[RES_CPU], CPU(2));
    CHECK_INT(qinfo(&ssn, "other")->deserved.v[RES_CPU], CPU(1)); /* asks nothing, guaranteed 1 */
    CHECK_INT(qinfo(&ssn, "default")->deserved.v[RES_CPU], CPU(7));
    session_free(&ssn);
    fixture_free(&fx);
}

static void hierarchical_queues_share_level_by_level(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    fixture_node(&fx, "n1", CPU(8), 16 * GiB);
    fixture_queue(&fx, "a", 1);
    fixture_queue(&fx, "b", 1);
    fixture_queue(&fx, "b1", 1)->parent = strdup("b");
    fixture_queue(&fx, "b2", 3)->parent = strdup("b");
    fixture_job(&fx, "ja", "a", 10, 1, CPU(1));
    fixture_job(&fx, "jb1", "b1", 10, 1, CPU(1));
    fixture_job(&fx, "jb2", "b2", 10, 1, CPU(1));
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(qinfo(&ssn, "default")->deserved.v[RES_CPU], 0); /* asks for nothing */
    CHECK_INT(qinfo(&ssn, "a")->deserved.v[RES_CPU], CPU(4));  /* a and b share the top level */
    CHECK_INT(qinfo(&ssn, "b1")->deserved.v[RES_CPU] + qinfo(&ssn, "b2")->deserved.v[RES_CPU],
              qinfo(&ssn, "b")->deserved.v[RES_CPU]);
    CHECK_INT(qinfo(&ssn, "b1")->deserved.v[RES_CPU], CPU(1)); /* b's 4 CPUs split 1:3 */
    CHECK_INT(qinfo(&ssn, "b2")->deserved.v[RES_CPU], CPU(3));
    session_free(&ssn);
    fixture_free(&fx);
}

/* Volcano's queue scenario 1: 4 CPUs; queues test1 (weight 1) and test2 (weight 3); job1 of 1C in
 * test1 and job2 of 3C in test2: both run. */
static void queues_weighted_1_to_3_both_run(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate, backfill");
    fixture_node(&fx, "n1", CPU(4), 8 * GiB);
    fixture_queue(&fx, "test1", 1);
    fixture_queue(&fx, "test2", 3);
    struct job *job1 = fixture_job(&fx, "job1", "test1", 1, 1, CPU(1));
    struct job *job2 = fixture_job(&fx, "job2", "test2", 1, 1, CPU(3));
    job1->pg.phase = job2->pg.phase = PG_PENDING;
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, job1), 1);
    CHECK_INT(fixture_bound(&ssn, job2), 1);
    session_free(&ssn);
    fixture_free(&fx);
}

/* Scenario 2: test1 alone runs job1 (1C) and job2 (3C); then test2 (weight 3) gets job3 (3C):
 * reclaim evicts job2, and test1's 3 CPUs go to test2 (job1 keeps running). */
static void queue_reclaim_evicts_job2(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate, reclaim, backfill");
    fixture_node(&fx, "n1", CPU(4), 8 * GiB);
    fixture_queue(&fx, "test1", 1);
    struct job *job1 = running_job(&fx, "job1", "test1", 1, CPU(1), 100);
    struct job *job2 = running_job(&fx, "job2", "test1", 1, CPU(3), 200);
    fixture_queue(&fx, "test2", 3);
    struct job *job3 = fixture_job(&fx, "job3", "test2", 1, 1, CPU(3));
    job3->pg.phase = PG_PENDING;
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_evicted(&ssn, job2), 1);
    CHECK_INT(fixture_evicted(&ssn, job1), 0);
    const struct job_info *ji = fixture_info(&ssn, job3);
    REQUIRE(ji);
    CHECK(ji->enqueued_now);
    CHECK(ji->pipelined);
    REQUIRE(ssn.nevicts == 1);
    CHECK_CONTAINS(ssn.evicts[0].message, "reclaimed by default/job3");
    session_free(&ssn);

    /* job2 is gone (it exits, comes back Pending); the next cycle binds job3 and keeps job2 out */
    job_set_replica_phase(job2, 0, POD_PENDING);
    job2->replicas[0].node = -1;
    resvec_sub(&fx.c.nodes[0].used, &job2->tasks[0].request);
    resvec_sub(&job2->allocated, &job2->tasks[0].request);
    resvec_sub(&cluster_find_queue(&fx.c, "test1")->allocated, &job2->tasks[0].request);
    job3->pg.phase = PG_INQUEUE;
    ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, job3), 1);
    CHECK_INT(fixture_bound(&ssn, job2), 0);
    CHECK_INT(ssn.nevicts, 0);
    CHECK_CONTAINS(fixture_info(&ssn, job2)->unschedulable, "queue test1 is at its deserved share");
    session_free(&ssn);
    fixture_free(&fx);
}

/* Scenario 3: test1 with capability cpu 2; job1 (1C) runs, job2 (3C) stays pending. */
static void queue_capability_keeps_job2_pending(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate, backfill");
    fixture_node(&fx, "n1", CPU(4), 8 * GiB);
    struct queue *test1 = fixture_queue(&fx, "test1", 1);
    test1->has_capability = true;
    test1->capability.v[RES_CPU] = CPU(2);
    struct job *job1 = fixture_job(&fx, "job1", "test1", 1, 1, CPU(1));
    struct job *job2 = fixture_job(&fx, "job2", "test1", 1, 1, CPU(3));
    job1->pg.phase = job2->pg.phase = PG_PENDING;
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, job1), 1);
    CHECK_INT(fixture_bound(&ssn, job2), 0);
    const struct job_info *ji = fixture_info(&ssn, job2);
    REQUIRE(ji && ji->unschedulable);
    CHECK(!ji->inqueue);
    CHECK_CONTAINS(ji->unschedulable, "queue test1 capability exceeded: cpu 2 capability");
    session_free(&ssn);
    fixture_free(&fx);
}

/* Scenario 4: test1 (weight 1, reclaimable false) runs job1 (3C); test2 (weight 1) gets job2
 * (2C): test1 keeps its extra CPU, job2 stays pending. */
static void unreclaimable_queue_keeps_job2_pending(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate, reclaim, backfill");
    fixture_node(&fx, "n1", CPU(4), 8 * GiB);
    fixture_queue(&fx, "test1", 1)->reclaimable = false;
    running_job(&fx, "job1", "test1", 1, CPU(3), 100);
    fixture_queue(&fx, "test2", 1);
    struct job *job2 = fixture_job(&fx, "job2", "test2", 1, 1, CPU(2));
    job2->pg.phase = PG_PENDING;
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(ssn.nevicts, 0);
    CHECK_INT(fixture_bound(&ssn, job2), 0);
    CHECK_CONTAINS(fixture_info(&ssn, job2)->unschedulable, "insufficient cpu");
    session_free(&ssn);
    fixture_free(&fx);
}

static void drf_serves_the_smaller_share_first(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    fixture_node(&fx, "n1", CPU(4), 8 * GiB);
    struct job *big = fixture_job(&fx, "big", "default", 3, 1, CPU(1)); /* older: FIFO would pick it */
    struct job *small = fixture_job(&fx, "small", "default", 2, 1, CPU(1));
    fixture_run(&fx, big, 0, 0, 1);
    fixture_run(&fx, big, 1, 0, 1);
    fixture_run(&fx, small, 0, 0, 1);
    struct session ssn = fixture_cycle(&fx); /* one CPU left: small holds 1, big 2 */
    CHECK_INT(fixture_bound(&ssn, small), 1);
    CHECK_INT(fixture_bound(&ssn, big), 0);
    session_free(&ssn);
    fixture_free(&fx);
}

static void preemption_by_priority_shrinks_elastic_jobs_first(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate, preempt");
    fixture_node(&fx, "n1", CPU(3), 8 * GiB);
    struct job *elastic = fixture_job(&fx, "elastic", "default", 2, 1, CPU(1)); /* min 1 of 2: one to spare */
    fixture_run(&fx, elastic, 0, 0, 100);
    fixture_run(&fx, elastic, 1, 0, 100);
    struct job *gang = running_job(&fx, "gang", "default", 1, CPU(1), 500); /* newest, but no spare */
    struct job *urgent = fixture_job(&fx, "urgent", "default", 1, 1, CPU(1));
    urgent->priority = 1000;
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_evicted(&ssn, elastic), 1);
    CHECK_INT(fixture_evicted(&ssn, gang), 0);
    CHECK(fixture_info(&ssn, urgent)->pipelined);
    REQUIRE(ssn.nevicts == 1);
    CHECK_CONTAINS(ssn.evicts[0].message, "preempted by default/urgent");
    session_free(&ssn);

    urgent->priority = 0; /* equal priority preempts nothing */
    ssn = fixture_cycle(&fx);
    CHECK_INT(ssn.nevicts, 0);
    session_free(&ssn);
    fixture_free(&fx);
}

/* minAvailable 2 of 4: it starts with what fits (>= 2) and grows when room comes free. */
static void elastic_job_grows_when_room_comes_free(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    fixture_node(&fx, "n1", CPU(4), 8 * GiB);
    struct job *other = running_job(&fx, "other", "default", 2, CPU(1), 1);
    struct job *elastic = fixture_job(&fx, "elastic", "default", 4, 2, CPU(1));
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, elastic), 2); /* starts at its minimum */
    session_free(&ssn);
    fixture_run(&fx, elastic, 0, 0, 2);
    fixture_run(&fx, elastic, 1, 0, 2);
    for (int i = 0; i < 2; i++) { /* the other job ends: its CPUs come free */
        job_set_replica_phase(other, i, POD_SUCCEEDED);
        resvec_sub(&fx.c.nodes[0].used, &other->tasks[0].request);
        resvec_sub(&other->allocated, &other->tasks[0].request);
        resvec_sub(&cluster_find_queue(&fx.c, "default")->allocated, &other->tasks[0].request);
    }
    ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, elastic), 2); /* grows to all 4 replicas */
    session_free(&ssn);
    fixture_free(&fx);
}

static void overcommit_factor_guards_enqueue(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    fixture_node(&fx, "n1", CPU(4), 8 * GiB);
    running_job(&fx, "full", "default", 4, CPU(1), 1);
    struct job *late = fixture_job(&fx, "late", "default", 1, 1, CPU(1));
    late->pg.phase = PG_PENDING;
    struct session ssn = fixture_cycle(&fx);
    const struct job_info *ji = fixture_info(&ssn, late);
    REQUIRE(ji);
    CHECK(!ji->enqueued_now);
    CHECK_CONTAINS(ji->unschedulable, "overcommit factor 1.2): cpu 1 needed");
    CHECK(!strstr(ji->unschedulable, "free")); /* what it needs, not what comes and goes */
    session_free(&ssn);

    struct plugin_conf *oc = NULL;
    for (int t = 0; t < fx.conf.ntiers; t++)
        for (int p = 0; p < fx.conf.tiers[t].nplugins; p++)
            if (strcmp(fx.conf.tiers[t].plugins[p].name, "overcommit") == 0)
                oc = &fx.conf.tiers[t].plugins[p];
    REQUIRE(oc);
    oc->arguments = json_pack("{s:f}", "overcommit-factor", 2.0);
    ssn = fixture_cycle(&fx);
    CHECK(fixture_info(&ssn, late)->enqueued_now);
    session_free(&ssn);
    fixture_free(&fx);
}

static void namespace_quota_keeps_jobs_queued(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    fixture_node(&fx, "n1", CPU(8), 8 * GiB);
    struct resource_quota *rq = calloc(1, sizeof *rq);
    rq->ns = strdup("default");
    rq->name = strdup("team");
    rq->limited[RES_CPU] = true;
    rq->hard.v[RES_CPU] = CPU(2);
    fx.c.quotas = malloc(sizeof *fx.c.quotas);
    fx.c.quotas[fx.c.nquotas++] = rq;
    struct job *first = fixture_job(&fx, "first", "default", 1, 1, 1500);
    struct job *second = fixture_job(&fx, "second", "default", 1, 1, CPU(1));
    first->pg.phase = second->pg.phase = PG_PENDING;
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, first), 1);
    CHECK_INT(fixture_bound(&ssn, second), 0);
    const struct job_info *ji = fixture_info(&ssn, second);
    REQUIRE(ji && ji->unschedulable);
    CHECK_CONTAINS(ji->unschedulable,
                   "namespace default quota: hard limit 2 of requests.cpu leaves no room for this "
                   "job's 1");
    session_free(&ssn);
    fixture_free(&fx);
}

static void zones_partition_nodes_and_jobs(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    fixture_node(&fx, "general", CPU(1), 8 * GiB);
    fixture_node(&fx, "daily-1", CPU(4), 8 * GiB);
    json_object_set_new(fx.c.nodes[1].labels, "node-zone", json_string("daily"));
    struct job *general = fixture_job(&fx, "g", "default", 1, 1, CPU(2));
    struct job *daily = fixture_job(&fx, "d", "default", 1, 1, CPU(2));
    free(daily->scheduler_name);
    daily->scheduler_name = strdup("volcano-daily");
    const int default_nodes[] = {0}, daily_nodes[] = {1};
    struct session_zone zd = {"volcano", default_nodes, 1}, zz = {"volcano-daily", daily_nodes, 1};
    struct session ssn;
    REQUIRE(session_open(&ssn, &builtin_registry, &fx.c, &fx.conf, &zd, fx.now_ms) == 0);
    session_run(&ssn);
    session_close(&ssn);
    CHECK_INT(fixture_bound(&ssn, general), 0); /* daily-1's room is not the default zone's */
    CHECK(fixture_info(&ssn, daily) == NULL);
    session_free(&ssn);
    REQUIRE(session_open(&ssn, &builtin_registry, &fx.c, &fx.conf, &zz, fx.now_ms) == 0);
    session_run(&ssn);
    session_close(&ssn);
    CHECK_INT(fixture_bound(&ssn, daily), 1);
    CHECK_INT(ssn.nodes[ssn.binds[0].node].index, 1);
    CHECK_INT(qinfo(&ssn, "default")->deserved.v[RES_CPU], CPU(2)); /* its own fair share: the zone's */
    session_free(&ssn);
    fixture_free(&fx);
}

static void sla_deadline_goes_first(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    plugin_conf_init(&fx.conf.tiers[1].plugins[fx.conf.tiers[1].nplugins++], "sla");
    fixture_node(&fx, "n1", CPU(1), 8 * GiB);
    struct job *old = fixture_job(&fx, "old", "default", 1, 1, CPU(1));
    struct job *hurried = fixture_job(&fx, "hurried", "default", 1, 1, CPU(1));
    json_object_set_new(json_object_get(job_manifest(hurried), "metadata"), "annotations",
                        json_pack("{s:s}", "sla-waiting-time", "10m"));
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, hurried), 1);
    CHECK_INT(fixture_bound(&ssn, old), 0);
    session_free(&ssn);
    fixture_free(&fx);
}

static void fifo_dequeue_strategy_blocks_behind_the_head(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    fixture_node(&fx, "n1", CPU(2), 8 * GiB);
    struct job *head = fixture_job(&fx, "head", "default", 1, 1, CPU(3)); /* never fits */
    struct job *small = fixture_job(&fx, "small", "default", 1, 1, CPU(1));
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, small), 1); /* traverse (default): skip the blocked head */
    session_free(&ssn);
    cluster_find_queue(&fx.c, "default")->dequeue_fifo = true;
    ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, head), 0);
    CHECK_INT(fixture_bound(&ssn, small), 0);
    session_free(&ssn);
    fixture_free(&fx);
}

/* Volcano's priority plugin orders a job's tasks (TaskOrderFn): the task whose pods have the higher
 * priority is placed first, though it comes second in the Job. Equal priorities keep the Job's order. */
static void task_priority_orders_a_jobs_tasks(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    fixture_node(&fx, "n1", CPU(2), 8 * GiB);
    struct job *job = fixture_job(&fx, "mixed", "default", 2, 2, CPU(1));
    struct task_spec *tasks = realloc(job->tasks, 2 * sizeof *tasks);
    REQUIRE(tasks);
    job->tasks = tasks;
    job->ntasks = 2;
    tasks[1] = tasks[0];
    tasks[1].name = strdup("ps");
    tasks[1].argv = NULL, tasks[1].env = NULL;
    REQUIRE(job_alloc_replicas(job) == 0);
    tasks[1].priority = 100; /* worker first in the Job, ps first by priority */
    struct session ssn = fixture_cycle(&fx);
    REQUIRE(ssn.nbinds == 1);
    CHECK_INT(ssn.binds[0].task, 1);
    CHECK_INT(ssn.binds[0].count, 2);
    session_free(&ssn);

    tasks[1].priority = 0;
    ssn = fixture_cycle(&fx);
    REQUIRE(ssn.nbinds == 1);
    CHECK_INT(ssn.binds[0].task, 0);
    session_free(&ssn);
    fixture_free(&fx);
}

/* Volcano's allocate, when the conf has no enqueue action, moves Pending PodGroups to Inqueue
 * itself and places them in the same cycle; with enqueue configured it leaves them to enqueue. */
static void allocate_admits_pending_jobs_without_enqueue(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "allocate, backfill");
    fixture_node(&fx, "n1", CPU(4), 8 * GiB);
    struct job *waiting = fixture_job(&fx, "waiting", "default", 2, 2, CPU(1));
    waiting->pg.phase = PG_PENDING;
    struct session ssn = fixture_cycle(&fx);
    const struct job_info *ji = fixture_info(&ssn, waiting);
    REQUIRE(ji);
    CHECK(ji->enqueued_now);
    CHECK_INT(fixture_bound(&ssn, waiting), 2);
    session_free(&ssn);
    fixture_free(&fx);

    fixture_init(&fx, "backfill, allocate");
    fixture_node(&fx, "n1", CPU(1), 8 * GiB);
    struct job *big = fixture_job(&fx, "big", "default", 1, 1, CPU(3)); /* fits nowhere: admitted, not bound */
    big->pg.phase = PG_PENDING;
    ssn = fixture_cycle(&fx);
    CHECK(fixture_info(&ssn, big)->enqueued_now);
    CHECK_INT(fixture_bound(&ssn, big), 0);
    session_free(&ssn);
    fixture_free(&fx);

    fixture_init(&fx, "allocate, enqueue"); /* enqueue configured, even after allocate: allocate waits for it */
    fixture_node(&fx, "n1", CPU(4), 8 * GiB);
    struct job *later = fixture_job(&fx, "later", "default", 1, 1, CPU(1));
    later->pg.phase = PG_PENDING;
    ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, later), 0);
    CHECK(fixture_info(&ssn, later)->enqueued_now);
    session_free(&ssn);
    fixture_free(&fx);
}

TEST_MAIN(TEST_CASE(deserved_by_weight_and_borrowing), TEST_CASE(allocate_admits_pending_jobs_without_enqueue),
          TEST_CASE(capability_caps_deserved_and_guarantee_floors_it),
          TEST_CASE(hierarchical_queues_share_level_by_level), TEST_CASE(queues_weighted_1_to_3_both_run),
          TEST_CASE(queue_reclaim_evicts_job2), TEST_CASE(queue_capability_keeps_job2_pending),
          TEST_CASE(unreclaimable_queue_keeps_job2_pending), TEST_CASE(drf_serves_the_smaller_share_first),
          TEST_CASE(preemption_by_priority_shrinks_elastic_jobs_first),
          TEST_CASE(elastic_job_grows_when_room_comes_free), TEST_CASE(overcommit_factor_guards_enqueue),
          TEST_CASE(namespace_quota_keeps_jobs_queued), TEST_CASE(zones_partition_nodes_and_jobs),
          TEST_CASE(sla_deadline_goes_first), TEST_CASE(fifo_dequeue_strategy_blocks_behind_the_head),
          TEST_CASE(task_priority_orders_a_jobs_tasks))
