/* GPU devices with real tasks on virtual nodes that list devices: two 1-GPU jobs and a 2-GPU job run
 * at once, each sees devices no other holds (CUDA_VISIBLE_DEVICES in its log), its pod names them
 * (caldera.io/gpu-devices) and its attempt records them; across a restart with --keep-tasks a running
 * task keeps its devices and a new one gets only a free device. Also UUIDs on request, none for a
 * task asking for none, and Volcano's GPU sharing refused at admission. Without a nodes file, the
 * default node has the GPUs the driver's files show (a fake tree), and a GPU that disappears, or
 * comes back, is a Node Event. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define WAIT_MS 20000
#define NODES "tests/integration/data/gpu-nodes.yaml"
#define PODS "/api/v1/namespaces/default/pods/"

static const char *const args[] = {"--nodes", NODES, "--shutdown-grace", "2", "--keep-tasks", NULL};

#define GPU_TASK(gpus, cmd) \
    TASK("t", 1, "", cmd, "          resources: {limits: {cpu: \"1\", nvidia.com/gpu: " #gpus "}}\n")
#define SHOW_GPUS "'echo \"CUDA=[$CUDA_VISIBLE_DEVICES] NVIDIA=[$NVIDIA_VISIBLE_DEVICES]\"; sleep 300'"

/* What the pod's task printed between "CUDA=[" and "]" (waits for it), into buf; false if never. */
static bool logged_devices(const struct test_server *s, const char *pod, const char *var, char *buf, size_t len)
{
    char path[256], key[32];
    snprintf(path, sizeof path, PODS "%s/log", pod);
    snprintf(key, sizeof key, "%s=[", var);
    for (int waited = 0; waited < WAIT_MS; waited += 50) {
        char *log = server_request_text(s, "GET", path, NULL);
        const char *at = log ? strstr(log, key) : NULL;
        const char *end = at ? strchr(at, ']') : NULL;
        if (end) {
            snprintf(buf, len, "%.*s", (int)(end - at - strlen(key)), at + strlen(key));
            free(log);
            return true;
        }
        free(log);
        usleep(50000);
    }
    return false;
}

static const char *pod_annotation(const struct test_server *s, const char *pod, char *buf, size_t len)
{
    long code;
    json_t *p = api_get(s, PODS "%s", pod, &code);
    json_t *ann = json_object_get(jv_at(p, "metadata.annotations"), "caldera.io/gpu-devices");
    snprintf(buf, len, "%s", json_string_value(ann) ? json_string_value(ann) : "(none)");
    json_decref(p);
    return buf;
}

static const char *recorded_devices(const struct test_server *s, const char *job, const char *pod, int attempt,
                                    char *buf, size_t len)
{
    json_t *h = job_history(s, job), *att[MAX_ATTEMPTS];
    int n = pod_attempts(h, pod, att, MAX_ATTEMPTS);
    const char *v = n >= attempt ? jv_str(att[attempt - 1], "gpuDevices") : NULL;
    snprintf(buf, len, "%s", v ? v : "(none)");
    json_decref(h);
    return buf;
}

/* The devices of a list "2,3" as a bit mask (indexes under 64). */
static unsigned long long mask_of(const char *list)
{
    unsigned long long m = 0;
    for (const char *p = list; *p;) {
        char *end;
        long i = strtol(p, &end, 10);
        if (end == p || i < 0 || i >= 64)
            return ~0ULL;
        m |= 1ULL << i;
        p = *end == ',' ? end + 1 : end;
    }
    return m;
}

