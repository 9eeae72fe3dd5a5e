/* Pod affinity, anti-affinity and topology spread on virtual nodes: each rule required and
 * preferred, against running pods and pods placed earlier in the session, rolled back with a
 * failed gang, and the pending reasons in kube-scheduler's words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/objects/constraints.h"
#include "tests/lib/sched_fixture.h"
#include "tests/lib/test.h"

/* A node of 8 cpu with its hostname and zone labels (zone NULL: none). */
static void node_in(struct sched_fixture *fx, const char *name, const char *zone)
{
    fixture_node(fx, name, 8000, 64 * GiB);
    json_t *labels = fx->c.nodes[fx->c.nnodes - 1].labels;
    json_object_set_new(labels, "kubernetes.io/hostname", json_string(name));
    if (zone)
        json_object_set_new(labels, "zone", json_string(zone));
}

/* A one-task job whose pods carry label app=<app> and whose pod spec is `spec` (YAML, may be NULL). */
static struct job *job_with(struct sched_fixture *fx, const char *name, const char *app, int replicas, int min,
                            int64_t cpu, const char *spec)
{
    struct job *job = fixture_job(fx, name, "default", replicas, min, cpu);
    job->tasks[0].template_tree = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "app", app);
    if (spec) {
        struct intake in;
        struct api_status st = {0};
        if (intake_parse(spec, strlen(spec), INTAKE_YAML, &in, &st) != 0) {
            test_fail(__FILE__, __LINE__, "bad YAML: %s", st.message);
            return job;
        }
        struct fields f = {&in.docs[0], &st};
        bool ok = constraints_parse(&f, in.docs[0].root, "spec", &job->tasks[0].constraints);
        if (!ok)
            test_fail(__FILE__, __LINE__, "pod spec refused: %s", st.message);
        intake_free(&in);
    }
    return job;
}

/* Which node the session bound the replicas of job to: counts per node index. */
static void bound_per_node(const struct session *ssn, const struct job *job, int *per_node, int nnodes)
{
    memset(per_node, 0, (size_t)nnodes * sizeof *per_node);
    for (int b = 0; b < ssn->nbinds; b++)
        if (ssn->jobs[ssn->binds[b].job].job == job)
            per_node[ssn->nodes[ssn->binds[b].node].index] += ssn->binds[b].count;
}

#define ANTI_SELF_HOST                                      \
    "affinity:\n"                                           \
    "  podAntiAffinity:\n"                                  \
    "    requiredDuringSchedulingIgnoredDuringExecution:\n" \
    "    - labelSelector: {matchLabels: {app: web}}\n"      \
    "      topologyKey: kubernetes.io/hostname\n"

static void anti_affinity_puts_replicas_on_different_nodes(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", i);
        node_in(&fx, name, NULL);
    }
    struct job *web = job_with(&fx, "web", "web", 3, 3, 100, ANTI_SELF_HOST);
    struct session ssn = fixture_cycle(&fx);
    int per[5];
    bound_per_node(&ssn, web, per, 5);
    CHECK_INT(fixture_bound(&ssn, web), 3);
    for (int i = 0; i < 5; i++)
        CHECK(per[i] <= 1);
    session_free(&ssn);

    /* Six replicas cannot all have a node to themselves on five nodes: the gang waits, saying why. */
    struct job *big = job_with(&fx, "big", "web", 6, 6, 100, ANTI_SELF_HOST);
    web->pg.phase = PG_PENDING; /* out of the way: only big is placed */
    web->status.phase = JOB_FAILED;
    cluster_retire_job(&fx.c, web);
    ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, big), 0);
    const struct job_info *ji = fixture_info(&ssn, big);
    REQUIRE(ji && ji->unschedulable);
    CHECK_CONTAINS(ji->unschedulable, "0/5 nodes are available: 5 node(s) didn't match pod anti-affinity rules.");
    session_free(&ssn);
    fixture_free(&fx);
}

