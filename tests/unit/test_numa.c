/* NUMA placement: cpulists, kubelet's topology manager admission and the static CPU manager's choice
 * (model/numa.c), the numa-aware plugin on virtual nodes declaring two-socket topologies, the nodes
 * file's Numatopology documents and their rendering, and reading a machine's topology from /sys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/objects/node.h"
#include "adapters/objects/numatopology.h"
#include "adapters/objects/scheduler_conf.h"
#include "common/fs.h"
#include "runtime/numa_host.h"
#include "scheduler/registry.h"
#include "tests/lib/sched_fixture.h"
#include "tests/lib/test.h"

/* Two sockets, one cell each, CPUs 0-7 and 8-15; the first CPU reserved as kubelet's would be. */
static void two_cells(struct numa_topology *t, enum topology_policy p)
{
    memset(t, 0, sizeof *t);
    t->ncells = 2;
    t->nsockets = 2;
    t->cells[0] = (struct numa_cell){.id = 0, .socket = 0};
    t->cells[1] = (struct numa_cell){.id = 1, .socket = 1};
    cpu_bits_parse("0-7", &t->cells[0].cpus);
    cpu_bits_parse("8-15", &t->cells[1].cpus);
    t->static_cpus = true;
    t->policy = p;
}

static void cpulists_parse_and_format(void)
{
    struct cpu_bits b;
    char buf[CPU_LIST_MAX];
    REQUIRE(cpu_bits_parse("0-3,8,10-11\n", &b) == 0);
    CHECK_INT(cpu_bits_count(&b), 7);
    CHECK_STR(cpu_bits_format(&b, buf, sizeof buf), "0-3,8,10-11");
    REQUIRE(cpu_bits_parse("", &b) == 0);
    CHECK(cpu_bits_empty(&b));
    CHECK_STR(cpu_bits_format(&b, buf, sizeof buf), "");
    CHECK(cpu_bits_parse("3-1", &b) != 0);
    CHECK(cpu_bits_parse("a", &b) != 0);
    CHECK(cpu_bits_parse("1,,2", &b) != 0);
    CHECK(cpu_bits_parse("256", &b) != 0); /* beyond NUMA_CPUS_MAX */
    REQUIRE(cpu_bits_parse("255", &b) == 0);
    CHECK_STR(cpu_bits_format(&b, buf, sizeof buf), "255");
}

static void only_guaranteed_whole_cpus_are_exclusive(void)
{
    struct resvec req = {0}, lim = {0};
    req.v[RES_CPU] = lim.v[RES_CPU] = 2000;
    req.v[RES_MEMORY] = lim.v[RES_MEMORY] = 1LL << 30;
    CHECK_INT(numa_exclusive_cpus(&req, &lim), 2);
    lim.v[RES_MEMORY] = 2LL << 30; /* Burstable */
    CHECK_INT(numa_exclusive_cpus(&req, &lim), 0);
    lim.v[RES_MEMORY] = 1LL << 30;
    req.v[RES_CPU] = lim.v[RES_CPU] = 1500; /* not whole CPUs */
    CHECK_INT(numa_exclusive_cpus(&req, &lim), 0);
    req.v[RES_CPU] = 1000, lim.v[RES_CPU] = 0; /* no limit */
    CHECK_INT(numa_exclusive_cpus(&req, &lim), 0);
}

static void policies_admit_as_kubelet_does(void)
{
    struct numa_topology t;
    two_cells(&t, TOPO_NONE);
    int free[NUMA_CELLS_MAX] = {4, 8};
    unsigned cells;
    /* 6 CPUs fit in cell 1 only */
    for (int p = TOPO_NONE; p <= TOPO_SINGLE_NUMA_NODE; p++) {
        CHECK_INT(numa_fit(&t, free, 6, (enum topology_policy)p, &cells), 1);
        CHECK_INT(cells, 2u);
    }
    /* 3 fit in either: the fuller cell is used, the emptier kept whole */
    CHECK_INT(numa_fit(&t, free, 3, TOPO_SINGLE_NUMA_NODE, &cells), 1);
    CHECK_INT(cells, 1u);
    /* 10 need both cells: single-numa-node refuses, restricted admits (no cell could hold 10) */
    CHECK_INT(numa_fit(&t, free, 10, TOPO_SINGLE_NUMA_NODE, &cells), 0);
    CHECK_INT(numa_fit(&t, free, 10, TOPO_RESTRICTED, &cells), 2);
    CHECK_INT(numa_fit(&t, free, 10, TOPO_BEST_EFFORT, &cells), 2);
    /* 6 with 4 + 4 free: one cell could hold 6, so restricted refuses the spread; best-effort takes it */
    int half[NUMA_CELLS_MAX] = {4, 4};
    CHECK_INT(numa_fit(&t, half, 6, TOPO_RESTRICTED, &cells), 0);
    CHECK_INT(numa_fit(&t, half, 6, TOPO_BEST_EFFORT, &cells), 2);
    CHECK_INT(numa_fit(&t, half, 6, TOPO_NONE, &cells), 2);
    /* more than is free: nobody admits */
    CHECK_INT(numa_fit(&t, half, 9, TOPO_NONE, &cells), 0);
}

