/* The node plugins against hand-built nodes with labels and taints: Kubernetes' matching rules
 * (node_match), the predicates filter and fit with their reasons, nodeorder's and binpack's scores. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/constraints.h"
#include "adapters/intake/intake.h"
#include "adapters/dialects/volcano/job.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/framework/session.h"
#include "scheduler/registry.h"
#include "scheduler/plugins/node_match.h"
#include "tests/lib/test.h"

#define GiB (1024LL * 1024 * 1024)

/* --- fixtures -------------------------------------------------------------------------------- */

/* A node named name with labels and taints given as JSON text ("{}" / "[]" when none). */
static void make_node(struct node *n, const char *name, const char *labels, const char *taints)
{
    memset(n, 0, sizeof *n);
    n->name = strdup(name);
    n->labels = json_loads(labels, 0, NULL);
    n->taints = json_loads(taints, 0, NULL);
}

/* Constraints read from a pod spec in YAML, as admission reads them. */
static bool make_constraints(struct placement_constraints *c, const char *yaml)
{
    struct intake in;
    struct api_status st = {0};
    memset(c, 0, sizeof *c);
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) != 0)
        return false;
    struct fields f = {&in.docs[0], &st};
    bool ok = constraints_parse(&f, in.docs[0].root, "spec", c);
    if (!ok)
        test_fail(__FILE__, __LINE__, "constraints: %s: %s", st.causes[0].field, st.causes[0].message);
    intake_free(&in);
    return ok;
}

static bool term_matches(const char *expressions, const struct node *n)
{
    char yaml[1024];
    struct placement_constraints c;
    snprintf(yaml, sizeof yaml,
             "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
             "{nodeSelectorTerms: [%s]}}}\n",
             expressions);
    if (!make_constraints(&c, yaml))
        return false;
    bool match = node_matches_term(&c.required[0], n) && node_matches_required_affinity(&c, n);
    constraints_free(&c);
    return match;
}

/* --- node_match: selectors and terms ----------------------------------------------------------- */

static void node_selector_needs_every_label_equal(void)
{
    struct node n;
    struct placement_constraints c;
    make_node(&n, "n1", "{\"disktype\": \"ssd\", \"zone\": \"a\"}", "[]");
    REQUIRE(make_constraints(&c, "nodeSelector: {disktype: ssd, zone: a}\n"));
    CHECK(node_matches_selector(&c, &n));
    constraints_free(&c);
    REQUIRE(make_constraints(&c, "nodeSelector: {disktype: hdd}\n"));
    CHECK(!node_matches_selector(&c, &n));
    constraints_free(&c);
    REQUIRE(make_constraints(&c, "nodeSelector: {gpu: \"true\"}\n"));
    CHECK(!node_matches_selector(&c, &n)); /* a missing label never equals */
    constraints_free(&c);
    REQUIRE(make_constraints(&c, "containers: []\n"));
    CHECK(node_matches_selector(&c, &n));
    CHECK(node_matches_required_affinity(&c, &n));
    constraints_free(&c);
    node_clear(&n);
}

static void expressions_follow_label_selector_rules(void)
{
    struct node n;
    make_node(&n, "n1", "{\"zone\": \"a\", \"cores\": \"16\", \"odd\": \"x16\"}", "[]");
    CHECK(term_matches("{matchExpressions: [{key: zone, operator: In, values: [b, a]}]}", &n));
    CHECK(!term_matches("{matchExpressions: [{key: zone, operator: In, values: [b]}]}", &n));
    CHECK(!term_matches("{matchExpressions: [{key: rack, operator: In, values: [a]}]}", &n));
    CHECK(!term_matches("{matchExpressions: [{key: zone, operator: NotIn, values: [a]}]}", &n));
    CHECK(term_matches("{matchExpressions: [{key: zone, operator: NotIn, values: [b]}]}", &n));
    CHECK(term_matches("{matchExpressions: [{key: rack, operator: NotIn, values: [a]}]}", &n)); /* absent: not in */
    CHECK(term_matches("{matchExpressions: [{key: zone, operator: Exists}]}", &n));
    CHECK(!term_matches("{matchExpressions: [{key: rack, operator: Exists}]}", &n));
    CHECK(term_matches("{matchExpressions: [{key: rack, operator: DoesNotExist}]}", &n));
    CHECK(!term_matches("{matchExpressions: [{key: zone, operator: DoesNotExist}]}", &n));
    CHECK(term_matches("{matchExpressions: [{key: cores, operator: Gt, values: [\"8\"]}]}", &n));
    CHECK(!term_matches("{matchExpressions: [{key: cores, operator: Gt, values: [\"16\"]}]}", &n));
    CHECK(term_matches("{matchExpressions: [{key: cores, operator: Lt, values: [\"17\"]}]}", &n));
    CHECK(!term_matches("{matchExpressions: [{key: cores, operator: Lt, values: [\"-3\"]}]}", &n));
    CHECK(!term_matches("{matchExpressions: [{key: odd, operator: Gt, values: [\"1\"]}]}", &n)); /* not a number */
    CHECK(!term_matches("{matchExpressions: [{key: rack, operator: Lt, values: [\"1\"]}]}", &n));
    /* requirements of a term are ANDed */
    CHECK(term_matches("{matchExpressions: [{key: zone, operator: In, values: [a]}, {key: cores, operator: Exists}]}",
                       &n));
    CHECK(!term_matches("{matchExpressions: [{key: zone, operator: In, values: [a]}, {key: rack, operator: Exists}]}",
                        &n));
    node_clear(&n);
}