static void running_pods_anti_affinity_keeps_others_away(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    node_in(&fx, "n0", NULL);
    node_in(&fx, "n1", NULL);
    /* db, running on n0, will not share a node with app=web; n1 is too small for web. */
    struct job *db = job_with(&fx, "db", "db", 1, 1, 100,
                              "affinity:\n"
                              "  podAntiAffinity:\n"
                              "    requiredDuringSchedulingIgnoredDuringExecution:\n"
                              "    - labelSelector: {matchLabels: {app: web}}\n"
                              "      topologyKey: kubernetes.io/hostname\n");
    fixture_run(&fx, db, 0, 0, 1);
    fx.c.nodes[1].allocatable.v[RES_CPU] = 500;
    struct job *web = job_with(&fx, "web", "web", 1, 1, 1000, NULL);
    struct job *other = job_with(&fx, "other", "other", 1, 1, 1000, NULL);
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, web), 0);
    CHECK_INT(fixture_bound(&ssn, other), 1); /* not selected by db's rule */
    const struct job_info *ji = fixture_info(&ssn, web);
    REQUIRE(ji && ji->unschedulable);
    CHECK_CONTAINS(ji->unschedulable,
                   "0/2 nodes are available: 1 insufficient cpu, 1 node(s) didn't satisfy existing pods anti-affinity "
                   "rules.");
    session_free(&ssn);
    fixture_free(&fx);
}

static void affinity_follows_running_pods_by_zone(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    node_in(&fx, "a0", "a");
    node_in(&fx, "a1", "a");
    node_in(&fx, "b0", "b");
    node_in(&fx, "b1", "b");
    node_in(&fx, "x", NULL); /* no zone: never beside anything by zone */
    const char *near_db =
        "affinity:\n"
        "  podAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "    - labelSelector: {matchExpressions: [{key: app, operator: In, values: [db]}]}\n"
        "      topologyKey: zone\n";
    struct job *web = job_with(&fx, "web", "web", 4, 1, 100, near_db);
    struct session ssn = fixture_cycle(&fx); /* no db anywhere: nowhere to go */
    CHECK_INT(fixture_bound(&ssn, web), 0);
    const struct job_info *ji = fixture_info(&ssn, web);
    REQUIRE(ji && ji->unschedulable);
    CHECK_CONTAINS(ji->unschedulable, "0/5 nodes are available: 5 node(s) didn't match pod affinity rules.");
    session_free(&ssn);

    struct job *db = job_with(&fx, "db", "db", 1, 1, 100, NULL);
    fixture_run(&fx, db, 0, 3, 1); /* on b1 */
    ssn = fixture_cycle(&fx);
    int per[5];
    bound_per_node(&ssn, web, per, 5);
    CHECK_INT(fixture_bound(&ssn, web), 4);
    CHECK_INT(per[2] + per[3], 4);
    session_free(&ssn);
    fixture_free(&fx);
}

static void self_affinity_keeps_a_gang_in_one_zone(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    node_in(&fx, "a0", "a");
    node_in(&fx, "a1", "a");
    node_in(&fx, "b0", "b");
    node_in(&fx, "b1", "b");
    /* The first pod may go anywhere (it matches its own term); the rest must join its zone. */
    struct job *ring = job_with(&fx, "ring", "ring", 4, 4, 2000,
                                "affinity:\n"
                                "  podAffinity:\n"
                                "    requiredDuringSchedulingIgnoredDuringExecution:\n"
                                "    - labelSelector: {matchLabels: {app: ring}}\n"
                                "      topologyKey: zone\n");
    struct session ssn = fixture_cycle(&fx);
    int per[4];
    bound_per_node(&ssn, ring, per, 4);
    CHECK_INT(fixture_bound(&ssn, ring), 4);
    CHECK(per[0] + per[1] == 4 || per[2] + per[3] == 4);
    session_free(&ssn);
    fixture_free(&fx);
}

