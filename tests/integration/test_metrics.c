/* Integration tests of GET /metrics on a real server: the exposition's content type and families, a
 * job's pods by phase, its start and finish times, queue weight, capability and allocation, the
 * cycle and HTTP histograms, events committed, bounded HTTP labels, and `promtool check metrics`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/http_client.h"
#include "tests/lib/job_client.h"
#include "tests/lib/promtool.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define WAIT_MS 30000
#define QUEUES "/apis/scheduling.volcano.sh/v1beta1/queues"

/* GET /metrics: the body (caller frees) when the answer is 200, else NULL; *content_type gets its
 * Content-Type. */
static char *scrape(const struct test_server *s, char *content_type, size_t len)
{
    char url[128], err[256];
    snprintf(url, sizeof url, "%s/metrics", s->url);
    struct http_request req = {.method = "GET", .url = url};
    struct http_response resp = {0};
    if (http_do(&req, &resp, err, sizeof err) != 0) {
        test_fail(__FILE__, __LINE__, "GET /metrics: %s", err);
        return NULL;
    }
    if (content_type)
        snprintf(content_type, len, "%s", resp.content_type);
    char *body = resp.code == 200 ? resp.body : NULL;
    if (resp.code != 200) {
        test_fail(__FILE__, __LINE__, "GET /metrics: HTTP %ld: %s", resp.code, resp.body);
        http_response_free(&resp);
    }
    return body;
}

/* The value of the sample whose name and labels are exactly `series` (`name{a="b"}`), NAN when the
 * exposition has no such line. */
static double sample(const char *text, const char *series)
{
    size_t n = strlen(series);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, series, n) == 0 && line[n] == ' ')
            return strtod(line + n + 1, NULL);
    return NAN;
}

/* Polls /metrics until series reads want (at most WAIT_MS); returns the last scrape (caller frees). */
static char *scrape_until(const struct test_server *s, const char *series, double want)
{
    char *text = NULL;
    for (int waited = 0; waited < WAIT_MS; waited += 50) {
        free(text);
        text = scrape(s, NULL, 0);
        if (!text || sample(text, series) == want)
            return text;
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    test_fail(__FILE__, __LINE__, "%s never read %g (last %g)", series, want, text ? sample(text, series) : NAN);
    return text;
}

/* Every sample's family has a HELP and a TYPE line before it (histogram samples belong to the name
 * without _bucket, _sum or _count). Returns how many samples lack them. */
static int samples_without_headers(const char *text)
{
    int missing = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > 0 && line[0] != '#') {
            char name[128];
            size_t k = strcspn(line, "{ ");
            snprintf(name, sizeof name, "%.*s", (int)(k < sizeof name ? k : sizeof name - 1), line);
            char help[160], type[160], family[128];
            snprintf(family, sizeof family, "%s", name);
            for (const char *suffix = "_bucket\0_sum\0_count\0"; *suffix; suffix += strlen(suffix) + 1) {
                size_t fl = strlen(family), sl = strlen(suffix);
                char t[200];
                snprintf(t, sizeof t, "\n# TYPE %.*s histogram\n", (int)(fl - sl), family);
                if (fl > sl && strcmp(family + fl - sl, suffix) == 0 && strstr(text, t)) {
                    family[fl - sl] = '\0';
                    break;
                }
            }
            snprintf(help, sizeof help, "# HELP %s ", family);
            snprintf(type, sizeof type, "# TYPE %s ", family);
            const char *h = strstr(text, help), *ty = strstr(text, type);
            if (!h || !ty || h > line || ty > line) {
                fprintf(stderr, "no HELP or TYPE before: %.*s\n", (int)len, line);
                missing++;
            }
        }
        line += len + (end ? 1 : 0);
    }
    return missing;
}

/* A job whose task `done` (2 replicas) succeeds at once while task `hold` (1 replica, 250m cpu,
 * 32Mi) runs until the file `go` appears in the data directory. */
