/* Placement over a snapshot: gang all-or-nothing, FIFO and priority order, rollback of a failed
 * gang, best-effort backfill, pod-count limits, elastic jobs, and the pending-reason messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/plugin.h"
#include "scheduler/framework/session.h"
#include "scheduler/registry.h"
#include "tests/lib/test.h"

#define GiB (1024LL * 1024 * 1024)

static void add_node(struct cluster *c, const char *name, int64_t cpu_milli, int64_t mem, int64_t pods)
{
    c->nodes = realloc(c->nodes, (size_t)(c->nnodes + 1) * sizeof *c->nodes);
    struct node *n = &c->nodes[c->nnodes++];
    memset(n, 0, sizeof *n);
    n->name = strdup(name);
    n->allocatable.v[RES_CPU] = cpu_milli;
    n->allocatable.v[RES_MEMORY] = mem;
    n->allocatable.v[RES_PODS] = pods;
}

static void add_queue(struct cluster *c, const char *name)
{
    struct queue *q = calloc(1, sizeof *q);
    q->name = strdup(name);
    q->weight = 1;
    cluster_add_queue(c, q);
}

/* A job of one task: `replicas` replicas of cpu_milli each, gang of min_available. */
static struct job *add_job(struct cluster *c, const char *name, int replicas, int min_available, int64_t cpu_milli,
                           int64_t created_ms)
{
    struct job *job = job_new(1);
    job->ns = strdup("default");
    job->name = strdup(name);
    job->key = malloc(strlen(name) + 9);
    sprintf(job->key, "default/%s", name);
    snprintf(job->uid, sizeof job->uid, "uid-%s", name);
    job->queue = strdup("default");
    job->scheduler_name = strdup("volcano");
    job->created_ms = created_ms;
    job->min_available = min_available;
    job->tasks[0].name = strdup("worker");
    job->tasks[0].replicas = replicas;
    job->tasks[0].min_available = min_available;
    job->tasks[0].request.v[RES_CPU] = cpu_milli;
    job->tasks[0].request.v[RES_PODS] = 1;
    job_alloc_replicas(job);
    job->pg.phase = PG_INQUEUE;
    cluster_add_job(c, job);
    return job;
}

/* A cluster with the `default` queue and Volcano's default scheduler conf. */
struct fixture {
    struct cluster c;
    struct sched_conf conf;
};

static void fixture_init(struct fixture *fx)
{
    memset(fx, 0, sizeof *fx);
    sched_conf_default(&fx->conf);
    add_queue(&fx->c, "default");
}

static void fixture_free(struct fixture *fx)
{
    cluster_free(&fx->c);
    sched_conf_free(&fx->conf);
}

static struct session run_cycle(struct cluster *c, const struct sched_conf *conf)
{
    struct session ssn;
    if (session_open(&ssn, &builtin_registry, c, conf, NULL, 1000) != 0)
        memset(&ssn, 0, sizeof ssn);
    session_run(&ssn);
    session_close(&ssn);
    return ssn;
}

/* Replicas of job bound in this session. */
static int bound(const struct session *ssn, const struct job *job)
{
    int n = 0;
    for (int b = 0; b < ssn->nbinds; b++)
        if (ssn->jobs[ssn->binds[b].job].job == job)
            n += ssn->binds[b].count;
    return n;
}

static const struct job_info *info_of(const struct session *ssn, const struct job *job)
{
    for (int j = 0; j < ssn->njobs; j++)
        if (ssn->jobs[j].job == job)
            return &ssn->jobs[j];
    return NULL;
}