static void match_fields_select_the_node_name(void)
{
    struct node n;
    make_node(&n, "worker-3", "{}", "[]");
    CHECK(term_matches("{matchFields: [{key: metadata.name, operator: In, values: [worker-3]}]}", &n));
    CHECK(!term_matches("{matchFields: [{key: metadata.name, operator: In, values: [worker-4]}]}", &n));
    CHECK(term_matches("{matchFields: [{key: metadata.name, operator: NotIn, values: [worker-4]}]}", &n));
    CHECK(!term_matches("{matchFields: [{key: metadata.name, operator: NotIn, values: [worker-3]}]}", &n));
    /* fields and expressions of one term are ANDed too */
    CHECK(
        !term_matches("{matchFields: [{key: metadata.name, operator: In, values: [worker-3]}], "
                      "matchExpressions: [{key: zone, operator: Exists}]}",
                      &n));
    node_clear(&n);
}

static void required_terms_are_ored_and_an_empty_term_matches_nothing(void)
{
    struct node n;
    struct placement_constraints c;
    make_node(&n, "n1", "{\"zone\": \"b\"}", "[]");
    REQUIRE(make_constraints(&c,
                             "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                             "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}, "
                             "{matchExpressions: [{key: zone, operator: In, values: [b]}]}]}}}\n"));
    CHECK(!node_matches_term(&c.required[0], &n));
    CHECK(node_matches_term(&c.required[1], &n));
    CHECK(node_matches_required_affinity(&c, &n));
    constraints_free(&c);
    struct node_selector_term empty = {0};
    CHECK(!node_matches_term(&empty, &n));
    node_clear(&n);
}

static void preferred_weights_add_up_over_matching_terms(void)
{
    struct node n;
    struct placement_constraints c;
    make_node(&n, "n1", "{\"zone\": \"a\", \"ssd\": \"yes\"}", "[]");
    REQUIRE(make_constraints(&c,
                             "affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: ["
                             "{weight: 10, preference: {matchExpressions: [{key: zone, operator: In, values: [a]}]}},"
                             "{weight: 30, preference: {matchExpressions: [{key: ssd, operator: Exists}]}},"
                             "{weight: 60, preference: {matchExpressions: [{key: gpu, operator: Exists}]}},"
                             "{weight: 5, preference: {}}]}}\n"));
    CHECK_INT(node_preferred_weight(&c, &n), 40);
    CHECK_INT(constraints_preferred_total(&c), 105);
    constraints_free(&c);
    node_clear(&n);
}

/* --- node_match: taints and tolerations ------------------------------------------------------ */

static bool tolerates(const char *tolerations, const char *key, const char *value, const char *effect)
{
    char yaml[512];
    struct placement_constraints c;
    snprintf(yaml, sizeof yaml, "tolerations: %s\n", tolerations);
    if (!make_constraints(&c, yaml))
        return false;
    const struct taint_view t = {key, value, effect};
    bool ok = constraints_tolerate(&c, &t);
    constraints_free(&c);
    return ok;
}

static void tolerations_follow_kubernetes_rules(void)
{
    CHECK(tolerates("[{operator: Exists}]", "anything", "v", "NoExecute"));              /* empty key + Exists: all */
    CHECK(tolerates("[{key: gpu, operator: Exists}]", "gpu", "whatever", "NoSchedule")); /* any value, any effect */
    CHECK(!tolerates("[{key: gpu, operator: Exists}]", "tpu", "", "NoSchedule"));
    CHECK(tolerates("[{key: gpu, value: a100, effect: NoSchedule}]", "gpu", "a100", "NoSchedule"));
    CHECK(!tolerates("[{key: gpu, value: a100, effect: NoSchedule}]", "gpu", "h100", "NoSchedule"));
    CHECK(!tolerates("[{key: gpu, value: a100, effect: NoSchedule}]", "gpu", "a100", "NoExecute"));
    CHECK(tolerates("[{key: gpu, value: a100}]", "gpu", "a100", "PreferNoSchedule")); /* empty effect: every effect */
    CHECK(tolerates("[{key: gpu}]", "gpu", "", "NoSchedule")); /* Equal with no value matches an empty value */
    CHECK(!tolerates("[{key: gpu}]", "gpu", "x", "NoSchedule"));
    CHECK(tolerates("[{key: a, operator: Exists}, {key: gpu, operator: Exists, effect: NoExecute}]", "gpu", "",
                    "NoExecute"));
    CHECK(!tolerates("[]", "gpu", "", "NoSchedule"));
}