static void take_gives_lowest_cpus_of_one_cell_and_give_returns_them(void)
{
    struct numa_topology t;
    char buf[CPU_LIST_MAX];
    two_cells(&t, TOPO_SINGLE_NUMA_NODE);
    cpu_bits_add(&t.reserved, 0);
    struct cpu_bits a, b, c;
    REQUIRE(numa_take(&t, 4, &a) == 0);
    CHECK_STR(cpu_bits_format(&a, buf, sizeof buf), "1-4"); /* cell 0 has 7 free (CPU 0 reserved): the fuller */
    CHECK_STR(numa_mems_of(&t, &a, buf, sizeof buf), "0");
    REQUIRE(numa_take(&t, 6, &b) == 0);
    CHECK_STR(cpu_bits_format(&b, buf, sizeof buf), "8-13");
    CHECK_STR(numa_mems_of(&t, &b, buf, sizeof buf), "1");
    CHECK(numa_take(&t, 4, &c) != 0); /* 3 and 2 free: no single cell has 4 */
    numa_shared_cpus(&t, &c);
    CHECK_STR(cpu_bits_format(&c, buf, sizeof buf), "0,5-7,14-15");
    numa_give(&t, &a);
    REQUIRE(numa_take(&t, 4, &c) == 0);
    CHECK_STR(cpu_bits_format(&c, buf, sizeof buf), "1-4");
    CHECK(numa_hold(&t, &b) != 0); /* held already */
    numa_give(&t, &b);
    CHECK(numa_hold(&t, &b) == 0); /* an adopted task's CPUs back */
    struct cpu_bits outside;
    cpu_bits_parse("16", &outside);
    CHECK(numa_hold(&t, &outside) != 0);
}

static void cpus_go_near_the_gpus_when_one_cell_suffices(void)
{
    struct numa_topology t;
    char buf[CPU_LIST_MAX];
    two_cells(&t, TOPO_BEST_EFFORT);
    int gpu_node = 1;
    unsigned near = numa_cells_of_nodes(&t, &gpu_node, 1);
    CHECK_INT(near, 2u);
    struct cpu_bits a;
    REQUIRE(numa_take_near(&t, 2, near, &a) == 0); /* both cells fit: the GPU's */
    CHECK_STR(cpu_bits_format(&a, buf, sizeof buf), "8-9");
    REQUIRE(numa_take_near(&t, 7, near, &a) == 0); /* 6 left there: cell 0 */
    CHECK_STR(cpu_bits_format(&a, buf, sizeof buf), "0-6");
}

/* --- the plugin on virtual nodes ------------------------------------------------------------- */

static void add_plugin(struct sched_fixture *fx, const char *name)
{
    struct tier_conf *tier = &fx->conf.tiers[1];
    plugin_conf_init(&tier->plugins[tier->nplugins++], name);
}

static struct numa_topology *topology(enum topology_policy p)
{
    struct numa_topology *t = malloc(sizeof *t);
    two_cells(t, p);
    return t;
}

static struct job *guaranteed_job(struct sched_fixture *fx, const char *name, int replicas, int cpus,
                                  enum topology_policy p)
{
    struct job *job = fixture_job(fx, name, "default", replicas, replicas, cpus * 1000LL);
    struct task_spec *ts = &job->tasks[0];
    ts->request.v[RES_MEMORY] = GiB;
    ts->limit = ts->request;
    ts->limit.v[RES_PODS] = 0;
    ts->topology_policy = (uint8_t)p;
    job->pg.min_resources.v[RES_MEMORY] = replicas * GiB;
    return job;
}