static void gang_all_or_nothing(void)
{
    struct fixture fx;
    fixture_init(&fx);
    add_node(&fx.c, "n1", 4000, 8 * GiB, 110);
    add_node(&fx.c, "n2", 4000, 8 * GiB, 110);
    struct job *big = add_job(&fx.c, "big", 3, 3, 3000, 1); /* 3 x 3 CPU on 2 x 4 CPU: only 2 fit */
    struct session ssn = run_cycle(&fx.c, &fx.conf);
    CHECK_INT(bound(&ssn, big), 0);
    const struct job_info *ji = info_of(&ssn, big);
    REQUIRE(ji && ji->unschedulable);
    CHECK_CONTAINS(ji->unschedulable, "3/3 tasks in gang unschedulable: pod group is not ready");
    CHECK_CONTAINS(ji->unschedulable, "3 minAvailable");
    CHECK_CONTAINS(ji->unschedulable, "0/2 nodes are available: 2 insufficient cpu.");
    session_free(&ssn);
    fixture_free(&fx);
}

static void gang_fits_and_binds_each_node(void)
{
    struct fixture fx;
    fixture_init(&fx);
    add_node(&fx.c, "n1", 4000, 8 * GiB, 110);
    add_node(&fx.c, "n2", 4000, 8 * GiB, 110);
    struct job *job = add_job(&fx.c, "fits", 2, 2, 3000, 1);
    struct session ssn = run_cycle(&fx.c, &fx.conf);
    CHECK_INT(bound(&ssn, job), 2);
    REQUIRE(ssn.nbinds == 2);
    CHECK(ssn.binds[0].node != ssn.binds[1].node); /* 3 CPU each: one per node */
    CHECK(info_of(&ssn, job)->unschedulable == NULL);
    session_free(&ssn);
    fixture_free(&fx);
}

static void failed_gang_rolls_back_for_the_next_job(void)
{
    struct fixture fx;
    fixture_init(&fx);
    add_node(&fx.c, "n1", 4000, 8 * GiB, 110);
    struct job *first = add_job(&fx.c, "first", 5, 5, 1000, 1);   /* needs 5 CPU: never fits */
    struct job *second = add_job(&fx.c, "second", 4, 4, 1000, 2); /* needs exactly the 4 CPU first took tentatively */
    struct session ssn = run_cycle(&fx.c, &fx.conf);
    CHECK_INT(bound(&ssn, first), 0);
    CHECK_INT(bound(&ssn, second), 4);
    CHECK_INT(ssn.nodes[0].idle.v[RES_CPU], 0);
    session_free(&ssn);
    fixture_free(&fx);
}

static void fifo_within_a_queue(void)
{
    struct fixture fx;
    fixture_init(&fx);
    add_node(&fx.c, "n1", 2000, 8 * GiB, 110);
    struct job *late = add_job(&fx.c, "late", 2, 2, 1000, 20);
    struct job *early = add_job(&fx.c, "early", 2, 2, 1000, 10);
    struct session ssn = run_cycle(&fx.c, &fx.conf);
    CHECK_INT(bound(&ssn, early), 2);
    CHECK_INT(bound(&ssn, late), 0);
    session_free(&ssn);
    fixture_free(&fx);
}

static void priority_before_fifo(void)
{
    struct fixture fx;
    fixture_init(&fx);
    add_node(&fx.c, "n1", 2000, 8 * GiB, 110);
    struct job *early = add_job(&fx.c, "early", 2, 2, 1000, 10);
    struct job *urgent = add_job(&fx.c, "urgent", 2, 2, 1000, 20);
    urgent->priority = 1000;
    struct session ssn = run_cycle(&fx.c, &fx.conf);
    CHECK_INT(bound(&ssn, urgent), 2);
    CHECK_INT(bound(&ssn, early), 0);
    session_free(&ssn);
    fixture_free(&fx);
}

static void elastic_job_takes_what_fits_beyond_min(void)
{
    struct fixture fx;
    fixture_init(&fx);
    add_node(&fx.c, "n1", 3000, 8 * GiB, 110);
    struct job *job = add_job(&fx.c, "elastic", 10, 2, 1000, 1);
    struct session ssn = run_cycle(&fx.c, &fx.conf);
    CHECK_INT(bound(&ssn, job), 3);
    session_free(&ssn);
    fixture_free(&fx);
}

