/* The files jobserver reads at start: a nodes file (v1 Node documents or a v1 List) and a
 * volcano-scheduler.conf; both accepted as Kubernetes and Volcano write them, refused with a line. */
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/node.h"
#include "adapters/objects/scheduler_conf.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/registry.h"
#include "tests/lib/test.h"

static void nodes_as_documents_and_list(void)
{
    const char *docs =
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n  labels: {node-zone: daily}\n"
        "spec:\n  taints: [{key: nvidia.com/gpu, effect: NoSchedule}]\n"
        "status:\n  allocatable: {cpu: \"32\", memory: 256Gi, nvidia.com/gpu: \"8\", example.com/fpga: \"2\"}\n"
        "---\n"
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: cpu-1}\n"
        "  status: {allocatable: {cpu: 1500m, memory: \"4294967296\", pods: \"30\"}}\n";
    struct node *nodes;
    int n;
    struct api_status st = {0};
    REQUIRE(nodes_from_yaml(docs, strlen(docs), "amd64", 0, &nodes, &n, &st) == 0);
    CHECK_INT(n, 2);
    CHECK_STR(nodes[0].name, "gpu-1");
    CHECK_INT(nodes[0].allocatable.v[RES_CPU], 32000);
    CHECK_INT(nodes[0].allocatable.v[RES_GPU], 8);
    CHECK_INT(nodes[0].allocatable.v[RES_PODS], 110); /* Kubernetes' default max pods */
    int fpga = resource_index("example.com/fpga");
    REQUIRE(fpga >= RES_FIRST_EXTENDED);
    CHECK_INT(nodes[0].allocatable.v[fpga], 2);
    CHECK_STR(json_string_value(json_object_get(nodes[0].labels, "node-zone")), "daily");
    CHECK_STR(json_string_value(json_object_get(nodes[0].labels, "kubernetes.io/hostname")), "gpu-1");
    CHECK_INT(json_array_size(nodes[0].taints), 1);
    CHECK_INT(nodes[1].allocatable.v[RES_CPU], 1500);
    CHECK_INT(nodes[1].allocatable.v[RES_MEMORY], 4294967296LL);
    CHECK_INT(nodes[1].allocatable.v[RES_PODS], 30);
    json_t *rendered = node_render(&nodes[0]);
    json_t *alloc = json_object_get(json_object_get(rendered, "status"), "allocatable");
    CHECK_STR(json_string_value(json_object_get(alloc, "memory")), "256Gi");
    CHECK_STR(json_string_value(json_object_get(alloc, "cpu")), "32");
    json_decref(rendered);
    for (int i = 0; i < n; i++)
        node_clear(&nodes[i]);
    free(nodes);
}

static void bad_nodes_are_refused_with_a_line(void)
{
    struct node *nodes;
    int n;
    struct api_status st = {0};
    const char *bad = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus:\n  allocatable: {cpu: lots}\n";
    CHECK(nodes_from_yaml(bad, strlen(bad), "amd64", 0, &nodes, &n, &st) != 0);
    CHECK_CONTAINS(st.message, "status.allocatable.cpu: invalid quantity \"lots\"");
    CHECK_CONTAINS(st.message, "line 5");
    memset(&st, 0, sizeof st);
    const char *dup =
        "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus: {allocatable: {cpu: 1}}\n---\n"
        "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus: {allocatable: {cpu: 1}}\n";
    CHECK(nodes_from_yaml(dup, strlen(dup), "amd64", 0, &nodes, &n, &st) != 0);
    CHECK_CONTAINS(st.message, "Duplicate value: \"a\"");
    memset(&st, 0, sizeof st);
    const char *pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n";
    CHECK(nodes_from_yaml(pod, strlen(pod), "amd64", 0, &nodes, &n, &st) != 0);
    CHECK_CONTAINS(st.message, "a nodes file holds v1 Node objects");
    memset(&st, 0, sizeof st);
    const char *noalloc = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus: {}\n";
    CHECK(nodes_from_yaml(noalloc, strlen(noalloc), "amd64", 0, &nodes, &n, &st) != 0);
    CHECK_CONTAINS(st.message, "status.allocatable: Required value");
}

