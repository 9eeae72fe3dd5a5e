/* GPU devices: the pure choice (free healthy devices only, one NUMA node when one has enough, fewest
 * NUMA nodes otherwise), a nodes file's device lists, the controller giving each replica devices of
 * its own while it runs and freeing them when it ends (tests/lib/ctl_fixture: no processes), and a
 * device turning unhealthy: out of the node's allocatable and the choice, its holders told, MIG
 * devices named by UUID. */
#include <stdio.h>
#include <string.h>

#include "adapters/objects/node.h"
#include "adapters/objects/pod.h"
#include "model/gpu.h"
#include "tests/lib/ctl_fixture.h"
#include "tests/lib/test.h"

/* Devices 0..n-1, the first half on NUMA node 0 and the rest on 1 (numa false: unknown). */
static void make_set(struct gpu_set *s, int n, bool numa)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < n; i++) {
        struct gpu_device d = {.index = i, .numa = numa ? (i < n / 2 ? 0 : 1) : -1};
        snprintf(d.uuid, sizeof d.uuid, "GPU-%d", i);
        gpu_set_add(s, &d);
    }
}

static void choice_takes_only_free_devices(void)
{
    struct gpu_set s;
    make_set(&s, 4, false);
    uint64_t a, b, c;
    REQUIRE(gpu_choose(&s, 2, &a) == 0);
    CHECK_INT(a, 0x3);
    REQUIRE(gpu_take(&s, a) == 0);
    REQUIRE(gpu_choose(&s, 2, &b) == 0);
    CHECK_INT(b, 0xc);
    REQUIRE(gpu_take(&s, b) == 0);
    CHECK_INT(gpu_choose(&s, 1, &c), -1); /* none left */
    CHECK_INT(gpu_take(&s, 0x1), -1);     /* held already */
    REQUIRE(gpu_give(&s, a) == 0);
    CHECK_INT(gpu_give(&s, a), -1); /* free already */
    REQUIRE(gpu_choose(&s, 1, &c) == 0);
    CHECK_INT(c, 0x1);
    CHECK_INT(gpu_set_free_count(&s), 2);
    gpu_set_clear(&s);
}

static void unhealthy_devices_are_never_chosen(void)
{
    struct gpu_set s;
    make_set(&s, 4, true);
    s.unhealthy = 0x1; /* device 0, on NUMA node 0 */
    CHECK_INT(gpu_set_free_count(&s), 3);
    CHECK_INT(gpu_set_healthy_count(&s), 3);
    uint64_t m;
    REQUIRE(gpu_choose(&s, 2, &m) == 0);
    CHECK_INT(m, 0xc); /* NUMA node 1 has two healthy devices; node 0 only one */
    CHECK(gpu_choose(&s, 4, &m) != 0);
    CHECK(gpu_take(&s, 0x1) != 0);
    REQUIRE(gpu_take(&s, 0x2) == 0);
    s.unhealthy |= 0x2; /* a held device turns unhealthy: given back, it stays out */
    REQUIRE(gpu_give(&s, 0x2) == 0);
    CHECK_INT(gpu_set_free_count(&s), 2);
    CHECK_INT(gpu_set_find_uuid(&s, "GPU-3"), 3);
    CHECK_INT(gpu_set_find_uuid(&s, ""), -1);
    CHECK(!gpu_set_needs_uuids(&s));
    struct gpu_device mig = {.index = 100, .numa = 0, .mig = true};
    snprintf(mig.uuid, sizeof mig.uuid, "MIG-x");
    REQUIRE(gpu_set_add(&s, &mig) == 0);
    CHECK(gpu_set_needs_uuids(&s));
    gpu_set_clear(&s);
}

static void choice_prefers_one_numa_node(void)
{
    struct gpu_set s;
    make_set(&s, 8, true); /* 0-3 on NUMA 0, 4-7 on NUMA 1 */
    uint64_t m;
    REQUIRE(gpu_take(&s, 0x3) == 0); /* NUMA 0 keeps 2, 3 free */
    REQUIRE(gpu_choose(&s, 2, &m) == 0);
    CHECK_INT(m, 0xc); /* the NUMA node with the fewest free that fits: 1 stays whole */
    REQUIRE(gpu_choose(&s, 3, &m) == 0);
    CHECK_INT(m, 0x70);               /* only NUMA 1 has 3: not 2, 3 and 4 */
    REQUIRE(gpu_take(&s, 0x10) == 0); /* NUMA 1 keeps 5, 6, 7 */
    REQUIRE(gpu_choose(&s, 4, &m) == 0);
    CHECK_INT(m, 0xe4); /* no node has 4: the fullest (5, 6, 7) and one of the other */
    CHECK_INT(gpu_mask_count(m), 4);
    gpu_set_clear(&s);
}