static void only_no_schedule_and_no_execute_taints_block(void)
{
    struct node n;
    struct placement_constraints c;
    struct taint_view t;
    make_node(&n, "n1", "{}",
              "[{\"key\": \"soft\", \"effect\": \"PreferNoSchedule\"},"
              " {\"key\": \"dedicated\", \"value\": \"ml\", \"effect\": \"NoSchedule\"},"
              " {\"key\": \"flaky\", \"effect\": \"NoExecute\"}]");
    REQUIRE(make_constraints(&c, "containers: []\n"));
    REQUIRE(node_untolerated_taint(&c, &n, &t));
    CHECK_STR(t.key, "dedicated"); /* the PreferNoSchedule one never blocks */
    CHECK_STR(t.value, "ml");
    constraints_free(&c);
    REQUIRE(make_constraints(&c, "tolerations: [{key: dedicated, value: ml}]\n"));
    REQUIRE(node_untolerated_taint(&c, &n, &t));
    CHECK_STR(t.key, "flaky");
    CHECK_STR(t.value, "");
    constraints_free(&c);
    REQUIRE(make_constraints(&c, "tolerations: [{key: dedicated, value: ml}, {key: flaky, operator: Exists}]\n"));
    CHECK(!node_untolerated_taint(&c, &n, &t));
    constraints_free(&c);
    node_clear(&n);
}

static void intolerable_prefer_taints_are_counted(void)
{
    struct placement_constraints c;
    const struct taint_view taints[] = {
        {"a", "", "PreferNoSchedule"}, {"b", "x", "PreferNoSchedule"}, {"c", "", "PreferNoSchedule"}};
    REQUIRE(make_constraints(&c, "containers: []\n"));
    CHECK_INT(intolerable_taints(&c, taints, 3), 3);
    constraints_free(&c);
    REQUIRE(make_constraints(&c,
                             "tolerations: [{key: b, value: x, effect: PreferNoSchedule}, {key: c, operator: "
                             "Exists, effect: NoSchedule}]\n"));
    CHECK_INT(intolerable_taints(&c, taints, 3),
              2); /* a NoSchedule toleration does not cover a PreferNoSchedule taint */
    constraints_free(&c);
    struct node n;
    make_node(&n, "n1", "{}", "[{\"key\": \"k\", \"effect\": \"NoSchedule\"}, {\"key\": 5}]");
    struct taint_view v;
    taint_view_of(n.taints, 1, &v); /* malformed entries read as empty strings, never NULL */
    CHECK_STR(v.key, "");
    CHECK_STR(v.effect, "");
    node_clear(&n);
}

/* --- the plugins through a session ---------------------------------------------------------- */

/* A cluster with the default queue, and a conf of one tier holding the plugins under test. */
struct world {
    struct cluster c;
    struct sched_conf conf;
    struct session ssn;
};

static void world_init(struct world *w)
{
    memset(w, 0, sizeof *w);
    struct queue *q = calloc(1, sizeof *q);
    q->name = strdup("default");
    q->weight = 1;
    cluster_add_queue(&w->c, q);
    w->conf.ntiers = 1;
}

/* Adds a plugin to the conf with its arguments (JSON text, or NULL). */
static struct plugin_conf *world_plugin(struct world *w, const char *name, const char *args)
{
    struct plugin_conf *pc = &w->conf.tiers[0].plugins[w->conf.tiers[0].nplugins++];
    plugin_conf_init(pc, name);
    pc->arguments = args ? json_loads(args, 0, NULL) : NULL;
    return pc;
}

static int world_node(struct world *w, const char *name, int64_t cpu_milli, int64_t mem, const char *labels,
                      const char *taints)
{
    w->c.nodes = realloc(w->c.nodes, (size_t)(w->c.nnodes + 1) * sizeof *w->c.nodes);
    struct node *n = &w->c.nodes[w->c.nnodes];
    make_node(n, name, labels, taints);
    n->allocatable.v[RES_CPU] = cpu_milli;
    n->allocatable.v[RES_MEMORY] = mem;
    n->allocatable.v[RES_PODS] = 110;
    n->capacity = n->allocatable;
    return w->c.nnodes++;
}

static void world_use(struct world *w, int node, int64_t cpu_milli, int64_t mem)
{
    w->c.nodes[node].used.v[RES_CPU] = cpu_milli;
    w->c.nodes[node].used.v[RES_MEMORY] = mem;
}