static void tasks_hold_devices_of_their_own(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    static const char *const jobs[] = {"one-a", "one-b", "two"};
    static const char *const pods[] = {"one-a-t-0", "one-b-t-0", "two-t-0"};
    static const int want[] = {1, 1, 2};
    CHECK_INT(job_submit(&s, "one-a", "", GPU_TASK(1, SHOW_GPUS)), 201);
    CHECK_INT(job_submit(&s, "one-b", "", GPU_TASK(1, SHOW_GPUS)), 201);
    CHECK_INT(job_submit(&s, "two", "", GPU_TASK(2, SHOW_GPUS)), 201);
    char seen[3][64], buf[64];
    unsigned long long all = 0;
    for (int j = 0; j < 3; j++) {
        REQUIRE(job_wait(&s, jobs[j], "status.running", "1", WAIT_MS) == 0);
        REQUIRE(logged_devices(&s, pods[j], "CUDA", seen[j], sizeof seen[j]));
        unsigned long long m = mask_of(seen[j]);
        CHECK_INT(__builtin_popcountll(m), want[j]);
        CHECK_INT(m & all, 0); /* no device shared while they all run */
        all |= m;
        CHECK_STR(pod_annotation(&s, pods[j], buf, sizeof buf), seen[j]);
        CHECK_STR(recorded_devices(&s, jobs[j], pods[j], 1, buf, sizeof buf), seen[j]);
        REQUIRE(logged_devices(&s, pods[j], "NVIDIA", buf, sizeof buf));
        CHECK_STR(buf, seen[j]);
    }
    CHECK_INT(all, 0xf);
    CHECK(strcmp(seen[2], "0,1") == 0 || strcmp(seen[2], "2,3") == 0); /* one NUMA node */
    /* one-a ends and gives its device back; a restart keeps what the others hold */
    long code;
    json_decref(server_request(&s, "DELETE", JOBS "/one-a", NULL, NULL, &code));
    CHECK_INT(code, 200);
    for (int waited = 0; waited < WAIT_MS && code != 404; waited += 50) {
        usleep(50000);
        json_decref(api_get(&s, JOBS "/%s", "one-a", &code));
    }
    CHECK_INT(code, 404);
    CHECK_INT(server_stop(&s), 0);
    REQUIRE(server_start(&s, s.data_dir, args) == 0);
    REQUIRE(job_wait(&s, "two", "status.running", "1", WAIT_MS) == 0);
    CHECK_STR(pod_annotation(&s, "two-t-0", buf, sizeof buf), seen[2]);
    CHECK_STR(pod_annotation(&s, "one-b-t-0", buf, sizeof buf), seen[1]);
    CHECK_INT(job_submit(&s, "late", "", GPU_TASK(1, SHOW_GPUS)), 201);
    REQUIRE(job_wait(&s, "late", "status.running", "1", WAIT_MS) == 0);
    char late[64];
    REQUIRE(logged_devices(&s, "late-t-0", "CUDA", late, sizeof late));
    CHECK_STR(late, seen[0]); /* the only free one: not one the adopted tasks kept */
    CHECK_STR(recorded_devices(&s, "late", "late-t-0", 1, buf, sizeof buf), seen[0]);
    /* a fifth device is asked for: nothing is free, so it waits */
    CHECK_INT(job_submit(&s, "waits", "", GPU_TASK(1, SHOW_GPUS)), 201);
    CHECK(job_wait(&s, "waits", "status.state.reason", "Unschedulable", WAIT_MS) == 0);
    json_t *j = job_get(&s, "waits");
    CHECK_STR(jv_str(j, "status.state.phase"), "Pending");
    CHECK_CONTAINS(jv_str(j, "status.state.message"), "nvidia.com/gpu");
    json_decref(j);
    /* stop for good: the next start would adopt them */
    static const char *const stop_args[] = {"--nodes", NODES, "--shutdown-grace", "2", NULL};
    CHECK_INT(server_stop(&s), 0);
    REQUIRE(server_start(&s, s.data_dir, stop_args) == 0);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void uuids_on_request_and_none_without_asking(void)
{
    struct test_server s;
    static const char *const uuid_args[] = {"--nodes", NODES, "--shutdown-grace", "2", "--gpu-visible-devices",
                                            "uuid",    NULL};
    REQUIRE(server_start(&s, NULL, uuid_args) == 0);
    CHECK_INT(job_submit(&s, "uuid", "", GPU_TASK(1, SHOW_GPUS)), 201);
    /* no GPU asked for, on the GPU node (the only one with room for 4 cpu) */
    CHECK_INT(job_submit(&s, "nogpu", "", TASK("t", 1, "", SHOW_GPUS, "          resources: {limits: {cpu: \"4\"}}\n")),
              201);
    char buf[128];
    REQUIRE(job_wait(&s, "uuid", "status.running", "1", WAIT_MS) == 0);
    REQUIRE(logged_devices(&s, "uuid-t-0", "CUDA", buf, sizeof buf));
    CHECK_STR(buf, "GPU-aaaa0000");
    REQUIRE(logged_devices(&s, "uuid-t-0", "NVIDIA", buf, sizeof buf));
    CHECK_STR(buf, "GPU-aaaa0000");
    REQUIRE(job_wait(&s, "nogpu", "status.running", "1", WAIT_MS) == 0);
    REQUIRE(logged_devices(&s, "nogpu-t-0", "CUDA", buf, sizeof buf));
    CHECK_STR(buf, "");
    REQUIRE(logged_devices(&s, "nogpu-t-0", "NVIDIA", buf, sizeof buf));
    CHECK_STR(buf, "void");
    /* Volcano's GPU sharing is refused, naming the field */
    CHECK_INT(job_submit(&s, "shared", "",
                         TASK("t", 1, "", "'true'", "          resources: {limits: {volcano.sh/gpu-memory: 1024}}\n")),
              422);
    long code;
    char body[] =
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: shared}\nspec:\n  tasks:\n"
        "  - replicas: 1\n    template:\n      spec:\n        containers:\n        - name: c\n"
        "          command: [\"true\"]\n          resources: {limits: {volcano.sh/gpu-memory: 1024}}\n";
    json_t *r = server_request(&s, "POST", JOBS, body, "application/yaml", &code);
    CHECK_INT(code, 422);
    CHECK_CONTAINS(jv_str(r, "details.causes.0.field"), "volcano.sh/gpu-memory");
    CHECK_CONTAINS(jv_str(r, "message"), "GPU sharing is not supported");
    json_decref(r);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* A fake driver tree under root: GPUs on PCI buses 0x17 and 0x65, as /proc/driver/nvidia shows them. */
static void put(const char *root, const char *rel, const char *text)
{
    char path[PATH_MAX], dir[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    mkdir_p(dir, 0755);
    write_file_atomic(path, text, strlen(text), 0644);
}

#define GPU_65 "proc/driver/nvidia/gpus/0000:65:00.0/information"

/* Whether /api/v1/events has an event of this reason about the node (waits for it). */
static bool node_event(const struct test_server *s, const char *node, const char *reason)
{
    for (int waited = 0; waited < WAIT_MS; waited += 100) {
        long code;
        json_t *list = server_request(s, "GET", "/api/v1/events", NULL, NULL, &code);
        size_t i;
        json_t *e;
        bool found = false;
        json_array_foreach(json_object_get(list, "items"), i, e)
        {
            const char *r = jv_str(e, "reason"), *name = jv_str(e, "involvedObject.name");
            found = found || (r && name && strcmp(r, reason) == 0 && strcmp(name, node) == 0);
        }
        json_decref(list);
        if (found)
            return true;
        usleep(100000);
    }
    return false;
}

static void default_node_has_the_machines_gpus(void)
{
    char root[] = "/tmp/caldera-gpu-XXXXXX";
    REQUIRE(mkdtemp(root));
    put(root, "proc/driver/nvidia/gpus/0000:17:00.0/information",
        "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t GPU-bus17\nBus Location: \t 0000:17:00.0\n");
    put(root, GPU_65, "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t GPU-bus65\nBus Location: \t 0000:65:00.0\n");
    setenv("CALDERA_NVML_LIBRARY", "none", 1);
    setenv("CALDERA_GPU_ROOT", root, 1);
    struct test_server s;
    static const char *const watch_args[] = {"--shutdown-grace", "2", "--gpu-recheck", "100ms", NULL};
    int started = server_start(&s, NULL, watch_args);
    unsetenv("CALDERA_NVML_LIBRARY");
    unsetenv("CALDERA_GPU_ROOT");
    REQUIRE(started == 0);
    long code;
    json_t *nodes = server_request(&s, "GET", "/api/v1/nodes", NULL, NULL, &code);
    json_t *node = json_array_get(json_object_get(nodes, "items"), 0);
    char name[256];
    snprintf(name, sizeof name, "%s", jv_str(node, "metadata.name") ? jv_str(node, "metadata.name") : "?");
    CHECK_STR(json_string_value(json_object_get(jv_at(node, "status.allocatable"), "nvidia.com/gpu")), "2");
    json_t *labels = jv_at(node, "metadata.labels");
    CHECK_STR(json_string_value(json_object_get(labels, "nvidia.com/gpu.product")), "NVIDIA-H100-80GB-HBM3");
    CHECK_STR(json_string_value(json_object_get(labels, "nvidia.com/gpu.count")), "2");
    CHECK_STR(json_string_value(json_object_get(jv_at(node, "metadata.annotations"), "caldera.io/gpus")),
              "0:GPU-bus17,1:GPU-bus65");
    json_decref(nodes);
    CHECK_INT(job_submit(&s, "local", "",
                         TASK("t", 1, "", SHOW_GPUS,
                              "          resources: {limits: {cpu: 100m, memory: 64Mi, nvidia.com/gpu: 1}}\n")),
              201);
    REQUIRE(job_wait(&s, "local", "status.running", "1", WAIT_MS) == 0);
    char buf[64];
    REQUIRE(logged_devices(&s, "local-t-0", "CUDA", buf, sizeof buf));
    CHECK_STR(buf, "0");
    /* the second GPU falls off the bus, then comes back */
    char gone[PATH_MAX];
    snprintf(gone, sizeof gone, "%s/" GPU_65, root);
    REQUIRE(unlink(gone) == 0);
    CHECK(node_event(&s, name, "GPUUnavailable"));
    put(root, GPU_65, "Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t GPU-bus65\nBus Location: \t 0000:65:00.0\n");
    CHECK(node_event(&s, name, "GPUAvailable"));
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
    remove_tree(root);
}

TEST_MAIN(TEST_CASE(tasks_hold_devices_of_their_own), TEST_CASE(uuids_on_request_and_none_without_asking),
          TEST_CASE(default_node_has_the_machines_gpus))
