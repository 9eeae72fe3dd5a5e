/* How soon a debug session's notebook answers, through a real jobserver (release build) on loopback:
 *   companion_ready_s      - from the POST of a DebugSession (cpu 1) with companion jupyter until its
 *                            Companion reads Ready (polled every 50 ms), in seconds; the median of RUNS
 *                            sessions, each deleted, and its Jupyter gone, before the next is posted;
 *   companion_ready_100m_s - the same for sessions of cpu 100m: a companion runs in its task's cgroup,
 *                            under the session's CPU quota, and Jupyter's start is CPU-bound (about
 *                            0.4 s of CPU on this machine), so a tenth of a core makes it ~10x slower.
 * Jupyter is Debian's jupyter-notebook 6.4; Ready means its api/status answered the server's probe
 * (every 200 ms). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/bench.h"
#include "tests/lib/bench_server.h"
#include "tests/lib/server.h"

#define RUNS 3
#define READY_TIMEOUT_S 120.0
#define SESSIONS "/apis/caldera.io/v1/namespaces/default/debugsessions"
#define COMPANIONS "/apis/caldera.io/v1/namespaces/default/companions"

/* The companion's phase ("" when it does not exist yet), in buf; its reason and message go to stderr
 * when it Failed. */
static const char *phase_of(const struct test_server *s, const char *name, char *buf, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, COMPANIONS "/%s", name);
    long code = 0;
    json_t *c = server_request(s, "GET", path, NULL, NULL, &code);
    const char *phase = json_string_value(server_json_at(c, "status.phase"));
    snprintf(buf, len, "%s", code == 200 && phase ? phase : "");
    if (strcmp(buf, "Failed") == 0)
        fprintf(stderr, "bench_companions: %s Failed: %s: %s\n", name,
                json_string_value(server_json_at(c, "status.reason")),
                json_string_value(server_json_at(c, "status.message")));
    json_decref(c);
    return buf;
}

/* One session: seconds from its POST until its jupyter is Ready, or -1 (after saying why). */
static double one_run(const struct test_server *s, const char *cpu, int run)
{
    char name[64], body[512], companion[96], phase[32];
    snprintf(name, sizeof name, "bench-%s-%d", cpu, run);
    snprintf(companion, sizeof companion, "%s-jupyter", name);
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"caldera.io/v1\",\"kind\":\"DebugSession\",\"metadata\":{\"name\":\"%s\"},"
             "\"spec\":{\"resources\":{\"cpu\":\"%s\",\"memory\":\"1Gi\"},\"companions\":[\"jupyter\"],"
             "\"duration\":\"10m\"}}",
             name, cpu);
    double t0 = bench_now(), elapsed = -1;
    long code = 0;
    json_decref(server_request(s, "POST", SESSIONS, body, "application/json", &code));
    if (code != 201) {
        fprintf(stderr, "bench_companions: POST of the session answered %ld\n", code);
        return -1;
    }
    while (bench_now() - t0 < READY_TIMEOUT_S) {
        phase_of(s, companion, phase, sizeof phase);
        if (strcmp(phase, "Ready") == 0) {
            elapsed = bench_now() - t0;
            break;
        }
        if (strcmp(phase, "Failed") == 0)
            break;
        usleep(50 * 1000);
    }
    if (elapsed < 0)
        fprintf(stderr, "bench_companions: %s was not Ready within %.0f s (last phase \"%s\")\n", companion,
                READY_TIMEOUT_S, phase);
    char path[256];
    snprintf(path, sizeof path, SESSIONS "/%s", name);
    json_decref(server_request(s, "DELETE", path, NULL, NULL, NULL));
    /* the next run starts with no Jupyter left running */
    for (double t1 = bench_now(); bench_now() - t1 < 30 && *phase_of(s, companion, phase, sizeof phase);)
        usleep(100 * 1000);
    return elapsed;
}

/* One figure: the median of RUNS sessions of cpu. Returns 0, or 1 when a session's Jupyter was never
 * Ready. */
static int figure(const struct test_server *s, const char *name, const char *cpu)
{
    double runs[RUNS];
    for (int i = 0; i < RUNS; i++) {
        runs[i] = one_run(s, cpu, i);
        if (runs[i] < 0)
            return 1;
        fprintf(stderr, "bench_companions: %s run %d: %.3f s\n", name, i + 1, runs[i]);
    }
    bench_report(name, bench_median(runs, RUNS), "s");
    return 0;
}

int main(void)
{
    bool fast = bench_wanted("companion_ready_s"), small = bench_wanted("companion_ready_100m_s");
    if (!fast && !small)
        return 0;
    if (system("command -v jupyter-notebook >/dev/null 2>&1") != 0) {
        fprintf(stderr, "bench_companions: jupyter-notebook is not installed; companion_ready_s skipped\n");
        return 0;
    }
    struct bench_server b;
    const char *const args[] = {"--companion-ports", "43900-43999", NULL};
    if (bench_server_start_with(&b, "companions", args) != 0)
        return 1;
    int status = 0;
    if (fast)
        status |= figure(&b.s, "companion_ready_s", "1");
    if (small && status == 0)
        status |= figure(&b.s, "companion_ready_100m_s", "100m");
    bench_server_finish(&b);
    return status;
}