/* A job of one task: replicas of cpu/memory each, a gang of all of them, constraints from YAML. */
static struct job *world_job(struct world *w, const char *name, int replicas, int64_t cpu_milli, int64_t mem,
                             const char *constraints)
{
    struct job *job = job_new(1);
    job->ns = strdup("default");
    job->name = strdup(name);
    job->key = malloc(strlen(name) + 9);
    sprintf(job->key, "default/%s", name);
    snprintf(job->uid, sizeof job->uid, "uid-%s", name);
    job->queue = strdup("default");
    job->scheduler_name = strdup(DEFAULT_SCHEDULER_NAME);
    job->created_ms = w->c.njobs + 1;
    job->min_available = replicas;
    struct task_spec *t = &job->tasks[0];
    t->name = strdup("worker");
    t->replicas = replicas;
    t->min_available = replicas;
    t->request.v[RES_CPU] = cpu_milli;
    t->request.v[RES_MEMORY] = mem;
    t->request.v[RES_PODS] = 1;
    make_constraints(&t->constraints, constraints ? constraints : "containers: []\n");
    job_alloc_replicas(job);
    job->pg.phase = PG_INQUEUE;
    cluster_add_job(&w->c, job);
    return job;
}

static bool world_open(struct world *w)
{
    return session_open(&w->ssn, &builtin_registry, &w->c, &w->conf, NULL, 1000) == 0;
}

static struct job_info *info_of(struct world *w, const struct job *job)
{
    for (int j = 0; j < w->ssn.njobs; j++)
        if (w->ssn.jobs[j].job == job)
            return &w->ssn.jobs[j];
    return NULL;
}

static struct task_info *task_of(struct world *w, const struct job *job)
{
    struct job_info *ji = info_of(w, job);
    return ji && ji->ntasks > 0 ? &ji->tasks[0] : NULL;
}

static double score_on(struct world *w, const struct job *job, int node)
{
    return session_node_score(&w->ssn, task_of(w, job), &w->ssn.nodes[node]);
}

static void world_free(struct world *w)
{
    session_free(&w->ssn);
    cluster_free(&w->c);
    sched_conf_free(&w->conf);
}

/* The reason the static filter gives for node, or "" when the task passes. */
static const char *filter_reason(struct world *w, const struct job *job, int node, char *buf, int len)
{
    buf[0] = '\0';
    if (session_node_passes_filters(&w->ssn, task_of(w, job), node, buf, len))
        snprintf(buf, (size_t)len, "passes");
    return buf;
}

static void filter_reasons_in_kubernetes_words(void)
{
    struct world w;
    char r[SESSION_REASON_MAX];
    world_init(&w);
    world_plugin(&w, "predicates", NULL);
    int fits = world_node(&w, "fits", 4000, 8 * GiB, "{\"zone\": \"a\", \"ssd\": \"1\"}", "[]");
    int cordoned = world_node(&w, "cordoned", 4000, 8 * GiB, "{\"zone\": \"a\", \"ssd\": \"1\"}", "[]");
    w.c.nodes[cordoned].unschedulable = true;
    int elsewhere = world_node(&w, "elsewhere", 4000, 8 * GiB, "{\"zone\": \"b\", \"ssd\": \"1\"}", "[]");
    int spinning = world_node(&w, "spinning", 4000, 8 * GiB, "{\"zone\": \"a\"}", "[]");
    int tainted = world_node(&w, "tainted", 4000, 8 * GiB, "{\"zone\": \"a\", \"ssd\": \"1\"}",
                             "[{\"key\": \"soft\", \"effect\": \"PreferNoSchedule\"},"
                             " {\"key\": \"dedicated\", \"value\": \"ml\", \"effect\": \"NoSchedule\"}]");
    const char *asks =
        "nodeSelector: {zone: a}\n"
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        "{nodeSelectorTerms: [{matchExpressions: [{key: ssd, operator: Exists}]}]}}}\n";
    struct job *plain = world_job(&w, "plain", 1, 1000, GiB, asks);
    char tolerant_yaml[1024];
    snprintf(tolerant_yaml, sizeof tolerant_yaml,
             "%stolerations: [{key: dedicated, value: ml, effect: NoSchedule},"
             " {key: node.kubernetes.io/unschedulable, operator: Exists}]\n",
             asks);
    struct job *tolerant = world_job(&w, "tolerant", 1, 1000, GiB, tolerant_yaml);
    REQUIRE(world_open(&w));
    CHECK_STR(filter_reason(&w, plain, fits, r, sizeof r), "passes");
    CHECK_STR(filter_reason(&w, plain, cordoned, r, sizeof r), "node(s) were unschedulable");
    CHECK_STR(filter_reason(&w, plain, elsewhere, r, sizeof r), "node(s) didn't match node selector");
    CHECK_STR(filter_reason(&w, plain, spinning, r, sizeof r), "node(s) didn't match node affinity");
    CHECK_STR(filter_reason(&w, plain, tainted, r, sizeof r), "node(s) had untolerated taint {dedicated: ml}");
    /* tolerating the taint, and the cordon taint as kube-scheduler's NodeUnschedulable allows */
    CHECK_STR(filter_reason(&w, tolerant, tainted, r, sizeof r), "passes");
    CHECK_STR(filter_reason(&w, tolerant, cordoned, r, sizeof r), "passes");
    CHECK_STR(filter_reason(&w, tolerant, elsewhere, r, sizeof r), "node(s) didn't match node selector");
    world_free(&w);
}