static void single_numa_node_places_whole_cells_only(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    add_plugin(&fx, "numa-aware");
    fixture_node(&fx, "vn-1", 16000, 64 * GiB);
    fx.c.nodes[0].numa = topology(TOPO_SINGLE_NUMA_NODE);
    /* 6 CPUs each: one per cell fits, a third would straddle the cells */
    struct job *two = guaranteed_job(&fx, "two", 2, 6, TOPO_SINGLE_NUMA_NODE);
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, two), 2);
    session_free(&ssn);
    struct job *three = guaranteed_job(&fx, "three", 1, 3, TOPO_SINGLE_NUMA_NODE);
    two->pg.phase = PG_RUNNING; /* the first job's binds are the controller's now */
    for (int i = 0; i < 2; i++) {
        fixture_run(&fx, two, i, 0, fx.now_ms);
        struct cpu_bits got;
        REQUIRE(numa_take(fx.c.nodes[0].numa, 6, &got) == 0);
    }
    ssn = fixture_cycle(&fx); /* 2 + 2 CPUs left in the cells: 3 fit by count, in no one cell */
    CHECK_INT(fixture_bound(&ssn, three), 0);
    CHECK_CONTAINS(fixture_info(&ssn, three)->fit_error,
                   "couldn't give 3 exclusive CPUs under topology policy "
                   "single-numa-node");
    session_free(&ssn);
    fixture_free(&fx);
}

static void in_session_binds_count_against_the_cells(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    add_plugin(&fx, "numa-aware");
    fixture_node(&fx, "vn-1", 16000, 64 * GiB);
    fx.c.nodes[0].numa = topology(TOPO_SINGLE_NUMA_NODE);
    /* 16 CPUs by the predicates plugin's count, but 5 + 5 in one cell can't: only 2 of 3 go */
    struct job *job = guaranteed_job(&fx, "fives", 3, 5, TOPO_SINGLE_NUMA_NODE);
    job->min_available = job->tasks[0].min_available = 1;
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, job), 2);
    session_free(&ssn);
    fixture_free(&fx);
}

static void a_rolled_back_gang_gives_its_cells_back(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    add_plugin(&fx, "numa-aware");
    fixture_node(&fx, "vn-1", 16000, 64 * GiB);
    fx.c.nodes[0].numa = topology(TOPO_SINGLE_NUMA_NODE);
    /* three sixes need three cells: two are placed, then the gang is undone */
    struct job *gang = guaranteed_job(&fx, "gang", 3, 6, TOPO_SINGLE_NUMA_NODE);
    gang->tasks[0].request.v[RES_CPU] = gang->tasks[0].limit.v[RES_CPU] = 5000; /* 15 CPUs pass the count */
    gang->pg.min_resources.v[RES_CPU] = 15000;
    struct job *eights = guaranteed_job(&fx, "eights", 2, 8, TOPO_SINGLE_NUMA_NODE);
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, gang), 0);
    CHECK_INT(fixture_bound(&ssn, eights), 2); /* both whole cells, once the gang's two fives are undone */
    session_free(&ssn);
    fixture_free(&fx);
}

static void task_policy_must_be_the_nodes(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    add_plugin(&fx, "numa-aware");
    fixture_node(&fx, "best-effort-node", 16000, 64 * GiB);
    fixture_node(&fx, "plain-node", 16000, 64 * GiB);
    fixture_node(&fx, "restricted-node", 16000, 64 * GiB);
    fx.c.nodes[0].numa = topology(TOPO_BEST_EFFORT);
    fx.c.nodes[2].numa = topology(TOPO_RESTRICTED);
    struct job *job = guaranteed_job(&fx, "r", 1, 10, TOPO_RESTRICTED);
    struct session ssn = fixture_cycle(&fx);
    REQUIRE(fixture_bound(&ssn, job) == 1);
    CHECK_INT(ssn.binds[0].node, 2);
    session_free(&ssn);
    struct job *none = guaranteed_job(&fx, "s", 1, 2, TOPO_SINGLE_NUMA_NODE);
    ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, none), 0);
    const char *why = fixture_info(&ssn, none)->fit_error;
    CHECK_CONTAINS(why, "1 node(s) had no NUMA topology");
    CHECK_CONTAINS(why, "topology manager policy other than single-numa-node");
    session_free(&ssn);
    fixture_free(&fx);
}

static void fewer_cells_score_higher(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    add_plugin(&fx, "numa-aware");
    fixture_node(&fx, "split", 16000, 64 * GiB);
    fixture_node(&fx, "whole", 16000, 64 * GiB);
    fx.c.nodes[0].numa = topology(TOPO_BEST_EFFORT);
    fx.c.nodes[1].numa = topology(TOPO_BEST_EFFORT);
    struct cpu_bits held;
    cpu_bits_parse("0-3,8-11", &held); /* "split": 4 + 4 free; "whole": 8 + 8 */
    REQUIRE(numa_hold(fx.c.nodes[0].numa, &held) == 0);
    fx.c.nodes[0].used.v[RES_CPU] = 8000;
    struct job *job = guaranteed_job(&fx, "six", 1, 6, TOPO_BEST_EFFORT);
    struct session ssn = fixture_cycle(&fx);
    REQUIRE(fixture_bound(&ssn, job) == 1);
    CHECK_INT(ssn.binds[0].node, 1);
    session_free(&ssn);
    fixture_free(&fx);
}