static void lists_format_and_parse(void)
{
    struct gpu_set s;
    make_set(&s, 4, false);
    s.devices[3].uuid[0] = '\0';
    char buf[128];
    gpu_format(&s, 0x9, false, buf, sizeof buf);
    CHECK_STR(buf, "0,3");
    gpu_format(&s, 0x9, true, buf, sizeof buf);
    CHECK_STR(buf, "GPU-0,3"); /* a device with no UUID gives its index */
    gpu_format(&s, 0, false, buf, sizeof buf);
    CHECK_STR(buf, "");
    uint64_t m;
    CHECK_INT(gpu_parse_indexes(&s, "0,3", &m), 0);
    CHECK_INT(m, 0x9);
    CHECK_INT(gpu_parse_indexes(&s, "", &m), 0);
    CHECK_INT(m, 0);
    CHECK_INT(gpu_parse_indexes(&s, "4", &m), -1);
    CHECK_INT(gpu_parse_indexes(&s, "1,x", &m), -1);
    gpu_set_clear(&s);
}

static int parse_nodes(const char *yaml, struct node **nodes, int *count, struct api_status *st)
{
    memset(st, 0, sizeof *st);
    return nodes_from_yaml(yaml, strlen(yaml), "amd64", 0, nodes, count, st);
}

static void free_nodes(struct node *nodes, int count)
{
    for (int i = 0; i < count; i++)
        node_clear(&nodes[i]);
    free(nodes);
}

static void nodes_file_lists_devices(void)
{
    struct node *nodes;
    int count;
    struct api_status st;
    REQUIRE(parse_nodes("apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  annotations:\n"
                        "    caldera.io/gpus: \"4:GPU-a:0:81559,5:GPU-b:1,7::1\"\n"
                        "status:\n  allocatable: {cpu: \"8\", memory: 32Gi}\n"
                        "---\napiVersion: v1\nkind: Node\nmetadata: {name: b}\n"
                        "status:\n  allocatable: {cpu: \"8\", memory: 32Gi, nvidia.com/gpu: \"2\"}\n",
                        &nodes, &count, &st) == 0);
    REQUIRE(count == 2);
    CHECK_INT(nodes[0].allocatable.v[RES_GPU], 3);
    CHECK_INT(nodes[0].capacity.v[RES_GPU], 3);
    REQUIRE(nodes[0].gpus.count == 3);
    CHECK_INT(nodes[0].gpus.devices[0].index, 4);
    CHECK_STR(nodes[0].gpus.devices[0].uuid, "GPU-a");
    CHECK_INT(nodes[0].gpus.devices[0].numa, 0);
    CHECK_INT(nodes[0].gpus.devices[0].memory_mib, 81559);
    CHECK_INT(nodes[0].gpus.devices[2].index, 7);
    CHECK_STR(nodes[0].gpus.devices[2].uuid, "");
    CHECK_INT(nodes[0].gpus.devices[2].numa, 1);
    REQUIRE(nodes[1].gpus.count == 2); /* a bare count: devices 0 and 1 */
    CHECK_INT(nodes[1].gpus.devices[1].index, 1);
    CHECK_INT(nodes[1].gpus.devices[1].numa, -1);
    nodes[0].gpus.busy = 0x2;
    json_t *rendered = node_render(&nodes[0]);
    json_t *ann = json_object_get(json_object_get(rendered, "metadata"), "annotations");
    CHECK_STR(json_string_value(json_object_get(ann, "caldera.io/gpus")), "4:GPU-a:0:81559,5:GPU-b:1,7::1");
    CHECK_STR(json_string_value(json_object_get(ann, "caldera.io/gpus-allocated")), "5");
    json_decref(rendered);
    free_nodes(nodes, count);
}