static void fit_reasons_name_the_short_resource(void)
{
    struct world w;
    char r[SESSION_REASON_MAX];
    world_init(&w);
    world_plugin(&w, "predicates", NULL);
    int roomy = world_node(&w, "roomy", 4000, 8 * GiB, "{}", "[]");
    int low_cpu = world_node(&w, "low-cpu", 500, 8 * GiB, "{}", "[]");
    int low_mem = world_node(&w, "low-mem", 4000, GiB / 2, "{}", "[]");
    int full = world_node(&w, "full", 4000, 8 * GiB, "{}", "[]");
    w.c.nodes[full].used.v[RES_PODS] = 110;
    int no_gpu = world_node(&w, "no-gpu", 4000, 8 * GiB, "{}", "[]");
    struct job *job = world_job(&w, "job", 1, 1000, GiB, NULL);
    struct job *gpu = world_job(&w, "gpu", 1, 1000, GiB, NULL);
    gpu->tasks[0].request.v[RES_GPU] = 1;
    REQUIRE(world_open(&w));
    struct job_info *ji = info_of(&w, job), *gi = info_of(&w, gpu);
    REQUIRE(ji && gi);
    CHECK(session_predicate(&w.ssn, ji, &ji->tasks[0], &w.ssn.nodes[roomy], r, sizeof r));
    CHECK(!session_predicate(&w.ssn, ji, &ji->tasks[0], &w.ssn.nodes[low_cpu], r, sizeof r));
    CHECK_STR(r, "insufficient cpu");
    CHECK(!session_predicate(&w.ssn, ji, &ji->tasks[0], &w.ssn.nodes[low_mem], r, sizeof r));
    CHECK_STR(r, "insufficient memory");
    CHECK(!session_predicate(&w.ssn, ji, &ji->tasks[0], &w.ssn.nodes[full], r, sizeof r));
    CHECK_STR(r, "too many pods");
    CHECK(!session_predicate(&w.ssn, gi, &gi->tasks[0], &w.ssn.nodes[no_gpu], r, sizeof r));
    CHECK_STR(r, "insufficient nvidia.com/gpu");
    world_free(&w);
}

/* The example, through allocate: reasons from the filter and the fit counted together. */
static void fit_error_counts_filter_and_fit_reasons(void)
{
    struct world w;
    world_init(&w);
    snprintf(w.conf.actions[w.conf.nactions++], CONF_NAME_MAX, "allocate");
    world_plugin(&w, "gang", NULL);
    world_plugin(&w, "predicates", NULL);
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "small-%d", i);
        world_node(&w, name, 8000, 2 * GiB, "{\"pool\": \"train\"}", "[]");
    }
    world_node(&w, "infer-0", 8000, 64 * GiB, "{\"pool\": \"infer\"}", "[]");
    world_node(&w, "infer-1", 8000, 64 * GiB, "{}", "[]");
    struct job *job = world_job(&w, "big", 2, 1000, 16 * GiB, "nodeSelector: {pool: train}\n");
    REQUIRE(world_open(&w));
    session_run(&w.ssn);
    session_close(&w.ssn);
    struct job_info *ji = info_of(&w, job);
    REQUIRE(ji);
    CHECK_INT(w.ssn.nbinds, 0);
    CHECK_STR(ji->fit_error, "0/5 nodes are available: 3 insufficient memory, 2 node(s) didn't match node selector.");
    world_free(&w);
}

static const char *const only_least =
    "{\"leastrequested.weight\": 1, \"balancedresource.weight\": 0, \"nodeaffinity.weight\": 0,"
    " \"tainttoleration.weight\": 0}";
static const char *const only_most =
    "{\"leastrequested.weight\": 0, \"mostrequested.weight\": 1, \"balancedresource.weight\": 0,"
    " \"nodeaffinity.weight\": 0, \"tainttoleration.weight\": 0}";

static void least_requested_spreads_most_requested_packs(void)
{
    struct world w;
    world_init(&w);
    world_plugin(&w, "nodeorder", only_least);
    int empty = world_node(&w, "empty", 4000, 8 * GiB, "{}", "[]");
    int busy = world_node(&w, "busy", 4000, 8 * GiB, "{}", "[]");
    world_use(&w, busy, 2000, 4 * GiB);
    struct job *job = world_job(&w, "job", 1, 1000, GiB, NULL);
    REQUIRE(world_open(&w));
    /* cpu (4000-1000)x100/4000 = 75, memory (8-1)x100/8 = 87; (75+87)/2 = 81 */
    CHECK(score_on(&w, job, empty) == 81);
    CHECK(score_on(&w, job, busy) == 31); /* (25 + 37) / 2 */
    world_free(&w);

    world_init(&w);
    world_plugin(&w, "nodeorder", only_most);
    empty = world_node(&w, "empty", 4000, 8 * GiB, "{}", "[]");
    busy = world_node(&w, "busy", 4000, 8 * GiB, "{}", "[]");
    world_use(&w, busy, 2000, 4 * GiB);
    job = world_job(&w, "job", 1, 1000, GiB, NULL);
    REQUIRE(world_open(&w));
    CHECK(score_on(&w, job, empty) == 18); /* (25 + 12) / 2 */
    CHECK(score_on(&w, job, busy) == 68);  /* (75 + 62) / 2 */
    world_free(&w);
}

