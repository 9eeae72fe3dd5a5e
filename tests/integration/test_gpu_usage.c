/* GPU usage and waste on a real server sampling the fake libnvidia-ml.so.1 (chosen by
 * CALDERA_NVML_LIBRARY; its utilisation read from a file the test rewrites): while a 2-GPU task runs
 * on a node listing the two devices, /metrics shows them under the DCGM exporter's names with the
 * pod, namespace and container holding them (promtool accepts it); once it ends, its attempt records
 * the peak and mean utilisation and the peak memory the samples showed, the history's usage sets
 * requested against used CPU, memory and GPU (and `jobctl history` prints them), and /metrics shows the finished job's requested and
 * used by resource. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/promtool.h"
#include "tests/lib/fake_nvml_path.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define WAIT_MS 30000
#define NODES "tests/integration/data/gpu-usage-nodes.yaml"
#define MIB 1048576.0

static bool put(const char *path, const char *text) { return write_file_atomic(path, text, strlen(text), 0644) == 0; }

/* Scrapes /metrics until a line holds every one of the needles (NULL-terminated); that line into
 * line, the whole text into *text (caller frees). False when none did in WAIT_MS. */
static bool metrics_line(const struct test_server *s, const char *const *needles, char *line, size_t len, char **text)
{
    for (int waited = 0; waited < WAIT_MS; waited += 50) {
        char *body = server_request_text(s, "GET", "/metrics", NULL);
        for (char *at = body; at && *at;) {
            char *end = strchr(at, '\n');
            size_t n = end ? (size_t)(end - at) : strlen(at);
            bool all = true;
            for (int i = 0; needles[i] && all; i++)
                all = memmem(at, n, needles[i], strlen(needles[i])) != NULL;
            if (all && at[0] != '#') {
                snprintf(line, len, "%.*s", (int)n, at);
                *text = body;
                return true;
            }
            at = end ? end + 1 : at + n;
        }
        free(body);
        usleep(50000);
    }
    return false;
}

static double num(json_t *v, const char *path) { return json_number_value(jv_at(v, path)); }