static void spread_keeps_skew_within_max(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    node_in(&fx, "a0", "a");
    node_in(&fx, "b0", "b");
    node_in(&fx, "c0", "c");
    const char *spread =
        "topologySpreadConstraints:\n"
        "- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule,\n"
        "   labelSelector: {matchLabels: {app: web}}}\n";
    struct job *web = job_with(&fx, "web", "web", 6, 6, 100, spread);
    struct session ssn = fixture_cycle(&fx);
    int per[3];
    bound_per_node(&ssn, web, per, 3);
    CHECK_INT(per[0], 2);
    CHECK_INT(per[1], 2);
    CHECK_INT(per[2], 2);
    session_free(&ssn);

    /* Running pods count: with two in zone a already, the next goes to b or c. */
    fixture_run(&fx, web, 0, 0, 1);
    fixture_run(&fx, web, 1, 0, 1);
    struct job *more = job_with(&fx, "more", "web", 1, 1, 100, spread);
    web->pg.phase = PG_PENDING; /* only `more` is placed */
    ssn = fixture_cycle(&fx);
    bound_per_node(&ssn, more, per, 3);
    CHECK_INT(fixture_bound(&ssn, more), 1);
    CHECK_INT(per[0], 0);
    session_free(&ssn);
    fixture_free(&fx);
}

static void spread_min_domains_and_missing_label(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    node_in(&fx, "a0", "a");
    node_in(&fx, "b0", "b");
    node_in(&fx, "x", NULL);
    /* Two zones where three are asked for: the minimum counts as 0, so each zone takes one pod. */
    struct job *web = job_with(&fx, "web", "web", 3, 3, 100,
                               "topologySpreadConstraints:\n"
                               "- {maxSkew: 1, minDomains: 3, topologyKey: zone, whenUnsatisfiable: DoNotSchedule,\n"
                               "   labelSelector: {matchLabels: {app: web}}}\n");
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, web), 0);
    const struct job_info *ji = fixture_info(&ssn, web);
    REQUIRE(ji && ji->unschedulable);
    CHECK_CONTAINS(ji->unschedulable,
                   "2 node(s) didn't match pod topology spread constraints, "
                   "1 node(s) didn't match pod topology spread constraints (missing required label)");
    session_free(&ssn);
    fixture_free(&fx);
}

static void failed_gang_gives_its_places_back(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    node_in(&fx, "n0", NULL);
    node_in(&fx, "n1", NULL);
    /* `first` (3 replicas, one per node, 2 nodes) fails and is undone; `second` must not see its pods. */
    struct job *first = job_with(&fx, "first", "web", 3, 3, 100, ANTI_SELF_HOST);
    struct job *second = job_with(&fx, "second", "api", 2, 2, 100,
                                  "affinity:\n"
                                  "  podAntiAffinity:\n"
                                  "    requiredDuringSchedulingIgnoredDuringExecution:\n"
                                  "    - labelSelector: {matchLabels: {app: web}}\n"
                                  "      topologyKey: kubernetes.io/hostname\n");
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, first), 0);
    CHECK_INT(fixture_bound(&ssn, second), 2);
    session_free(&ssn);
    fixture_free(&fx);
}

static void placed_pods_count_for_later_jobs(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    node_in(&fx, "n0", NULL);
    node_in(&fx, "n1", NULL);
    node_in(&fx, "n2", NULL);
    struct job *web = job_with(&fx, "web", "web", 2, 2, 100, NULL);
    struct job *api = job_with(&fx, "api", "api", 1, 1, 100,
                               "affinity:\n"
                               "  podAntiAffinity:\n"
                               "    requiredDuringSchedulingIgnoredDuringExecution:\n"
                               "    - labelSelector: {matchLabels: {app: web}}\n"
                               "      namespaces: [default]\n"
                               "      topologyKey: kubernetes.io/hostname\n");
    struct session ssn = fixture_cycle(&fx);
    int pw[3], pa[3];
    bound_per_node(&ssn, web, pw, 3);
    bound_per_node(&ssn, api, pa, 3);
    CHECK_INT(fixture_bound(&ssn, api), 1);
    for (int i = 0; i < 3; i++)
        CHECK(!(pw[i] && pa[i]));
    session_free(&ssn);
    fixture_free(&fx);
}