static void default_weights_prefer_the_emptier_node(void)
{
    struct world w;
    world_init(&w);
    world_plugin(&w, "nodeorder", NULL);
    int empty = world_node(&w, "empty", 4000, 8 * GiB, "{}", "[]");
    int busy = world_node(&w, "busy", 4000, 8 * GiB, "{}", "[]");
    world_use(&w, busy, 2000, 4 * GiB);
    struct job *job = world_job(&w, "job", 1, 1000, GiB, NULL);
    REQUIRE(world_open(&w));
    /* Volcano's default weights: least 1 x 81 + balanced 1 x 93 (cpu .25 vs memory .125)
     * + affinity 2 x 0 + taints 3 x 100 */
    CHECK(score_on(&w, job, empty) == 81 + 93 + 0 + 3 * 100);
    CHECK(score_on(&w, job, busy) == 31 + 93 + 0 + 3 * 100);
    world_free(&w);
}

static void balanced_resource_favours_even_use(void)
{
    struct world w;
    world_init(&w);
    world_plugin(&w, "nodeorder",
                 "{\"leastrequested.weight\": 0, \"balancedresource.weight\": 2, \"nodeaffinity.weight\": 0,"
                 " \"tainttoleration.weight\": 0}");
    int even = world_node(&w, "even", 4000, 8 * GiB, "{}", "[]");
    world_use(&w, even, 1000, 3 * GiB);
    int lopsided = world_node(&w, "lopsided", 2000, 8 * GiB, "{}", "[]");
    world_use(&w, lopsided, 1000, GiB);
    int no_memory = world_node(&w, "cpu-only", 4000, 0, "{}", "[]");
    struct job *job = world_job(&w, "job", 1, 1000, GiB, NULL);
    REQUIRE(world_open(&w));
    CHECK(score_on(&w, job, even) == 2 * 100);      /* cpu 2/4 and memory 4/8: no deviation */
    CHECK(score_on(&w, job, lopsided) == 2 * 62);   /* cpu 2/2, memory 2/8: deviation .375 */
    CHECK(score_on(&w, job, no_memory) == 2 * 100); /* one resource offered: nothing to balance */
    world_free(&w);
}

static void preferred_affinity_scores_matching_weight(void)
{
    struct world w;
    world_init(&w);
    world_plugin(&w, "nodeorder",
                 "{\"leastrequested.weight\": 0, \"balancedresource.weight\": 0, \"nodeaffinity.weight\": 2,"
                 " \"tainttoleration.weight\": 0}");
    int both = world_node(&w, "both", 4000, 8 * GiB, "{\"zone\": \"a\", \"ssd\": \"1\"}", "[]");
    int zone = world_node(&w, "zone", 4000, 8 * GiB, "{\"zone\": \"a\"}", "[]");
    int ssd = world_node(&w, "ssd", 4000, 8 * GiB, "{\"ssd\": \"1\"}", "[]");
    int neither = world_node(&w, "neither", 4000, 8 * GiB, "{}", "[]");
    struct job *job = world_job(
        &w, "job", 1, 1000, GiB,
        "affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: ["
        "{weight: 80, preference: {matchExpressions: [{key: zone, operator: In, values: [a]}]}},"
        "{weight: 20, preference: {matchExpressions: [{key: ssd, operator: Exists}]}}]}}\n");
    struct job *indifferent = world_job(&w, "indifferent", 1, 1000, GiB, NULL);
    REQUIRE(world_open(&w));
    CHECK(score_on(&w, job, both) == 200);
    CHECK(score_on(&w, job, zone) == 160);
    CHECK(score_on(&w, job, ssd) == 40);
    CHECK(score_on(&w, job, neither) == 0);
    CHECK(score_on(&w, indifferent, both) == 0);
    world_free(&w);
}