static void shared_tasks_pass_anywhere(void)
{
    struct sched_fixture fx;
    fixture_init(&fx, "enqueue, allocate");
    add_plugin(&fx, "numa-aware");
    fixture_node(&fx, "vn-1", 16000, 64 * GiB);
    fx.c.nodes[0].numa = topology(TOPO_SINGLE_NUMA_NODE);
    struct job *job = fixture_job(&fx, "burstable", "default", 1, 1, 12000); /* no limits: the shared pool */
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_bound(&ssn, job), 1);
    session_free(&ssn);
    fixture_free(&fx);
}

/* --- nodes file and rendering ------------------------------------------------------------------ */

static const char *const nodes_yaml =
    "apiVersion: v1\n"
    "kind: Node\n"
    "metadata: {name: numa-1}\n"
    "status: {allocatable: {cpu: \"8\", memory: 32Gi, pods: \"110\"}}\n"
    "---\n"
    "apiVersion: nodeinfo.volcano.sh/v1alpha1\n"
    "kind: Numatopology\n"
    "metadata: {name: numa-1}\n"
    "spec:\n"
    "  policies: {CPUManagerPolicy: static, TopologyManagerPolicy: restricted}\n"
    "  numares: {cpu: {allocatable: \"1-7\"}}\n"
    "  cpuDetail:\n"
    "    \"0\": {numa: 0, socket: 0, core: 0}\n"
    "    \"1\": {numa: 0, socket: 0, core: 1}\n"
    "    \"2\": {numa: 0, socket: 0, core: 2}\n"
    "    \"3\": {numa: 0, socket: 0, core: 3}\n"
    "    \"4\": {numa: 1, socket: 1, core: 4}\n"
    "    \"5\": {numa: 1, socket: 1, core: 5}\n"
    "    \"6\": {numa: 1, socket: 1, core: 6}\n"
    "    \"7\": {numa: 1, socket: 1, core: 7}\n";

static void nodes_file_declares_numatopology(void)
{
    struct node *nodes;
    int count;
    struct api_status st = {0};
    REQUIRE(nodes_from_yaml(nodes_yaml, strlen(nodes_yaml), "amd64", 1000, &nodes, &count, &st) == 0);
    CHECK_INT(count, 1);
    const struct numa_topology *t = nodes[0].numa;
    REQUIRE(t != NULL);
    char buf[CPU_LIST_MAX];
    CHECK_INT(t->ncells, 2);
    CHECK_INT(t->nsockets, 2);
    CHECK(t->static_cpus);
    CHECK_INT(t->policy, TOPO_RESTRICTED);
    CHECK_STR(cpu_bits_format(&t->cells[1].cpus, buf, sizeof buf), "4-7");
    CHECK_STR(cpu_bits_format(&t->reserved, buf, sizeof buf), "0");
    json_t *node = node_render(&nodes[0]);
    json_t *ann = json_object_get(json_object_get(node, "metadata"), "annotations");
    CHECK_STR(json_string_value(json_object_get(ann, "caldera.io/cpu-manager-policy")), "static");
    CHECK_STR(json_string_value(json_object_get(ann, "caldera.io/topology-manager-policy")), "restricted");
    CHECK_STR(json_string_value(json_object_get(ann, "caldera.io/cpus-reserved")), "0");
    CHECK_CONTAINS(json_string_value(json_object_get(ann, "caldera.io/numa-topology")),
                   "{\"id\":1,\"socket\":1,\"cpus\":\"4-7\"");
    json_decref(node);
    node_clear(&nodes[0]);
    free(nodes);
}

static void bad_numatopology_names_the_field(void)
{
    struct node *nodes;
    int count;
    struct api_status st = {0};
    char yaml[4096];
    snprintf(yaml, sizeof yaml, "%s", nodes_yaml);
    char *p = strstr(yaml, "restricted");
    memcpy(p, "restrictex", 10);
    CHECK(nodes_from_yaml(yaml, strlen(yaml), "amd64", 1000, &nodes, &count, &st) != 0);
    CHECK_INT(st.code, 422);
    REQUIRE(st.ncauses > 0);
    CHECK_STR(st.causes[0].field, "spec.policies.TopologyManagerPolicy");
    memset(&st, 0, sizeof st);
    snprintf(yaml, sizeof yaml, "%s", nodes_yaml);
    p = strstr(yaml, "{name: numa-1}\nspec");
    memcpy(p, "{name: numa-2}", 14);
    CHECK(nodes_from_yaml(yaml, strlen(yaml), "amd64", 1000, &nodes, &count, &st) != 0);
    CHECK_CONTAINS(st.message, "Numatopology numa-2 names no Node");
}