static void nodes_file_device_errors(void)
{
    static const struct {
        const char *annotation, *gpus, *cause;
    } bad[] = {
        {"\"0,0\"", "", "device index 0 is listed twice"},
        {"\"0:GPU-a:zero\"", "", "device 1 (\"0:GPU-a:zero\"): must be INDEX[:UUID[:NUMA[:MEMORY_MIB]]]"},
        {"\"0,,1\"", "", "device 2: must be INDEX"},
        {"\"0,1\"", ", nvidia.com/gpu: \"3\"", "lists 2 devices but status.allocatable[nvidia.com/gpu] says 3"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml,
                 "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  annotations: {caldera.io/gpus: %s}\n"
                 "status:\n  allocatable: {cpu: \"8\"%s}\n",
                 bad[i].annotation, bad[i].gpus);
        struct node *nodes;
        int count;
        struct api_status st;
        CHECK_INT(parse_nodes(yaml, &nodes, &count, &st), -1);
        CHECK_INT(st.code, 422);
        CHECK_CONTAINS(st.message, bad[i].cause);
        CHECK_CONTAINS(st.message, "metadata.annotations[caldera.io/gpus]");
    }
    struct node *nodes;
    int count;
    struct api_status st;
    CHECK_INT(parse_nodes("apiVersion: v1\nkind: Node\nmetadata: {name: a}\n"
                          "status:\n  allocatable: {nvidia.com/gpu: \"65\"}\n",
                          &nodes, &count, &st),
              -1);
    CHECK_CONTAINS(st.message, "at most 64 GPU devices");
}

/* --- the controller ---------------------------------------------------------------------------- */

static char *gpu_job(const char *name, int replicas, int gpus)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: %s\nspec:\n  tasks:\n"
             "  - name: w\n    replicas: %d\n    template:\n      spec:\n        containers:\n        - name: c\n"
             "          command: [\"true\"]\n          resources: {limits: {cpu: \"1\", nvidia.com/gpu: %d}}\n",
             name, replicas, gpus);
    return buf;
}

/* One node of 4 devices, 0-1 on NUMA 0 and 2-3 on NUMA 1. */
static void gpu_node(struct ctl_fixture *fx)
{
    ctlfx_init(fx, 1);
    struct node *n = &fx->cluster.nodes[0];
    for (int i = 0; i < 4; i++) {
        struct gpu_device d = {.index = i, .numa = i / 2};
        gpu_set_add(&n->gpus, &d);
    }
    n->allocatable.v[RES_GPU] = 4;
    n->capacity.v[RES_GPU] = 4;
}

static void replicas_get_devices_of_their_own(void)
{
    struct ctl_fixture fx;
    gpu_node(&fx);
    struct job *pair = ctlfx_submit(&fx, gpu_job("pair", 2, 1));
    struct job *big = ctlfx_submit(&fx, gpu_job("big", 1, 2));
    REQUIRE(pair && big);
    ctlfx_cycle(&fx);
    CHECK_INT(pair->status.running, 2);
    CHECK_INT(big->status.running, 1);
    uint64_t a = pair->replicas[0].gpus, b = pair->replicas[1].gpus, c = big->replicas[0].gpus;
    CHECK_INT(gpu_mask_count(a), 1);
    CHECK_INT(gpu_mask_count(b), 1);
    CHECK_INT(gpu_mask_count(c), 2);
    CHECK_INT(a & b, 0);
    CHECK_INT((a | b) & c, 0);
    CHECK_INT(fx.cluster.nodes[0].gpus.busy, 0xf);
    CHECK(c == 0x3 || c == 0xc); /* the 2-GPU replica on one NUMA node */
    json_t *pod = pod_render(big, 0, 0, &fx.cluster.nodes[0]);
    char want[8];
    snprintf(want, sizeof want, "%s", c == 0x3 ? "0,1" : "2,3");
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_object_get(pod, "metadata"), "annotations"),
                                                "caldera.io/gpu-devices")),
              want);
    json_decref(pod);
    /* a third job waits for a device, and gets the one an ended replica gave back */
    struct job *late = ctlfx_submit(&fx, gpu_job("late", 1, 1));
    REQUIRE(late);
    ctlfx_cycle(&fx);
    CHECK_INT(late->status.running, 0);
    REQUIRE(ctlfx_exit(&fx, pair, 1, 0, false));
    CHECK_INT(fx.cluster.nodes[0].gpus.busy, 0xf & ~b);
    CHECK_INT(pair->replicas[1].gpus, b); /* still shown on the finished pod */
    ctlfx_cycle(&fx);
    CHECK_INT(late->status.running, 1);
    CHECK_INT(late->replicas[0].gpus, b);
    CHECK_INT(fx.cluster.nodes[0].gpus.busy, 0xf);
    ctlfx_free(&fx);
}

