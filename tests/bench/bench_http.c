/* The API under read load, through a real jobserver (release build, --auth) on loopback: wrk (Debian's)
 * with 2 threads and 64 connections GETs one job by name, as its tenant (a bearer token: each request
 * is authenticated and authorized), for BENCH_HTTP_SECONDS (default 10):
 *   http_get_rps     - requests answered a second, over the run;
 *   http_get_p99_ms  - wrk's 99th percentile latency;
 *   http_get_p50_ms  - its median.
 * wrk runs on the same two cores as the server, so the figures are the pair's, not the server's
 * alone. Every answer must be 200 (wrk counts the others as "Non-2xx"): the run fails otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/bench.h"
#include "tests/lib/bench_server.h"
#include "tests/lib/server.h"

#define JOB_PATH "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs"

/* The tenant's token, made with the server's first admin token; "" when it could not be. */
static void tenant_token(const struct test_server *s, char *out, size_t len)
{
    char path[400], *admin = NULL;
    size_t n = 0;
    out[0] = '\0';
    snprintf(path, sizeof path, "%s/admin.token", s->data_dir);
    if (read_file(path, 4096, &admin, &n) != 0)
        return;
    while (n > 0 && (admin[n - 1] == '\n' || admin[n - 1] == ' '))
        admin[--n] = '\0';
    long code;
    json_t *answer = server_request_as(s, admin, "POST", "/apis/caldera.io/v1/tokens",
                                       "{\"user\":\"alice\",\"namespaces\":[\"team-a\"],\"uid\":1001,\"gid\":1001}",
                                       "application/json", &code);
    const char *token = json_string_value(json_object_get(json_object_get(answer, "status"), "token"));
    snprintf(out, len, "%s", code == 201 && token ? token : "");
    json_decref(answer);
    free(admin);
}

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
    const char *const args[] = {"--auth", NULL};
    if (bench_server_start_with(&b, "http", args) != 0)
        return 1;
    char token[128];
    tenant_token(&b.s, token, sizeof token);
    const char *job =
        "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"read-me\"},"
        "\"spec\":{\"tasks\":[{\"name\":\"t\",\"replicas\":4,\"template\":{\"spec\":{\"containers\":"
        "[{\"name\":\"c\",\"command\":[\"sleep\",\"600\"],\"resources\":{\"requests\":"
        "{\"cpu\":\"10m\"}}}]}}}]}}";
    long code = 0;
    if (token[0])
        json_decref(server_request_as(&b.s, token, "POST", JOB_PATH, job, "application/json", &code));
    int status = code == 201 ? 0 : 1;
    for (int i = 0; status == 0 && i < 200; i++) { /* Running: its pods started, as a platform's job reads */
        json_t *got = server_request_as(&b.s, token, "GET", JOB_PATH "/read-me", NULL, NULL, NULL);
        const char *phase = json_string_value(
            json_object_get(json_object_get(json_object_get(got, "status"), "state"), "phase"));
        bool running = phase && strcmp(phase, "Running") == 0;
        json_decref(got);
        if (running)
            break;
        status = i == 199;
        usleep(100 * 1000);
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "wrk -t2 -c64 -d%ss --latency -H 'Authorization: Bearer %s' %s%s/read-me 2>&1", secs,
             token, b.s.url, JOB_PATH);
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