static void gpu_usage_is_sampled_recorded_and_shown(void)
{
    char lib[PATH_MAX], util[300], go[300];
    REQUIRE(fake_nvml_path(lib, sizeof lib)); /* `make` builds it with this test */
    struct test_server s;
    char dir[] = "/tmp/caldera-gpu-usage-XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(util, sizeof util, "%s/util", dir);
    snprintf(go, sizeof go, "%s/go", dir);
    REQUIRE(put(util, "10,30"));
    char util_env[310];
    snprintf(util_env, sizeof util_env, "@%s", util);
    setenv("CALDERA_NVML_LIBRARY", lib, 1);
    setenv("FAKE_NVML_UTIL", util_env, 1);
    setenv("FAKE_NVML_USED_MIB", "1024,2048", 1);
    static const char *const args[] = {"--nodes", NODES, "--gpu-sample", "100ms", "--shutdown-grace", "2", NULL};
    int started = server_start(&s, dir, args);
    unsetenv("CALDERA_NVML_LIBRARY");
    unsetenv("FAKE_NVML_UTIL");
    unsetenv("FAKE_NVML_USED_MIB");
    REQUIRE(started == 0);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "'while [ ! -e %s ]; do sleep 0.05; done'", go);
    char tasks[2048];
    snprintf(tasks, sizeof tasks,
             TASK("t", 1, "", "%s",
                  "          resources: {requests: {cpu: \"1\", memory: 64Mi}, limits: {memory: 64Mi, nvidia.com/gpu: "
                  "2}}\n"),
             cmd);
    CHECK_INT(job_submit(&s, "usage", "", tasks), 201);
    REQUIRE(job_wait(&s, "usage", "status.running", "1", WAIT_MS) == 0);

    /* the devices under DCGM's names, with the pod that holds them */
    char line[1024], *text = NULL;
    static const char *const held[] = {"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"", "pod=\"usage-t-0\"", NULL};
    REQUIRE(metrics_line(&s, held, line, sizeof line, &text));
    free(text);
    /* a round the running attempt certainly sees: the new figures reach /metrics after it started */
    REQUIRE(put(util, "37,90"));
    static const char *const util0[] = {"DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"", "pod=\"usage-t-0\"", "} 37", NULL};
    REQUIRE(metrics_line(&s, util0, line, sizeof line, &text));
    CHECK_CONTAINS(line, "UUID=\"GPU-11111111-2222-3333-4444-555555555555\"");
    CHECK_CONTAINS(line, "modelName=\"NVIDIA H100 80GB HBM3\"");
    CHECK_CONTAINS(line, "Hostname=\"");
    CHECK_CONTAINS(line, "namespace=\"default\"");
    CHECK_CONTAINS(line, "container=\"c\"");
    CHECK_CONTAINS(text, "pod=\"usage-t-0\",namespace=\"default\",container=\"c\"} 90\n");
    CHECK_CONTAINS(text, "# TYPE DCGM_FI_DEV_FB_USED gauge\n");
    CHECK_CONTAINS(text, "pod=\"usage-t-0\",namespace=\"default\",container=\"c\"} 2048\n");
    CHECK_CONTAINS(text, "pod=\"usage-t-0\",namespace=\"default\",container=\"c\"} 80535\n"); /* FB_FREE */
    int rc = promtool_check(text);
    SKIP_IF(rc < 0, "promtool not installed");
    CHECK_INT(rc, 0);
    free(text);

    REQUIRE(put(go, ""));
    REQUIRE(job_wait(&s, "usage", "status.state.phase", "Completed", WAIT_MS) == 0);
    REQUIRE(history_wait(&s, "usage", "attempts.0.reason", "Completed", WAIT_MS) == 0);
    json_t *h = job_history(&s, "usage");
    json_t *a = jv_at(h, "attempts.0");
    CHECK_INT(jv_num(a, "gpuUtilizationPeakPercent"), 90);
    CHECK(num(a, "gpuMemoryPeakBytes") == 3072 * MIB);
    double mean = num(a, "gpuUtilizationMeanPercent");
    CHECK(mean >= 20.0 && mean <= 63.5); /* rounds of (10 + 30) / 2 and of (37 + 90) / 2 */
    /* requested against used */
    CHECK_INT(jv_num(h, "usage.attempts"), 1);
    CHECK(num(h, "usage.cpu.requestedCoreSeconds") > 0);
    CHECK(num(h, "usage.cpu.usedCoreSeconds") >= 0);
    CHECK(json_is_number(jv_at(h, "usage.cpu.usedFraction")));
    CHECK(num(h, "usage.memory.requestedBytes") == 64 * MIB);
    double gpu_req = num(h, "usage.gpu.requestedGPUSeconds"), gpu_used = num(h, "usage.gpu.usedGPUSeconds");
    CHECK(gpu_req > 0);
    CHECK(fabs(gpu_used - gpu_req * mean / 100.0) < 0.01);
    json_decref(h);
    static const char *const history_args[] = {"history", "usage", NULL};
    char *out = NULL, *err = NULL;
    CHECK_INT(server_jobctl(&s, history_args, &out, &err), 0);
    CHECK_CONTAINS(out, "Usage (requested against used, 1 ended attempt):\n");
    CHECK_CONTAINS(out, "  memory  64 MiB requested, ");
    CHECK_CONTAINS(out, "  gpu     ");
    free(out);
    free(err);

    /* the finished job's requested and used by resource */
    static const char *const mem[] = {"caldera_job_requested{", "name=\"usage\"", "resource=\"memory\"", NULL};
    REQUIRE(metrics_line(&s, mem, line, sizeof line, &text));
    CHECK_CONTAINS(line, "} 67108864.000");
    CHECK_CONTAINS(text, "caldera_job_used{namespace=\"default\",name=\"usage\",queue=\"default\",resource=\"cpu\"}");
    CHECK_CONTAINS(text,
                   "caldera_job_requested{namespace=\"default\",name=\"usage\",queue=\"default\",resource="
                   "\"nvidia.com/gpu\"}");
    /* the devices are free again: no pod label */
    CHECK(strstr(text, "pod=\"usage-t-0\"") == NULL);
    CHECK_INT(promtool_check(text), 0);
    free(text);
    server_stop(&s);
    server_cleanup(&s);
    remove_tree(dir);
}

TEST_MAIN(TEST_CASE(gpu_usage_is_sampled_recorded_and_shown))