static void replica_without_gpus_holds_none(void)
{
    struct ctl_fixture fx;
    gpu_node(&fx);
    struct job *job = ctlfx_submit(&fx, gpu_job("cpu", 1, 0));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    CHECK_INT(job->status.running, 1);
    CHECK_INT(job->replicas[0].gpus, 0);
    CHECK_INT(fx.cluster.nodes[0].gpus.busy, 0);
    ctlfx_free(&fx);
}

/* The journal's events of this reason: how many, and the last one's kind, name and message. */
static int events_of(const struct ctl_fixture *fx, const char *reason, const char *kind, char *name, size_t len,
                     char *message, size_t mlen)
{
    int n = 0;
    for (const struct journal_entry *e = fx->ctl.journal.head; e; e = e->next)
        if (strcmp(e->ev.reason, reason) == 0 && strcmp(e->ev.kind, kind) == 0) {
            n++;
            snprintf(name, len, "%s", e->ev.name);
            snprintf(message, mlen, "%s", e->ev.message);
        }
    return n;
}

static struct gpu_health_change health(int index, bool healthy, int xid, const char *reason)
{
    struct gpu_health_change c = {.index = index, .healthy = healthy, .xid = xid};
    snprintf(c.node, sizeof c.node, "node-0");
    snprintf(c.reason, sizeof c.reason, "%s", reason);
    snprintf(c.message, sizeof c.message, "GPU %d: %s", index, healthy ? "back" : "critical Xid");
    return c;
}

static void unhealthy_device_leaves_the_node(void)
{
    struct ctl_fixture fx;
    gpu_node(&fx);
    struct node *n = &fx.cluster.nodes[0];
    struct job *one = ctlfx_submit(&fx, gpu_job("one", 1, 1));
    REQUIRE(one);
    ctlfx_cycle(&fx);
    REQUIRE(one->status.running == 1);
    int held = __builtin_ctzll(one->replicas[0].gpus);
    ctlfx_drain(&fx);
    /* the device the running task holds gets a critical Xid */
    struct gpu_health_change c = health(held, false, 79, "GPUUnhealthy");
    REQUIRE(controller_gpu_health(&fx.ctl, &c) == 0);
    CHECK_INT(n->allocatable.v[RES_GPU], 3);
    CHECK_INT(n->capacity.v[RES_GPU], 4);
    CHECK_INT(n->gpus.devices[held].last_xid, 79);
    char name[320], message[1024];
    CHECK_INT(events_of(&fx, "GPUUnhealthy", "Node", name, sizeof name, message, sizeof message), 1);
    CHECK_STR(name, "node-0");
    CHECK_CONTAINS(message, "allocatable nvidia.com/gpu is 3 of the node's 4");
    CHECK_INT(events_of(&fx, "GPUUnhealthy", "Pod", name, sizeof name, message, sizeof message), 1);
    CHECK_STR(name, "one-w-0");
    CHECK_CONTAINS(message, "keeps running");
    CHECK_INT(one->status.running, 1); /* not stopped */
    CHECK(ctlfx_proc(&fx, one, 0) && !ctlfx_proc(&fx, one, 0)->stop_sent);
    /* as in Kubernetes, the node offers its allocatable (3) less what its pods request (1): a job asking
     * for three waits, one for two runs, on devices other than the bad one */
    struct job *three = ctlfx_submit(&fx, gpu_job("three", 1, 3));
    struct job *two = ctlfx_submit(&fx, gpu_job("two", 1, 2));
    REQUIRE(three && two);
    ctlfx_cycle(&fx);
    CHECK_INT(three->status.running, 0);
    CHECK_INT(two->status.running, 1);
    CHECK_INT(two->replicas[0].gpus & (UINT64_C(1) << held), 0);
    /* a task needing no GPU still fits although the node's GPUs are all taken or bad */
    struct job *cpu = ctlfx_submit(&fx, gpu_job("cpu", 1, 0));
    REQUIRE(cpu);
    ctlfx_cycle(&fx);
    CHECK_INT(cpu->status.running, 1);
    /* the task on the bad device ends: its device is not handed out again, the last good one is free */
    REQUIRE(ctlfx_exit(&fx, one, 0, 0, false));
    CHECK_INT(gpu_set_free_count(&n->gpus), 1);
    CHECK(!(n->gpus.busy & (UINT64_C(1) << held)));
    struct job *last = ctlfx_submit(&fx, gpu_job("last", 1, 1));
    REQUIRE(last);
    ctlfx_cycle(&fx);
    CHECK_INT(last->status.running, 1);
    CHECK_INT(last->replicas[0].gpus & (UINT64_C(1) << held), 0);
    CHECK_INT(three->status.running, 0);
    /* the device comes back (seen again by discovery): counted and chosen again */
    ctlfx_drain(&fx);
    c = health(held, true, 0, "GPUAvailable");
    REQUIRE(controller_gpu_health(&fx.ctl, &c) == 0);
    CHECK_INT(n->allocatable.v[RES_GPU], 4);
    CHECK_INT(events_of(&fx, "GPUAvailable", "Node", name, sizeof name, message, sizeof message), 1);
    CHECK_INT(events_of(&fx, "GPUAvailable", "Pod", name, sizeof name, message, sizeof message), 0);
    /* healthy news of a healthy device, and a device the node lacks, change nothing */
    ctlfx_drain(&fx);
    REQUIRE(controller_gpu_health(&fx.ctl, &c) == 0);
    CHECK_INT(ctlfx_drain(&fx), 0);
    c = health(9, false, 79, "GPUUnhealthy");
    CHECK_INT(controller_gpu_health(&fx.ctl, &c), -1);
    CHECK_INT(n->allocatable.v[RES_GPU], 4);
    ctlfx_free(&fx);
}

