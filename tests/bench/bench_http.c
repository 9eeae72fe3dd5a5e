/* The API under read load, through a real jobserver (release build) on loopback: wrk (Debian's) with
 * 2 threads and 64 connections GETs one job by name for BENCH_HTTP_SECONDS (default 10):
 *   http_get_rps     - requests answered a second, over the run;
 *   http_get_p99_ms  - wrk's 99th percentile latency;
 *   http_get_p50_ms  - its median.
 * wrk runs on the same two cores as the server, so the figures are the pair's, not the server's
 * alone. Every answer must be 200 (wrk counts the others as "Non-2xx"): the run fails otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/bench.h"
#include "tests/lib/bench_server.h"
#include "tests/lib/server.h"

#define JOB_PATH "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"

/* "2.10ms", "850.00us", "1.02s" in milliseconds; -1 when it is not a latency. */
static double latency_ms(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text)
        return -1;
    if (strncmp(end, "us", 2) == 0)
        return v / 1000;
    if (strncmp(end, "ms", 2) == 0)
        return v;
    if (*end == 's')
        return v * 1000;
    return -1;
}

struct wrk_result {
    double rps, p50_ms, p99_ms;
    long non_2xx, errors;
};

/* Reads wrk --latency's report. */
static int parse_wrk(FILE *out, struct wrk_result *r)
{
    *r = (struct wrk_result){-1, -1, -1, 0, 0};
    char line[512];
    while (fgets(line, sizeof line, out)) {
        char *p = line + strspn(line, " \t");
        double v;
        char unit[32];
        if (sscanf(p, "Requests/sec: %lf", &v) == 1)
            r->rps = v;
        else if (sscanf(p, "50%% %31s", unit) == 1)
            r->p50_ms = latency_ms(unit);
        else if (sscanf(p, "99%% %31s", unit) == 1)
            r->p99_ms = latency_ms(unit);
        else if (sscanf(p, "Non-2xx or 3xx responses: %ld", &r->non_2xx) == 1)
            continue;
        else if (strncmp(p, "Socket errors:", 14) == 0)
            r->errors++;
    }
    return r->rps > 0 && r->p99_ms > 0 ? 0 : -1;
}

int main(void)
{
    if (!bench_wanted("http_get_rps") && !bench_wanted("http_get_p99_ms") && !bench_wanted("http_get_p50_ms"))
        return 0;
    if (system("command -v wrk >/dev/null") != 0) {
        fprintf(stderr, "bench_http: wrk is not installed (apt-get install wrk)\n");
        return 1;
    }
    const char *secs = getenv("BENCH_HTTP_SECONDS") ? getenv("BENCH_HTTP_SECONDS") : "10";
    struct bench_server b;
    if (bench_server_start(&b, "http") != 0)
        return 1;
    const char *job = "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"read-me\"},"
                      "\"spec\":{\"tasks\":[{\"name\":\"t\",\"replicas\":4,\"template\":{\"spec\":{\"containers\":"
                      "[{\"name\":\"c\",\"command\":[\"sleep\",\"600\"],\"resources\":{\"requests\":"
                      "{\"cpu\":\"10m\"}}}]}}}]}}";
    long code;
    json_decref(server_request(&b.s, "POST", JOB_PATH, job, "application/json", &code));
    int status = code == 201 && server_wait_field(&b.s, JOB_PATH "/read-me", "status.state.phase", "Running",
                                                   20000) == 0 ? 0 : 1;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "wrk -t2 -c64 -d%ss --latency %s%s/read-me 2>&1", secs, b.s.url, JOB_PATH);
    FILE *out = status == 0 ? popen(cmd, "r") : NULL;
    struct wrk_result r;
    if (!out || parse_wrk(out, &r) != 0 || r.non_2xx > 0 || r.errors > 0) {
        fprintf(stderr, "bench_http: wrk did not measure a clean run (%ld non-2xx answers, %ld socket error lines)\n",
                out ? r.non_2xx : 0L, out ? r.errors : 0L);
        status = 1;
    } else {
        bench_report("http_get_rps", r.rps, "req/s");
        bench_report("http_get_p50_ms", r.p50_ms, "ms");
        bench_report("http_get_p99_ms", r.p99_ms, "ms");
    }
    if (out)
        pclose(out);
    bench_server_finish(&b);
    return status;
}