/* The examples the README points to: they load, and the conf names only implemented plugins. */
static void the_examples_load(void)
{
    char *data;
    size_t len;
    struct node *nodes;
    int count;
    struct api_status st = {0};
    REQUIRE(read_file("examples/numa-tdm-nodes.yaml", 1 << 20, &data, &len) == 0);
    REQUIRE(nodes_from_yaml(data, len, "amd64", 1000, &nodes, &count, &st) == 0);
    free(data);
    CHECK_INT(count, 2);
    REQUIRE(nodes[0].numa != NULL);
    CHECK_INT(nodes[0].numa->ncells, 2);
    CHECK_INT(nodes[0].numa->policy, TOPO_SINGLE_NUMA_NODE);
    CHECK(nodes[1].numa == NULL);
    for (int i = 0; i < count; i++)
        node_clear(&nodes[i]);
    free(nodes);
    struct sched_conf conf;
    REQUIRE(read_file("examples/numa-tdm-scheduler.yaml", 1 << 20, &data, &len) == 0);
    REQUIRE(sched_conf_parse(data, len, &conf, &st) == 0);
    free(data);
    char missing[256];
    CHECK_INT(sched_conf_unimplemented(&conf, missing, sizeof missing), 0);
    sched_conf_free(&conf);
}

/* --- this machine's /sys --------------------------------------------------------------------- */

static void write_at(const char *root, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", root, rel);
    for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        mkdir(path, 0755);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs(text, f);
    fclose(f);
}

static void sysfs_topology_is_read(void)
{
    char root[] = "/tmp/caldera-numa-XXXXXX";
    REQUIRE(mkdtemp(root) != NULL);
    write_at(root, "/sys/devices/system/cpu/online", "0-7\n");
    write_at(root, "/sys/devices/system/node/node0/cpulist", "0-3\n");
    write_at(root, "/sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:       16318876 kB\n");
    write_at(root, "/sys/devices/system/node/node1/cpulist", "4-7\n");
    write_at(root, "/sys/devices/system/node/node1/meminfo", "Node 1 MemTotal:       1024 kB\n");
    write_at(root, "/sys/devices/system/node/node2/cpulist", "\n"); /* memory only */
    write_at(root, "/sys/devices/system/cpu/cpu0/topology/physical_package_id", "0\n");
    write_at(root, "/sys/devices/system/cpu/cpu4/topology/physical_package_id", "1\n");
    struct numa_topology t;
    REQUIRE(host_numa(root, &t) == 0);
    char buf[CPU_LIST_MAX];
    CHECK_INT(t.ncells, 2);
    CHECK_INT(t.nsockets, 2);
    CHECK_INT(t.cells[1].id, 1);
    CHECK_INT(t.cells[1].socket, 1);
    CHECK_STR(cpu_bits_format(&t.cells[1].cpus, buf, sizeof buf), "4-7");
    CHECK_INT(t.cells[0].memory, 16318876LL * 1024);
    CHECK(!t.real);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
    /* and this machine: every CPU this process may use is in some cell */
    REQUIRE(host_numa("", &t) == 0);
    struct cpu_bits all;
    numa_all_cpus(&t, &all);
    CHECK_INT(cpu_bits_count(&all), (int)sysconf(_SC_NPROCESSORS_ONLN));
    CHECK(t.real);
}

TEST_MAIN(TEST_CASE(cpulists_parse_and_format), TEST_CASE(only_guaranteed_whole_cpus_are_exclusive),
          TEST_CASE(policies_admit_as_kubelet_does),
          TEST_CASE(take_gives_lowest_cpus_of_one_cell_and_give_returns_them),
          TEST_CASE(cpus_go_near_the_gpus_when_one_cell_suffices), TEST_CASE(single_numa_node_places_whole_cells_only),
          TEST_CASE(in_session_binds_count_against_the_cells), TEST_CASE(a_rolled_back_gang_gives_its_cells_back),
          TEST_CASE(task_policy_must_be_the_nodes), TEST_CASE(fewer_cells_score_higher),
          TEST_CASE(shared_tasks_pass_anywhere), TEST_CASE(nodes_file_declares_numatopology),
          TEST_CASE(bad_numatopology_names_the_field), TEST_CASE(the_examples_load), TEST_CASE(sysfs_topology_is_read))
