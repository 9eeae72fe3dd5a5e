/* JobFlows through a real jobserver (release build), tasks running /bin/true:
 *   flow_step_overhead_ms      - a flow of 1,000 steps in a chain: its wall time (POST until the
 *                                last step's attempt ended) less the steps' own run time (the time
 *                                some step's attempt covers, start to finish, from the history: from its
 *                                process's exec to its exit's collection), per step;
 *   flow_step_overhead_ms_join - the same for 1,000 independent steps under one join;
 *   flow_step_wall_ms[_join]   - the wall time per step, for scale.
 * What remains per step is the flow's and the job's own cost: creating the job through admission,
 * a scheduling cycle, the start, the exit noticed and the next step found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "common/sbuf.h"
#include "tests/lib/bench.h"
#include "tests/lib/bench_server.h"
#include "tests/lib/server.h"

#define STEPS 1000
#define NS "/apis/flow.volcano.sh/v1alpha1/namespaces/default"
#define HISTORY "/apis/caldera.io/v1/namespaces/default/jobs"

static double wall_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec * 1000.0 + (double)tv.tv_usec / 1000.0;
}

static double ms_of(const char *t)
{
    struct tm tm = {0};
    int ms = 0;
    if (!t || sscanf(t, "%d-%d-%dT%d:%d:%d.%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                     &tm.tm_sec, &ms) < 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (double)timegm(&tm) * 1000.0 + ms;
}

static int post(const struct test_server *s, const char *path, const char *body)
{
    long code = 0;
    json_t *answer = server_request(s, "POST", path, body, "application/json", &code);
    if (code != 201)
        fprintf(stderr, "bench_flow: POST %s: %ld %s\n", path, code,
                json_string_value(server_json_at(answer, "message"))
                    ? json_string_value(server_json_at(answer, "message"))
                    : "");
    json_decref(answer);
    return code == 201 ? 0 : -1;
}

static int make_templates(const struct test_server *s)
{
    char body[512], name[16];
    for (int i = 0; i <= STEPS; i++) {
        if (i < STEPS)
            snprintf(name, sizeof name, "t%d", i);
        else
            snprintf(name, sizeof name, "join");
        snprintf(body, sizeof body,
                 "{\"apiVersion\":\"flow.volcano.sh/v1alpha1\",\"kind\":\"JobTemplate\",\"metadata\":{\"name\":\"%s\"},"
                 "\"spec\":{\"tasks\":[{\"name\":\"t\",\"replicas\":1,\"template\":{\"spec\":{\"restartPolicy\":"
                 "\"Never\",\"containers\":[{\"name\":\"c\",\"command\":[\"/bin/true\"]}]}}}]}}",
                 name);
        if (post(s, NS "/jobtemplates", body) != 0)
            return -1;
    }
    return 0;
}

/* chain: t_i after t_(i-1); else every t_i alone, then join after all. */
static char *flow_body(const char *name, bool chain)
{
    struct sbuf b = {0};
    sbuf_printf(&b,
                "{\"apiVersion\":\"flow.volcano.sh/v1alpha1\",\"kind\":\"JobFlow\",\"metadata\":{\"name\":\"%s\"},"
                "\"spec\":{\"flows\":[",
                name);
    for (int i = 0; i < STEPS; i++) {
        sbuf_printf(&b, "%s{\"name\":\"t%d\"", i ? "," : "", i);
        if (chain && i > 0)
            sbuf_printf(&b, ",\"dependsOn\":{\"targets\":[\"t%d\"]}", i - 1);
        sbuf_puts(&b, "}");
    }
    if (!chain) {
        sbuf_puts(&b, ",{\"name\":\"join\",\"dependsOn\":{\"targets\":[");
        for (int i = 0; i < STEPS; i++)
            sbuf_printf(&b, "%s\"t%d\"", i ? "," : "", i);
        sbuf_puts(&b, "]}}");
    }
    sbuf_puts(&b, "]}}");
    return sbuf_take(&b);
}

/* The job's first attempt's start and finish (ms since the epoch). Returns 0, or -1. */
static int attempt_times(const struct test_server *s, const char *job, double *start, double *finish)
{
    char path[256];
    snprintf(path, sizeof path, HISTORY "/%s/history", job);
    json_t *h = server_request(s, "GET", path, NULL, NULL, NULL);
    *start = ms_of(json_string_value(server_json_at(h, "attempts.0.startTime")));
    *finish = ms_of(json_string_value(server_json_at(h, "attempts.0.finishTime")));
    json_decref(h);
    if (*start > 0 && *finish >= *start)
        return 0;
    fprintf(stderr, "bench_flow: no run time for %s\n", job);
    return -1;
}

static int by_start(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The time covered by at least one of n intervals [start, finish]. */
static double covered(double (*iv)[2], int n)
{
    qsort(iv, (size_t)n, sizeof iv[0], by_start);
    double total = 0, from = iv[0][0], to = iv[0][1];
    for (int i = 1; i < n; i++) {
        if (iv[i][0] > to) {
            total += to - from;
            from = iv[i][0];
        }
        if (iv[i][1] > to)
            to = iv[i][1];
    }
    return total + (to - from);
}

/* Runs the flow to Succeed: *overhead (the wall time no step's attempt covers) and *wall, per step,
 * in ms. Returns 0, or -1 after saying why. */
static int run_flow(const struct test_server *s, const char *name, bool chain, double *overhead, double *wall)
{
    static double iv[STEPS + 1][2];
    char *body = flow_body(name, chain);
    char path[256], job[64];
    snprintf(path, sizeof path, NS "/jobflows/%s", name);
    double t0 = wall_ms();
    int rc = body ? post(s, NS "/jobflows", body) : -1;
    free(body);
    if (rc != 0 || server_wait_field(s, path, "status.state.phase", "Succeed", 600000) != 0)
        return -1;
    int steps = chain ? STEPS : STEPS + 1;
    double end = 0;
    for (int i = 0; i < steps; i++) {
        if (i < STEPS)
            snprintf(job, sizeof job, "%s-t%d", name, i);
        else
            snprintf(job, sizeof job, "%s-join", name);
        if (attempt_times(s, job, &iv[i][0], &iv[i][1]) != 0)
            return -1;
        end = iv[i][1] > end ? iv[i][1] : end;
    }
    *overhead = (end - t0 - covered(iv, steps)) / steps;
    *wall = (end - t0) / steps;
    return 0;
}

int main(void)
{
    bool chain = bench_wanted("flow_step_overhead_ms") || bench_wanted("flow_step_wall_ms");
    bool join = bench_wanted("flow_step_overhead_ms_join") || bench_wanted("flow_step_wall_ms_join");
    if (!chain && !join)
        return 0;
    struct bench_server b;
    if (bench_server_start(&b, "flow") != 0)
        return 1;
    int rc = make_templates(&b.s) == 0 ? 0 : 1;
    double overhead, wall;
    if (rc == 0 && chain) {
        if (run_flow(&b.s, "chain", true, &overhead, &wall) != 0)
            rc = 1;
        else {
            bench_report("flow_step_overhead_ms", overhead, "ms");
            bench_report("flow_step_wall_ms", wall, "ms");
        }
    }
    if (rc == 0 && join) {
        if (run_flow(&b.s, "fan", false, &overhead, &wall) != 0)
            rc = 1;
        else {
            bench_report("flow_step_overhead_ms_join", overhead, "ms");
            bench_report("flow_step_wall_ms_join", wall, "ms");
        }
    }
    bench_server_finish(&b);
    return rc;
}