static void mig_device_health_by_uuid(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct node *n = &fx.cluster.nodes[0];
    for (int j = 0; j < 2; j++) {
        struct gpu_device d = {.index = 100 + j, .numa = 0, .mig = true, .gpu_instance = 7 + j};
        snprintf(d.uuid, sizeof d.uuid, "MIG-%d", j);
        snprintf(d.parent_uuid, sizeof d.parent_uuid, "GPU-0");
        gpu_set_add(&n->gpus, &d);
    }
    n->allocatable.v[RES_GPU] = n->capacity.v[RES_GPU] = 2;
    struct job *job = ctlfx_submit(&fx, gpu_job("mig", 1, 1));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    REQUIRE(job->status.running == 1);
    struct job *other = ctlfx_submit(&fx, gpu_job("other", 1, 1));
    REQUIRE(other);
    ctlfx_cycle(&fx);
    REQUIRE(other->status.running == 1);
    /* an Xid on an instance held, by UUID: the node holds more than it now offers */
    int held = job->replicas[0].gpus == 0x1 ? 0 : 1;
    struct gpu_health_change c = health(0, false, 48, "GPUUnhealthy");
    snprintf(c.uuid, sizeof c.uuid, "MIG-%d", held);
    REQUIRE(controller_gpu_health(&fx.ctl, &c) == 0);
    CHECK_INT(n->gpus.unhealthy, UINT64_C(1) << held);
    CHECK_INT(n->allocatable.v[RES_GPU], 1);
    CHECK_INT(n->gpus.devices[held].last_xid, 48);
    /* which stops no task needing no GPU from being placed there */
    struct job *cpu = ctlfx_submit(&fx, gpu_job("cpu", 1, 0));
    REQUIRE(cpu);
    ctlfx_cycle(&fx);
    CHECK_INT(cpu->status.running, 1);
    ctlfx_free(&fx);
}

TEST_MAIN(TEST_CASE(choice_takes_only_free_devices), TEST_CASE(unhealthy_devices_are_never_chosen),
          TEST_CASE(choice_prefers_one_numa_node), TEST_CASE(lists_format_and_parse),
          TEST_CASE(nodes_file_lists_devices), TEST_CASE(nodes_file_device_errors),
          TEST_CASE(replicas_get_devices_of_their_own), TEST_CASE(replica_without_gpus_holds_none),
          TEST_CASE(unhealthy_device_leaves_the_node), TEST_CASE(mig_device_health_by_uuid))
