/* The default node's GPUs through NVML (the fake libnvidia-ml.so.1, configured by its environment and
 * files): GPUs in MIG mode give MIG devices, labelled as GPU feature discovery's single strategy labels
 * them and given to tasks by UUID; a critical Xid takes a device out of the node's allocatable with a
 * Warning Event on the Node and one on the pod holding it (which keeps running), an application's Xid
 * changes nothing, /metrics shows the last Xid per device; a GPU gone from the driver takes the same
 * path, and one that comes back is counted again with a Normal Event. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/fake_nvml_path.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define WAIT_MS 20000
#define PODS "/api/v1/namespaces/default/pods/"
#define UUID_A "GPU-11111111-2222-3333-4444-555555555555"
#define UUID_B "GPU-66666666-7777-8888-9999-000000000000"
#define SHOW_GPUS "'echo \"CUDA=[$CUDA_VISIBLE_DEVICES]\"; sleep 300'"
#define GPU_TASK                                      \
    TASK("t", 1, "", SHOW_GPUS,                       \
         "          resources: {limits: {cpu: 100m, " \
         "memory: 64Mi, nvidia.com/gpu: 1}}\n")

static bool put(const char *path, const char *text) { return write_file_atomic(path, text, strlen(text), 0644) == 0; }

/* What the pod's task printed between "CUDA=[" and "]" (waits for it), into buf; false if never. */
static bool logged_devices(const struct test_server *s, const char *pod, char *buf, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, PODS "%s/log", pod);
    for (int waited = 0; waited < WAIT_MS; waited += 50) {
        char *log = server_request_text(s, "GET", path, NULL);
        const char *at = log ? strstr(log, "CUDA=[") : NULL;
        const char *end = at ? strchr(at, ']') : NULL;
        if (end) {
            snprintf(buf, len, "%.*s", (int)(end - at - 6), at + 6);
            free(log);
            return true;
        }
        free(log);
        usleep(50000);
    }
    return false;
}

/* The default node (the only one), its name into name. Caller frees. */
static json_t *the_node(const struct test_server *s, char *name, size_t len)
{
    long code;
    json_t *nodes = server_request(s, "GET", "/api/v1/nodes", NULL, NULL, &code);
    json_t *node = json_incref(json_array_get(json_object_get(nodes, "items"), 0));
    json_decref(nodes);
    snprintf(name, len, "%s", jv_str(node, "metadata.name") ? jv_str(node, "metadata.name") : "?");
    return node;
}

static const char *label(json_t *node, const char *key)
{
    const char *v = json_string_value(json_object_get(jv_at(node, "metadata.labels"), key));
    return v ? v : "(none)";
}

/* The /metrics line of family `name` for device UUID `uuid`, into line; false when none. */
static bool metric_line(const struct test_server *s, const char *name, const char *uuid, char *line, size_t len)
{
    char *body = server_request_text(s, "GET", "/metrics", NULL);
    char want[160];
    snprintf(want, sizeof want, "\"%s\"", uuid);
    bool found = false;
    for (char *at = body; at && *at && !found;) {
        char *end = strchr(at, '\n');
        size_t n = end ? (size_t)(end - at) : strlen(at);
        if (strncmp(at, name, strlen(name)) == 0 && at[strlen(name)] == '{' && memmem(at, n, want, strlen(want))) {
            snprintf(line, len, "%.*s", (int)n, at);
            found = true;
        }
        at = end ? end + 1 : at + n;
    }
    free(body);
    return found;
}