static void fewer_intolerable_prefer_taints_score_higher(void)
{
    struct world w;
    world_init(&w);
    world_plugin(&w, "nodeorder",
                 "{\"leastrequested.weight\": 0, \"balancedresource.weight\": 0, \"nodeaffinity.weight\": 0,"
                 " \"tainttoleration.weight\": 1}");
    int clean = world_node(&w, "clean", 4000, 8 * GiB, "{}", "[]");
    int one = world_node(&w, "one", 4000, 8 * GiB, "{}", "[{\"key\": \"a\", \"effect\": \"PreferNoSchedule\"}]");
    int two = world_node(&w, "two", 4000, 8 * GiB, "{}",
                         "[{\"key\": \"a\", \"effect\": \"PreferNoSchedule\"},"
                         " {\"key\": \"b\", \"value\": \"x\", \"effect\": \"PreferNoSchedule\"},"
                         " {\"key\": \"hard\", \"effect\": \"NoSchedule\"}]");
    struct job *plain = world_job(&w, "plain", 1, 1000, GiB, NULL);
    struct job *tolerant = world_job(&w, "tolerant", 1, 1000, GiB, "tolerations: [{key: a, operator: Exists}]\n");
    REQUIRE(world_open(&w));
    CHECK(score_on(&w, plain, clean) == 100);
    CHECK(score_on(&w, plain, one) == 50); /* 100 - 1 x 100 / 2, two being the most tainted */
    CHECK(score_on(&w, plain, two) == 0);
    CHECK(score_on(&w, tolerant, one) == 100);
    CHECK(score_on(&w, tolerant, two) == 50);
    world_free(&w);
}

static void binpack_weights_resources(void)
{
    struct world w;
    world_init(&w);
    world_plugin(
        &w, "binpack",
        "{\"binpack.weight\": 2, \"binpack.cpu\": 3, \"binpack.memory\": 1,"
        " \"binpack.resources\": \"nvidia.com/gpu, example.com/foo\", \"binpack.resources.nvidia.com/gpu\": 2}");
    int node = world_node(&w, "n", 4000, 8 * GiB, "{}", "[]");
    world_use(&w, node, 3000, 2 * GiB);
    w.c.nodes[node].allocatable.v[RES_GPU] = 8;
    w.c.nodes[node].used.v[RES_GPU] = 2;
    int empty = world_node(&w, "empty", 4000, 8 * GiB, "{}", "[]");
    w.c.nodes[empty].allocatable.v[RES_GPU] = 8;
    struct job *cpu_mem = world_job(&w, "cpu-mem", 1, 1000, 2 * GiB, NULL);
    struct job *gpu = world_job(&w, "gpu", 1, 1000, 2 * GiB, NULL);
    gpu->tasks[0].request.v[RES_GPU] = 2;
    struct job *too_big = world_job(&w, "too-big", 1, 2000, GiB, NULL);
    REQUIRE(world_open(&w));
    /* cpu (3+1)/4 x 3 + memory (2+2)/8 x 1, over weights 4: 0.875 x 100 x 2 */
    CHECK(score_on(&w, cpu_mem, node) == 175);
    /* + gpu (2+2)/8 x 2, over weights 6: 4.5 / 6 x 100 x 2 */
    CHECK(score_on(&w, gpu, node) == 150);
    CHECK(score_on(&w, cpu_mem, empty) < score_on(&w, cpu_mem, node)); /* packs onto the fuller node */
    CHECK(score_on(&w, too_big, node) == 0);                           /* 2 cpu do not fit in the 1 left */
    world_free(&w);
}

static void binpack_defaults_weigh_cpu_and_memory_only(void)
{
    struct world w;
    world_init(&w);
    world_plugin(&w, "binpack", NULL);
    int node = world_node(&w, "n", 4000, 8 * GiB, "{}", "[]");
    world_use(&w, node, 1000, 2 * GiB);
    w.c.nodes[node].allocatable.v[RES_GPU] = 4;
    struct job *gpu = world_job(&w, "gpu", 1, 1000, 2 * GiB, NULL);
    gpu->tasks[0].request.v[RES_GPU] = 4;
    REQUIRE(world_open(&w));
    CHECK(score_on(&w, gpu, node) == 50); /* cpu 2/4 and memory 4/8; the gpu is not weighed */
    world_free(&w);
}

static void placement_follows_the_scores(void)
{
    struct world w;
    world_init(&w);
    snprintf(w.conf.actions[w.conf.nactions++], CONF_NAME_MAX, "allocate");
    world_plugin(&w, "predicates", NULL);
    world_plugin(&w, "nodeorder", "{\"nodeaffinity.weight\": 10}");
    world_node(&w, "plain", 4000, 8 * GiB, "{}", "[]");
    int fast = world_node(&w, "fast", 4000, 8 * GiB, "{\"ssd\": \"1\"}", "[]");
    world_job(&w, "job", 1, 1000, GiB,
              "affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: ["
              "{weight: 1, preference: {matchExpressions: [{key: ssd, operator: Exists}]}}]}}\n");
    REQUIRE(world_open(&w));
    session_run(&w.ssn);
    REQUIRE(w.ssn.nbinds == 1);
    CHECK_INT(w.ssn.binds[0].node, fast);
    world_free(&w);
}