static void best_effort_backfill_respects_pod_count(void)
{
    struct fixture fx;
    fixture_init(&fx);
    add_node(&fx.c, "n1", 1000, GiB, 3);
    struct job *be = add_job(&fx.c, "be", 5, 1, 0, 1); /* requests nothing but pod slots */
    struct session ssn = run_cycle(&fx.c, &fx.conf);
    CHECK_INT(bound(&ssn, be), 3);
    session_free(&ssn);

    struct job *gang = add_job(&fx.c, "be-gang", 4, 4, 0, 2);
    be->tasks[0].replicas = 0; /* take the first job out of the picture */
    job_alloc_replicas(be);
    ssn = run_cycle(&fx.c, &fx.conf);
    CHECK_INT(bound(&ssn, gang), 0);
    const struct job_info *ji = info_of(&ssn, gang);
    REQUIRE(ji && ji->unschedulable);
    CHECK_CONTAINS(ji->unschedulable, "too many pods");
    session_free(&ssn);
    fixture_free(&fx);
}

static void running_replicas_count_toward_the_gang(void)
{
    struct fixture fx;
    fixture_init(&fx);
    add_node(&fx.c, "n1", 1000, GiB, 110);
    struct job *job = add_job(&fx.c, "resumed", 3, 3, 500, 1);
    job_set_replica_phase(job, 0, POD_RUNNING); /* one already runs and holds 500m */
    job->replicas[0].node = 0;
    fx.c.nodes[0].used.v[RES_CPU] = 500;
    fx.c.nodes[0].used.v[RES_PODS] = 1;
    struct session ssn = run_cycle(&fx.c, &fx.conf);
    CHECK_INT(bound(&ssn, job), 0); /* 2 more need 1000m, only 500m idle */
    session_free(&ssn);
    fx.c.nodes[0].allocatable.v[RES_CPU] = 1500;
    ssn = run_cycle(&fx.c, &fx.conf);
    CHECK_INT(bound(&ssn, job), 2);
    session_free(&ssn);
    fixture_free(&fx);
}

static void without_gang_partial_placement_commits(void)
{
    struct cluster c = {0};
    struct sched_conf conf = {0};
    snprintf(conf.actions[conf.nactions++], CONF_NAME_MAX, "allocate");
    conf.ntiers = 1;
    plugin_conf_init(&conf.tiers[0].plugins[conf.tiers[0].nplugins++], "predicates");
    add_queue(&c, "default");
    add_node(&c, "n1", 2000, GiB, 110);
    struct job *job = add_job(&c, "nogang", 4, 4, 1000, 1);
    struct session ssn = run_cycle(&c, &conf);
    CHECK_INT(bound(&ssn, job), 2);
    session_free(&ssn);
    cluster_free(&c);
}

static void enqueue_moves_pending_podgroups(void)
{
    struct fixture fx;
    fixture_init(&fx);
    add_node(&fx.c, "n1", 2000, GiB, 110);
    struct job *job = add_job(&fx.c, "new", 1, 1, 1000, 1);
    job->pg.phase = PG_PENDING;
    struct session ssn = run_cycle(&fx.c, &fx.conf);
    const struct job_info *ji = info_of(&ssn, job);
    REQUIRE(ji);
    CHECK(ji->enqueued_now);
    CHECK_INT(bound(&ssn, job), 1); /* enqueue then allocate in the same cycle */
    session_free(&ssn);
    fixture_free(&fx);
}

TEST_MAIN(TEST_CASE(gang_all_or_nothing), TEST_CASE(gang_fits_and_binds_each_node),
          TEST_CASE(failed_gang_rolls_back_for_the_next_job), TEST_CASE(fifo_within_a_queue),
          TEST_CASE(priority_before_fifo), TEST_CASE(elastic_job_takes_what_fits_beyond_min),
          TEST_CASE(best_effort_backfill_respects_pod_count), TEST_CASE(running_replicas_count_toward_the_gang),
          TEST_CASE(without_gang_partial_placement_commits), TEST_CASE(enqueue_moves_pending_podgroups))