static void mig_devices_are_the_nodes_gpus(void)
{
    char lib[PATH_MAX];
    REQUIRE(fake_nvml_path(lib, sizeof lib)); /* `make` builds it with this test */
    setenv("CALDERA_NVML_LIBRARY", lib, 1);
    setenv("FAKE_NVML_MIG", "2,2", 1);
    struct test_server s;
    static const char *const args[] = {"--shutdown-grace", "2", NULL};
    int started = server_start(&s, NULL, args);
    unsetenv("CALDERA_NVML_LIBRARY");
    unsetenv("FAKE_NVML_MIG");
    REQUIRE(started == 0);
    char name[256];
    json_t *node = the_node(&s, name, sizeof name);
    CHECK_STR(json_string_value(json_object_get(jv_at(node, "status.allocatable"), "nvidia.com/gpu")), "4");
    CHECK_STR(label(node, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb");
    CHECK_STR(label(node, "nvidia.com/mig.strategy"), "single");
    CHECK_STR(label(node, "nvidia.com/gpu.memory"), "9856");
    CHECK_STR(label(node, "nvidia.com/gpu.count"), "4");
    const char *devices = json_string_value(json_object_get(jv_at(node, "metadata.annotations"), "caldera.io/gpus"));
    CHECK_CONTAINS(devices ? devices : "", "100:MIG-00000000-aaaa-bbbb-cccc-dddddddddddd");
    CHECK_CONTAINS(devices ? devices : "", "201:MIG-11000000-aaaa-bbbb-cccc-dddddddddddd");
    json_decref(node);
    /* two tasks get one MIG device each, named by UUID (CUDA cannot take a MIG device's index) */
    CHECK_INT(job_submit(&s, "mig-a", "", GPU_TASK), 201);
    CHECK_INT(job_submit(&s, "mig-b", "", GPU_TASK), 201);
    REQUIRE(job_wait(&s, "mig-a", "status.running", "1", WAIT_MS) == 0);
    REQUIRE(job_wait(&s, "mig-b", "status.running", "1", WAIT_MS) == 0);
    char a[128], b[128];
    REQUIRE(logged_devices(&s, "mig-a-t-0", a, sizeof a));
    REQUIRE(logged_devices(&s, "mig-b-t-0", b, sizeof b));
    CHECK(strncmp(a, "MIG-", 4) == 0 && strstr(a, "-aaaa-bbbb-cccc-dddddddddddd") && !strchr(a, ','));
    CHECK(strncmp(b, "MIG-", 4) == 0 && strstr(b, "-aaaa-bbbb-cccc-dddddddddddd") && !strchr(b, ','));
    CHECK(strcmp(a, b) != 0);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
    /* a GPU in MIG mode with no instance gives nothing, says so, and the product label is invalid */
    setenv("CALDERA_NVML_LIBRARY", lib, 1);
    setenv("FAKE_NVML_MIG", "0,2", 1);
    started = server_start(&s, NULL, args);
    unsetenv("CALDERA_NVML_LIBRARY");
    unsetenv("FAKE_NVML_MIG");
    REQUIRE(started == 0);
    node = the_node(&s, name, sizeof name);
    CHECK_STR(json_string_value(json_object_get(jv_at(node, "status.allocatable"), "nvidia.com/gpu")), "2");
    CHECK_STR(label(node, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3-MIG-INVALID");
    json_decref(node);
    char *log = NULL;
    size_t len = 0;
    REQUIRE(read_file(s.log_path, 1 << 20, &log, &len) == 0);
    CHECK_CONTAINS(log, "GPU 0 (" UUID_A ") has MIG enabled but no MIG devices");
    free(log);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void a_failing_gpu_leaves_the_node(void)
{
    char lib[PATH_MAX], xids[] = "/tmp/caldera-xid-XXXXXX", count[] = "/tmp/caldera-count-XXXXXX";
    REQUIRE(fake_nvml_path(lib, sizeof lib));
    int fd = mkstemp(xids);
    REQUIRE(fd >= 0);
    close(fd);
    fd = mkstemp(count);
    REQUIRE(fd >= 0);
    close(fd);
    REQUIRE(put(count, "2"));
    char count_env[64];
    snprintf(count_env, sizeof count_env, "@%s", count);
    setenv("CALDERA_NVML_LIBRARY", lib, 1);
    setenv("FAKE_NVML_XID_FILE", xids, 1);
    setenv("FAKE_NVML_COUNT", count_env, 1);
    struct test_server s;
    static const char *const args[] = {"--shutdown-grace", "2", "--gpu-recheck", "100ms", NULL};
    int started = server_start(&s, NULL, args);
    unsetenv("CALDERA_NVML_LIBRARY");
    unsetenv("FAKE_NVML_XID_FILE");
    unsetenv("FAKE_NVML_COUNT");
    REQUIRE(started == 0);
    char name[256], type[16], message[1024], line[1024];
    json_decref(the_node(&s, name, sizeof name));
    CHECK_INT(job_submit(&s, "first", "", GPU_TASK), 201);
    REQUIRE(job_wait(&s, "first", "status.running", "1", WAIT_MS) == 0);
    char held[64];
    REQUIRE(logged_devices(&s, "first-t-0", held, sizeof held));
    CHECK_STR(held, "0"); /* the lowest free */
    /* GPU 0, which the task holds, reports Xid 79 (fallen off the bus) */
    REQUIRE(put(xids, "0 79\n"));
    REQUIRE(event_wait(&s, name, "GPUUnhealthy", "Xid 79", type, message, sizeof message, WAIT_MS));
    CHECK_STR(type, "Warning");
    CHECK_CONTAINS(message, "GPU 0 (" UUID_A ")");
    CHECK_CONTAINS(message, "allocatable nvidia.com/gpu is 1 of the node's 2");
    REQUIRE(event_wait(&s, "first-t-0", "GPUUnhealthy", "Xid 79", type, message, sizeof message, WAIT_MS));
    CHECK_STR(type, "Warning");
    CHECK_CONTAINS(message, "keeps running");
    json_t *node = the_node(&s, name, sizeof name);
    CHECK_STR(json_string_value(json_object_get(jv_at(node, "status.allocatable"), "nvidia.com/gpu")), "1");
    CHECK_STR(json_string_value(json_object_get(jv_at(node, "status.capacity"), "nvidia.com/gpu")), "2");
    const char *bad = json_string_value(
        json_object_get(jv_at(node, "metadata.annotations"), "caldera.io/gpus-unhealthy"));
    CHECK_STR(bad ? bad : "(none)", "0");
    json_decref(node);
    json_t *job = job_get(&s, "first");
    CHECK_INT(jv_num(job, "status.running"), 1); /* not stopped, as the device plugin leaves it */
    json_decref(job);
    REQUIRE(metric_line(&s, "DCGM_FI_DEV_XID_ERRORS", UUID_A, line, sizeof line));
    CHECK_CONTAINS(line, "gpu=\"0\"");
    CHECK(strlen(line) > 3 && strcmp(line + strlen(line) - 3, " 79") == 0);
    REQUIRE(metric_line(&s, "caldera_gpu_healthy", UUID_A, line, sizeof line));
    CHECK_CONTAINS(line, "gpu=\"0\"");
    CHECK(strcmp(line + strlen(line) - 2, " 0") == 0);
    /* an application's Xid (13) on GPU 1 is ignored; the next critical one on GPU 0, seen after it,
     * shows GPU 1 still counted */
    REQUIRE(put(xids, "0 79\n1 13\n0 48\n"));
    REQUIRE(event_wait(&s, name, "GPUUnhealthy", "Xid 48", type, message, sizeof message, WAIT_MS));
    CHECK_CONTAINS(message, "allocatable nvidia.com/gpu is 1 of the node's 2");
    REQUIRE(metric_line(&s, "DCGM_FI_DEV_XID_ERRORS", UUID_B, line, sizeof line));
    CHECK(strcmp(line + strlen(line) - 2, " 0") == 0);
    /* as in Kubernetes, the node offers its allocatable (1) less what its pods request (1): nothing,
     * until the task on the bad device ends; then the bad device is never chosen: the next task gets
     * GPU 1, the one after waits */
    CHECK_INT(job_submit(&s, "second", "", GPU_TASK), 201);
    CHECK(job_wait(&s, "second", "status.state.reason", "Unschedulable", WAIT_MS) == 0);
    long code;
    json_decref(server_request(&s, "DELETE", JOBS "/first", NULL, NULL, &code));
    CHECK_INT(code, 200);
    REQUIRE(job_wait(&s, "second", "status.running", "1", WAIT_MS) == 0);
    REQUIRE(logged_devices(&s, "second-t-0", held, sizeof held));
    CHECK_STR(held, "1");
    CHECK_INT(job_submit(&s, "third", "", GPU_TASK), 201);
    CHECK(job_wait(&s, "third", "status.state.reason", "Unschedulable", WAIT_MS) == 0);
    /* GPU 1 falls off the bus: the same path, with its holder told */
    REQUIRE(put(count, "1"));
    REQUIRE(event_wait(&s, name, "GPUUnavailable", "GPU 1 (" UUID_B ")", type, message, sizeof message, WAIT_MS));
    CHECK_STR(type, "Warning");
    CHECK_CONTAINS(message, "allocatable nvidia.com/gpu is 0 of the node's 2");
    REQUIRE(
        event_wait(&s, "second-t-0", "GPUUnavailable", "no longer visible", type, message, sizeof message, WAIT_MS));
    /* and comes back: counted again, and the waiting task gets it once the second ends */
    REQUIRE(put(count, "2"));
    REQUIRE(event_wait(&s, name, "GPUAvailable", "GPU 1 (" UUID_B ")", type, message, sizeof message, WAIT_MS));
    CHECK_STR(type, "Normal");
    CHECK_CONTAINS(message, "allocatable nvidia.com/gpu is 1 of the node's 2");
    json_decref(server_request(&s, "DELETE", JOBS "/second", NULL, NULL, &code));
    CHECK_INT(code, 200);
    REQUIRE(job_wait(&s, "third", "status.running", "1", WAIT_MS) == 0);
    REQUIRE(logged_devices(&s, "third-t-0", held, sizeof held));
    CHECK_STR(held, "1");
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
    unlink(xids);
    unlink(count);
}

TEST_MAIN(TEST_CASE(mig_devices_are_the_nodes_gpus), TEST_CASE(a_failing_gpu_leaves_the_node))
