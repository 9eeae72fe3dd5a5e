/* This machine's own NVIDIA GPUs, where it has them (the driver's libnvidia-ml.so.1, never the fake):
 * the default node counts and labels them, two 1-GPU jobs each see a device of their own, and a real
 * CUDA task (Debian's or pip's torch built with CUDA, when present) sees exactly the one it holds.
 * Without a driver every case says it skipped and why; the figures print as "# gpu: ..." lines. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define WAIT_MS 60000
#define PODS "/api/v1/namespaces/default/pods/"
#define GPU_LIMITS "          resources: {limits: {cpu: 100m, memory: 2Gi, nvidia.com/gpu: 1}}\n"
#define SHOW_GPUS "'echo \"CUDA=[$CUDA_VISIBLE_DEVICES]\"; sleep 30'"
/* A CUDA program: how many devices it sees, and a sum computed on the device. */
#define CUDA_TASK                                                                                          \
    "'python3 -c \"import torch; print(\\\"COUNT=[%d]\\\" % torch.cuda.device_count()); "                  \
    "x = torch.ones(1000, device=\\\"cuda\\\"); print(\\\"SUM=[%d] NAME=[%s]\\\" % (int(x.sum().item()), " \
    "torch.cuda.get_device_name(0)))\"'"

/* Why this machine cannot run the cases, or NULL when it has an NVIDIA driver. */
static const char *no_gpu_here(void)
{
    const char *lib = getenv("CALDERA_NVML_LIBRARY");
    if (lib && *lib)
        return "CALDERA_NVML_LIBRARY is set (a fake or none): this test wants the machine's own driver";
    void *nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (nvml) {
        dlclose(nvml);
        return NULL;
    }
    if (access("/dev/nvidia0", F_OK) == 0)
        return NULL; /* the driver's files without NVML: discovery's fallback */
    return "no NVIDIA GPU here: libnvidia-ml.so.1 cannot be loaded and /dev/nvidia0 is absent";
}

/* What the pod printed between "<tag>[" and "]" (waits for it), into buf; false if never. */
static bool logged(const struct test_server *s, const char *pod, const char *tag, char *buf, size_t len)
{
    char path[256], open_tag[32];
    snprintf(path, sizeof path, PODS "%s/log", pod);
    snprintf(open_tag, sizeof open_tag, "%s[", tag);
    for (int waited = 0; waited < WAIT_MS; waited += 100) {
        char *log = server_request_text(s, "GET", path, NULL);
        const char *at = log ? strstr(log, open_tag) : NULL;
        const char *end = at ? strchr(at, ']') : NULL;
        if (end) {
            at += strlen(open_tag);
            snprintf(buf, len, "%.*s", (int)(end - at), at);
            free(log);
            return true;
        }
        free(log);
        usleep(100000);
    }
    return false;
}

static struct test_server server;
static bool server_up;

static struct test_server *started(void)
{
    static const char *const args[] = {"--shutdown-grace", "2", NULL};
    if (!server_up && server_start(&server, NULL, args) == 0)
        server_up = true;
    return server_up ? &server : NULL;
}

/* The default node's nvidia.com/gpu allocatable, 0 when none. */
static long node_gpus(struct test_server *s)
{
    long code;
    json_t *nodes = server_request(s, "GET", "/api/v1/nodes", NULL, NULL, &code);
    json_t *node = json_array_get(json_object_get(nodes, "items"), 0);
    const char *n = json_string_value(json_object_get(jv_at(node, "status.allocatable"), "nvidia.com/gpu"));
    const char *product = json_string_value(json_object_get(jv_at(node, "metadata.labels"), "nvidia.com/gpu.product"));
    const char *memory = json_string_value(json_object_get(jv_at(node, "metadata.labels"), "nvidia.com/gpu.memory"));
    const char *devices = json_string_value(json_object_get(jv_at(node, "metadata.annotations"), "caldera.io/gpus"));
    printf("# gpu: node allocatable nvidia.com/gpu=%s product=%s memory=%s MiB devices=%s\n", n ? n : "(none)",
           product ? product : "(none)", memory ? memory : "(none)", devices ? devices : "(none)");
    long count = n ? atol(n) : 0;
    CHECK(product != NULL);
    json_decref(nodes);
    return count;
}

static void the_node_counts_the_machines_gpus(void)
{
    const char *why = no_gpu_here();
    SKIP_IF(why, "%s", why);
    struct test_server *s = started();
    REQUIRE(s);
    CHECK(node_gpus(s) >= 1);
}

static void two_jobs_hold_different_devices(void)
{
    const char *why = no_gpu_here();
    SKIP_IF(why, "%s", why);
    struct test_server *s = started();
    REQUIRE(s);
    long gpus = node_gpus(s);
    SKIP_IF(gpus < 2, "this machine has %ld GPU: two jobs cannot hold one each", gpus);
    CHECK_INT(job_submit(s, "gpu-a", "", TASK("t", 1, "", SHOW_GPUS, GPU_LIMITS)), 201);
    CHECK_INT(job_submit(s, "gpu-b", "", TASK("t", 1, "", SHOW_GPUS, GPU_LIMITS)), 201);
    char a[128] = "", b[128] = "";
    CHECK(logged(s, "gpu-a-t-0", "CUDA=", a, sizeof a));
    CHECK(logged(s, "gpu-b-t-0", "CUDA=", b, sizeof b));
    printf("# gpu: gpu-a sees CUDA_VISIBLE_DEVICES=%s, gpu-b sees %s\n", a, b);
    CHECK(*a && *b && strcmp(a, b) != 0 && !strchr(a, ',') && !strchr(b, ','));
    long code = 0; /* the devices go back for the CUDA case */
    json_decref(server_request(s, "DELETE", "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs/gpu-a", NULL, NULL,
                               &code));
    json_decref(server_request(s, "DELETE", "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs/gpu-b", NULL, NULL,
                               &code));
}

static void a_cuda_task_sees_only_its_device(void)
{
    const char *why = no_gpu_here();
    SKIP_IF(why, "%s", why);
    SKIP_IF(system("python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null") != 0,
            "no torch with CUDA for python3 on this machine");
    struct test_server *s = started();
    REQUIRE(s);
    CHECK_INT(job_submit(s, "cuda", "", TASK("t", 1, "", CUDA_TASK, GPU_LIMITS)), 201);
    char count[16] = "", sum[16] = "", name[128] = "";
    CHECK(logged(s, "cuda-t-0", "COUNT=", count, sizeof count));
    CHECK(logged(s, "cuda-t-0", "SUM=", sum, sizeof sum));
    CHECK(logged(s, "cuda-t-0", "NAME=", name, sizeof name));
    printf("# gpu: the CUDA task saw %s device(s) (%s) and summed %s on it\n", count, name, sum);
    CHECK_STR(count, "1");
    CHECK_STR(sum, "1000");
    CHECK_INT(job_wait(s, "cuda", "status.state.phase", "Completed", WAIT_MS), 0);
}

static void stop_server(void)
{
    if (!server_up)
        return;
    CHECK_INT(server_stop(&server), 0);
    server_cleanup(&server);
    server_up = false;
}

TEST_MAIN(TEST_CASE(the_node_counts_the_machines_gpus), TEST_CASE(two_jobs_hold_different_devices),
          TEST_CASE(a_cuda_task_sees_only_its_device), TEST_CASE(stop_server))