static void volcano_conf_is_read(void)
{
    const char *yaml =
        "actions: \"enqueue, allocate, backfill, preempt, shuffle\"\n"
        "tiers:\n"
        "- plugins:\n"
        "  - name: priority\n"
        "  - name: gang\n"
        "    enablePreemptable: false\n"
        "  - name: conformance\n"
        "- plugins:\n"
        "  - name: drf\n"
        "    enablePreemptable: false\n"
        "  - name: predicates\n"
        "  - name: tdm\n"
        "  - name: binpack\n"
        "    arguments:\n"
        "      binpack.weight: 10\n"
        "      binpack.cpu: 5\n"
        "configurations:\n"
        "- name: enqueue\n"
        "  arguments: {overcommit-factor: 2.0}\n";
    struct sched_conf conf;
    struct api_status st = {0};
    REQUIRE(sched_conf_parse(yaml, strlen(yaml), &conf, &st) == 0);
    CHECK_INT(conf.nactions, 5);
    CHECK_STR(conf.actions[3], "preempt");
    CHECK_INT(conf.ntiers, 2);
    CHECK_INT(conf.tiers[0].nplugins, 3);
    CHECK(!conf.tiers[0].plugins[1].enabled[SW_PREEMPTABLE]);
    CHECK(conf.tiers[0].plugins[1].enabled[SW_JOB_READY]);
    const struct plugin_conf *bp = sched_conf_plugin(&conf, "binpack");
    REQUIRE(bp && bp->arguments);
    CHECK_INT(json_integer_value(json_object_get(bp->arguments, "binpack.weight")), 10);
    CHECK(conf.action_args[0] != NULL);
    char missing[256];
    CHECK_INT(sched_conf_unimplemented(&conf, missing, sizeof missing), 1);
    CHECK_STR(missing, "shuffle"); /* tdm evicts at its session's close, not in shuffle */
    sched_conf_free(&conf);

    struct sched_conf def;
    sched_conf_default(&def);
    CHECK_INT(def.nactions, 3);
    CHECK_STR(def.tiers[1].plugins[5].name, "binpack");
    CHECK(!sched_conf_plugin(&def, "drf")->enabled[SW_PREEMPTABLE]);
    sched_conf_free(&def);
}

static void bad_conf_is_refused_with_a_line(void)
{
    struct sched_conf conf;
    struct api_status st = {0};
    const char *yaml =
        "actions: \"enqueue, allocate, teleport\"\ntiers:\n- plugins:\n  - name: gang\n"
        "    enableJobRedy: false\n  - name: magic\n";
    CHECK(sched_conf_parse(yaml, strlen(yaml), &conf, &st) != 0);
    CHECK_CONTAINS(st.message, "actions: Unsupported value: \"teleport\"");
    CHECK_CONTAINS(st.message, "tiers[0].plugins[0].enableJobRedy: Unsupported value");
    CHECK_CONTAINS(st.message, "(line 5, column 20)");
    CHECK_CONTAINS(st.message, "tiers[0].plugins[1].name: Unsupported value: \"magic\"");
}

static void node_zones_are_read_and_checked(void)
{
    struct sched_conf conf;
    struct api_status st = {0};
    const char *yaml =
        "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n"
        "nodeZoneLabel: partition\nnodeZones:\n- schedulerName: volcano-daily\n  zone: daily\n"
        "- schedulerName: volcano-urgent\n  zone: urgent\n";
    REQUIRE(sched_conf_parse(yaml, strlen(yaml), &conf, &st) == 0);
    CHECK_STR(conf.zone_label, "partition");
    CHECK_INT(conf.nzones, 2);
    CHECK_STR(conf.zones[1].scheduler_name, "volcano-urgent");
    CHECK_STR(conf.zones[1].value, "urgent");
    sched_conf_free(&conf);
    memset(&st, 0, sizeof st);
    const char *bad =
        "actions: allocate\ntiers: []\nnodeZones:\n- schedulerName: volcano\n  zone: x\n"
        "- {schedulerName: b}\n";
    CHECK(sched_conf_parse(bad, strlen(bad), &conf, &st) != 0);
    CHECK_CONTAINS(st.message, "nodeZones[0].schedulerName: Invalid value: \"volcano\"");
    CHECK_CONTAINS(st.message, "nodeZones[1].zone: Required value");
}

TEST_MAIN(TEST_CASE(node_zones_are_read_and_checked), TEST_CASE(nodes_as_documents_and_list),
          TEST_CASE(bad_nodes_are_refused_with_a_line), TEST_CASE(volcano_conf_is_read),
          TEST_CASE(bad_conf_is_refused_with_a_line))