static long submit_held_job(const struct test_server *s, const char *name)
{
    char tasks[2048];
    snprintf(tasks, sizeof tasks,
             TASK("done", 2, "", "'true'", "")
             "  - name: hold\n    replicas: 1\n    template:\n      spec:\n        terminationGracePeriodSeconds: 1\n"
             "        containers:\n        - name: c\n"
             "          command: [sh, -c, 'while [ ! -e %s/go ]; do sleep 0.05; done']\n"
             "          resources: {requests: {cpu: 250m, memory: 32Mi}}\n",
             s->data_dir);
    return job_submit(s, name, "  minAvailable: 1\n", tasks);
}

static void metrics_follow_a_job_from_running_to_completed(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    double before = (double)time(NULL);
    REQUIRE(submit_held_job(&s, "m1") == 201);

    const char *succeeded = "caldera_pods{queue=\"default\",namespace=\"default\",phase=\"Succeeded\"}";
    char *text = scrape_until(&s, succeeded, 2);
    REQUIRE(text);
    CHECK(sample(text, succeeded) == 2);
    CHECK(sample(text, "caldera_pods{queue=\"default\",namespace=\"default\",phase=\"Running\"}") == 1);
    CHECK(sample(text, "caldera_pods{queue=\"default\",namespace=\"default\",phase=\"Failed\"}") == 0);
    CHECK(sample(text, "caldera_queue_weight{queue=\"default\"}") == 1);
    CHECK(sample(text, "caldera_queue_state{queue=\"default\",state=\"Open\"}") == 1);
    CHECK(sample(text, "caldera_queue_state{queue=\"default\",state=\"Closed\"}") == 0);
    CHECK(sample(text, "caldera_queue_jobs{queue=\"default\",phase=\"Running\"}") == 1);
    CHECK(sample(text, "caldera_queue_jobs{queue=\"default\",phase=\"Pending\"}") == 0);
    /* only the held replica holds a place now: 250m and 32Mi */
    CHECK(sample(text, "caldera_queue_allocated{queue=\"default\",resource=\"cpu\",unit=\"core\"}") == 0.25);
    CHECK(sample(text, "caldera_queue_allocated{queue=\"default\",resource=\"memory\",unit=\"byte\"}") == 33554432);
    CHECK(sample(text, "caldera_queue_deserved{queue=\"default\",resource=\"cpu\",unit=\"core\"}") >= 0.25);
    const char *start = "caldera_job_start_timestamp_seconds{namespace=\"default\",name=\"m1\",queue=\"default\"}";
    const char *finish = "caldera_job_finish_timestamp_seconds{namespace=\"default\",name=\"m1\",queue=\"default\"}";
    CHECK(sample(text, start) >= before - 1 && sample(text, start) <= (double)time(NULL) + 1);
    CHECK(isnan(sample(text, finish))); /* not finished yet */
    CHECK(sample(text, "caldera_scheduler_cycle_duration_seconds_count") > 0);
    CHECK(sample(text, "caldera_scheduler_cycle_duration_seconds_bucket{le=\"+Inf\"}") ==
          sample(text, "caldera_scheduler_cycle_duration_seconds_count"));
    CHECK(sample(text, "caldera_http_request_duration_seconds_count{method=\"POST\",code=\"201\"}") >= 1);
    CHECK(sample(text, "caldera_events_committed_total") > 0);
    CHECK(sample(text, "caldera_websocket_subscribers") == 0);
    CHECK_INT(samples_without_headers(text), 0);
    double events = sample(text, "caldera_events_committed_total");
    free(text);

    /* The held task ends: the job completes and keeps its times; its pods leave the live count. */
    char go[300];
    snprintf(go, sizeof go, "%s/go", s.data_dir);
    FILE *f = fopen(go, "w");
    REQUIRE(f);
    fclose(f);
    REQUIRE(job_wait(&s, "m1", "status.state.phase", "Completed", WAIT_MS) == 0);
    text = scrape_until(&s, "caldera_queue_jobs{queue=\"default\",phase=\"Running\"}", 0);
    REQUIRE(text);
    CHECK(sample(text, finish) >= sample(text, start));
    CHECK(sample(text, finish) <= (double)time(NULL) + 1);
    CHECK(sample(text, "caldera_queue_allocated{queue=\"default\",resource=\"cpu\",unit=\"core\"}") == 0);
    CHECK(isnan(sample(text, succeeded)) || sample(text, succeeded) == 0);
    CHECK(sample(text, "caldera_events_committed_total") > events);
    free(text);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void metrics_are_prometheus_text_and_pass_promtool(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    REQUIRE(submit_held_job(&s, "m2") == 201);
    char *text = scrape_until(&s, "caldera_pods{queue=\"default\",namespace=\"default\",phase=\"Running\"}", 1);
    free(text);
    char content_type[128] = "";
    text = scrape(&s, content_type, sizeof content_type);
    REQUIRE(text);
    CHECK_STR(content_type, "text/plain; version=0.0.4; charset=utf-8");
    CHECK_INT(samples_without_headers(text), 0);
    int rc = promtool_check(text);
    if (rc < 0)
        test_skip("promtool is not installed (Debian package prometheus): the exposition was not linted");
    else
        CHECK_INT(rc, 0);
    free(text);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void queue_capability_and_weight_are_exported(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    long code;
    json_t *r = server_request(&s, "POST", QUEUES,
                               "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: research}\n"
                               "spec:\n  weight: 3\n  capability: {cpu: 1500m, memory: 2Gi}\n",
                               "application/yaml", &code);
    json_decref(r);
    REQUIRE(code == 201);
    char *text = scrape(&s, NULL, 0);
    REQUIRE(text);
    CHECK(sample(text, "caldera_queue_weight{queue=\"research\"}") == 3);
    CHECK(sample(text, "caldera_queue_capability{queue=\"research\",resource=\"cpu\",unit=\"core\"}") == 1.5);
    CHECK(sample(text, "caldera_queue_capability{queue=\"research\",resource=\"memory\",unit=\"byte\"}") ==
          2147483648.0);
    /* a resource the capability does not name is unlimited: no sample rather than a 0 */
    CHECK(isnan(sample(text, "caldera_queue_capability{queue=\"research\",resource=\"pods\",unit=\"integer\"}")));
    CHECK(isnan(sample(text, "caldera_queue_capability{queue=\"default\",resource=\"cpu\",unit=\"core\"}")));
    CHECK(sample(text, "caldera_queue_jobs{queue=\"research\",phase=\"Pending\"}") == 0);
    free(text);

    r = server_request(&s, "POST", "/apis/caldera.io/v1/queues/research/close", NULL, NULL, &code);
    json_decref(r);
    CHECK_INT(code, 200);
    text = scrape(&s, NULL, 0);
    REQUIRE(text);
    CHECK(sample(text, "caldera_queue_state{queue=\"research\",state=\"Closed\"}") == 1);
    CHECK(sample(text, "caldera_queue_state{queue=\"research\",state=\"Open\"}") == 0);
    free(text);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void http_latency_is_labelled_by_method_and_code_never_by_path(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    char *text = scrape(&s, NULL, 0);
    REQUIRE(text);
    double before = sample(text, "caldera_http_request_duration_seconds_count{method=\"GET\",code=\"404\"}");
    free(text);
    if (isnan(before))
        before = 0;
    for (int i = 0; i < 20; i++) {
        char path[128];
        long code;
        snprintf(path, sizeof path, JOBS "/nothing-%d", i);
        json_decref(server_request(&s, "GET", path, NULL, NULL, &code));
        CHECK_INT(code, 404);
    }
    long code;
    json_decref(server_request(&s, "PATCH", "/healthz", "{}", NULL, &code));
    CHECK_INT(code, 405);
    text = scrape(&s, NULL, 0);
    REQUIRE(text);
    CHECK(sample(text, "caldera_http_request_duration_seconds_count{method=\"GET\",code=\"404\"}") == before + 20);
    CHECK(sample(text, "caldera_http_request_duration_seconds_count{method=\"PATCH\",code=\"405\"}") == 1);
    CHECK(!strstr(text, "nothing-")); /* no path in any label */
    free(text);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(metrics_follow_a_job_from_running_to_completed),
          TEST_CASE(metrics_are_prometheus_text_and_pass_promtool), TEST_CASE(queue_capability_and_weight_are_exported),
          TEST_CASE(http_latency_is_labelled_by_method_and_code_never_by_path))