static void switched_off_plugins_register_nothing(void)
{
    struct world w;
    char r[SESSION_REASON_MAX];
    world_init(&w);
    world_plugin(&w, "predicates", NULL)->enabled[SW_PREDICATE] = false;
    world_plugin(&w, "nodeorder", NULL)->enabled[SW_NODE_ORDER] = false;
    world_plugin(&w, "binpack", NULL)->enabled[SW_NODE_ORDER] = false;
    int cordoned = world_node(&w, "cordoned", 4000, 8 * GiB, "{}", "[]");
    w.c.nodes[cordoned].unschedulable = true;
    int tiny = world_node(&w, "tiny", 100, GiB, "{}", "[]");
    struct job *job = world_job(&w, "job", 1, 1000, GiB, "nodeSelector: {zone: a}\n");
    REQUIRE(world_open(&w));
    struct job_info *ji = info_of(&w, job);
    REQUIRE(ji);
    CHECK_STR(filter_reason(&w, job, cordoned, r, sizeof r), "passes");
    CHECK(session_predicate(&w.ssn, ji, &ji->tasks[0], &w.ssn.nodes[tiny], r, sizeof r));
    CHECK(score_on(&w, job, cordoned) == 0);
    CHECK(score_on(&w, job, tiny) == 0);
    world_free(&w);

    world_init(&w); /* a zero binpack.weight registers nothing either, as in Volcano */
    world_plugin(&w, "binpack", "{\"binpack.weight\": 0}");
    int node = world_node(&w, "n", 4000, 8 * GiB, "{}", "[]");
    world_use(&w, node, 2000, 2 * GiB);
    job = world_job(&w, "job", 1, 1000, GiB, NULL);
    REQUIRE(world_open(&w));
    CHECK(score_on(&w, job, node) == 0);
    world_free(&w);
}

/* A Job submitted as YAML: admission reads the template's constraints, placement honours them. */
static void submitted_node_selector_decides_the_node(void)
{
    const char *yaml =
        "apiVersion: batch.volcano.sh/v1alpha1\n"
        "kind: Job\n"
        "metadata: {name: pinned}\n"
        "spec:\n"
        "  tasks:\n"
        "  - replicas: 2\n"
        "    template:\n"
        "      spec:\n"
        "        nodeSelector: {pool: gpu}\n"
        "        tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]\n"
        "        containers: [{name: c, command: [\"true\"], resources: {requests: {cpu: 1}}}]\n";
    struct world w;
    struct intake in;
    struct api_status st = {0};
    struct job *job = NULL;
    world_init(&w);
    snprintf(w.conf.actions[w.conf.nactions++], CONF_NAME_MAX, "allocate");
    world_plugin(&w, "gang", NULL);
    world_plugin(&w, "predicates", NULL);
    world_plugin(&w, "nodeorder", NULL);
    world_node(&w, "cpu-0", 8000, 8 * GiB, "{\"pool\": \"cpu\"}", "[]");
    int gpu = world_node(&w, "gpu-0", 8000, 8 * GiB, "{\"pool\": \"gpu\"}",
                         "[{\"key\": \"gpu\", \"effect\": \"NoSchedule\"}]");
    REQUIRE(intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) == 0);
    CHECK(volcano_job_from_doc(&in.docs[0], "default", &job, &st) == 0);
    intake_free(&in);
    REQUIRE(job);
    CHECK_STR(job->tasks[0].constraints.signature,
              "nodeSelector{4:pool=3:gpu }tolerations{tol(3:gpu Exists 0: 10:NoSchedule)}");
    job->key = strdup("default/pinned");
    job->scheduler_name = job->scheduler_name ? job->scheduler_name : strdup(DEFAULT_SCHEDULER_NAME);
    job->pg.phase = PG_INQUEUE;
    cluster_add_job(&w.c, job);
    REQUIRE(world_open(&w));
    session_run(&w.ssn);
    REQUIRE(w.ssn.nbinds == 1);
    CHECK_INT(w.ssn.binds[0].node, gpu);
    CHECK_INT(w.ssn.binds[0].count, 2);
    world_free(&w);
}

TEST_MAIN(TEST_CASE(node_selector_needs_every_label_equal), TEST_CASE(expressions_follow_label_selector_rules),
          TEST_CASE(match_fields_select_the_node_name),
          TEST_CASE(required_terms_are_ored_and_an_empty_term_matches_nothing),
          TEST_CASE(preferred_weights_add_up_over_matching_terms), TEST_CASE(tolerations_follow_kubernetes_rules),
          TEST_CASE(only_no_schedule_and_no_execute_taints_block), TEST_CASE(intolerable_prefer_taints_are_counted),
          TEST_CASE(filter_reasons_in_kubernetes_words), TEST_CASE(fit_reasons_name_the_short_resource),
          TEST_CASE(fit_error_counts_filter_and_fit_reasons), TEST_CASE(least_requested_spreads_most_requested_packs),
          TEST_CASE(default_weights_prefer_the_emptier_node), TEST_CASE(balanced_resource_favours_even_use),
          TEST_CASE(preferred_affinity_scores_matching_weight), TEST_CASE(fewer_intolerable_prefer_taints_score_higher),
          TEST_CASE(binpack_weights_resources), TEST_CASE(binpack_defaults_weigh_cpu_and_memory_only),
          TEST_CASE(placement_follows_the_scores), TEST_CASE(switched_off_plugins_register_nothing),
          TEST_CASE(submitted_node_selector_decides_the_node))