static void other_namespaces_are_not_seen_unless_named(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    node_in(&fx, "n0", NULL);
    struct job *db = job_with(&fx, "db", "db", 1, 1, 100, NULL);
    free(db->ns);
    db->ns = strdup("data");
    fixture_run(&fx, db, 0, 0, 1);
    struct job *web = job_with(&fx, "web", "web", 1, 1, 100,
                               "affinity:\n"
                               "  podAntiAffinity:\n"
                               "    requiredDuringSchedulingIgnoredDuringExecution:\n"
                               "    - labelSelector: {matchLabels: {app: db}}\n"
                               "      topologyKey: kubernetes.io/hostname\n");
    struct job *api = job_with(&fx, "api", "api", 1, 1, 100,
                               "affinity:\n"
                               "  podAntiAffinity:\n"
                               "    requiredDuringSchedulingIgnoredDuringExecution:\n"
                               "    - labelSelector: {matchLabels: {app: db}}\n"
                               "      namespaceSelector: {}\n"
                               "      topologyKey: kubernetes.io/hostname\n");
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, web), 1); /* db is in another namespace */
    CHECK_INT(fixture_bound(&ssn, api), 0); /* every namespace: db is seen */
    session_free(&ssn);
    fixture_free(&fx);
}

static void preferred_rules_score_nodes(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    node_in(&fx, "n0", NULL);
    node_in(&fx, "n1", NULL);
    struct job *db = job_with(&fx, "db", "db", 1, 1, 1, NULL);
    fixture_run(&fx, db, 0, 1, 1); /* on n1 */
    const char *pref =
        "affinity:\n"
        "  %s:\n"
        "    preferredDuringSchedulingIgnoredDuringExecution:\n"
        "    - weight: 100\n"
        "      podAffinityTerm:\n"
        "        labelSelector: {matchLabels: {app: db}}\n"
        "        topologyKey: kubernetes.io/hostname\n";
    char near[512], away[512];
    snprintf(near, sizeof near, pref, "podAffinity");
    snprintf(away, sizeof away, pref, "podAntiAffinity");
    struct job *a = job_with(&fx, "a", "a", 1, 1, 1, near);
    struct job *b = job_with(&fx, "b", "b", 1, 1, 1, away);
    struct job *c = job_with(&fx, "c", "c", 1, 1, 1,
                             "topologySpreadConstraints:\n"
                             "- {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway,\n"
                             "   labelSelector: {matchLabels: {app: db}}}\n");
    struct session ssn = fixture_cycle(&fx);
    int per[2];
    bound_per_node(&ssn, a, per, 2);
    CHECK_INT(per[1], 1);
    bound_per_node(&ssn, b, per, 2);
    CHECK_INT(per[0], 1);
    bound_per_node(&ssn, c, per, 2);
    CHECK_INT(per[0], 1);
    session_free(&ssn);
    fixture_free(&fx);
}

static void preemption_does_not_pipeline_past_a_rule(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate, preempt");
    node_in(&fx, "n0", NULL);
    struct job *low = job_with(&fx, "low", "low", 1, 1, 1000, NULL);
    fixture_run(&fx, low, 0, 0, 1);
    /* Two replicas that will not share a node, one node: evicting `low` could not help. */
    struct job *web = job_with(&fx, "web", "web", 2, 2, 100, ANTI_SELF_HOST);
    web->priority = 1000;
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_evicted(&ssn, low), 0);
    const struct job_info *ji = fixture_info(&ssn, web);
    REQUIRE(ji && ji->unschedulable);
    CHECK(!ji->pipelined);
    CHECK_CONTAINS(ji->unschedulable, "node(s) didn't match pod anti-affinity rules");
    session_free(&ssn);
    fixture_free(&fx);
}

TEST_MAIN(TEST_CASE(anti_affinity_puts_replicas_on_different_nodes),
          TEST_CASE(running_pods_anti_affinity_keeps_others_away), TEST_CASE(affinity_follows_running_pods_by_zone),
          TEST_CASE(self_affinity_keeps_a_gang_in_one_zone), TEST_CASE(spread_keeps_skew_within_max),
          TEST_CASE(spread_min_domains_and_missing_label), TEST_CASE(failed_gang_gives_its_places_back),
          TEST_CASE(placed_pods_count_for_later_jobs), TEST_CASE(other_namespaces_are_not_seen_unless_named),
          TEST_CASE(preferred_rules_score_nodes), TEST_CASE(preemption_does_not_pipeline_past_a_rule))
