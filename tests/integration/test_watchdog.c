/* The WatchDog against a webhook receiver on 127.0.0.1: a job's finish and failure (reason, failing
 * pod, exit code) in each format, routing by annotation, a pending job noticed, a receiver that is down
 * retried and then counted failed in /metrics (lint-clean), queue capability percentages following the
 * node's GPUs (the fake NVML's count file: a GPU gone leaves the allocatable), and a waste notice. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/fake_nvml_path.h"
#include "tests/lib/job_client.h"
#include "tests/lib/promtool.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"
#include "tests/lib/webhook_receiver.h"

#define WAIT_MS 20000
#define QUEUE "/apis/scheduling.volcano.sh/v1beta1/queues/default"

static bool put(const char *path, const char *text) { return write_file_atomic(path, text, strlen(text), 0644) == 0; }

/* Writes the WatchDog file into dir/watchdog.yaml (its path into path) and starts a server with it
 * and extra args. */
static int start_with(struct test_server *s, char *dir, const char *yaml, const char *const *more)
{
    char path[512];
    snprintf(path, sizeof path, "%s/watchdog.yaml", dir);
    if (!put(path, yaml))
        return -1;
    const char *args[16] = {"--watchdog", path, "--shutdown-grace", "2", "--schedule-period", "200"};
    int n = 6;
    for (int i = 0; more && more[i] && n < 15; i++)
        args[n++] = more[i];
    args[n] = NULL;
    return server_start(s, NULL, args);
}

/* The sample of /metrics family name for webhook w, -1 when none. */
static long long metric(const struct test_server *s, const char *name, const char *w)
{
    char *text = server_request_text(s, "GET", "/metrics", NULL);
    char want[256];
    snprintf(want, sizeof want, "\n%s{webhook=\"%s\"} ", name, w);
    const char *at = text ? strstr(text, want) : NULL;
    long long v = at ? atoll(at + strlen(want)) : -1;
    free(text);
    return v;
}

static bool metric_reaches(const struct test_server *s, const char *name, const char *w, long long want)
{
    for (int waited = 0; waited < WAIT_MS; waited += 100) {
        if (metric(s, name, w) >= want)
            return true;
        usleep(100000);
    }
    fprintf(stderr, "%s{webhook=\"%s\"} stayed at %lld, below %lld\n", name, w, metric(s, name, w), want);
    return false;
}

static void finish_and_failure_are_told(void)
{
    struct webhook_receiver r;
    REQUIRE(receiver_start(&r) == 0);
    int dead = receiver_dead_port();
    REQUIRE(dead > 0);
    char dir[] = "/tmp/caldera-dog-XXXXXX", yaml[2048];
    REQUIRE(mkdtemp(dir));
    snprintf(yaml, sizeof yaml,
             "webhooks:\n"
             "  - {name: plain, url: \"http://127.0.0.1:%d/plain\"}\n"
             "  - {name: chat, url: \"http://127.0.0.1:%d/slack\", format: slack}\n"
             "  - {name: lark, url: \"http://127.0.0.1:%d/lark\", format: lark}\n"
             "  - {name: down, url: \"http://127.0.0.1:%d/down\"}\n"
             "routes:\n"
             "  - {namespace: default, webhooks: [plain]}\n"
             "  - {namespace: default, webhooks: [chat, down], notify: [Failed]}\n"
             "  - {namespace: elsewhere, webhooks: [lark]}\n"
             "pendingTimeout: 1s\n"
             "delivery: {attempts: 3, backoff: 100ms, timeout: 2s}\n",
             r.port, r.port, r.port, dead);
    struct test_server s;
    REQUIRE(start_with(&s, dir, yaml, NULL) == 0);
    CHECK_INT(job_submit(&s, "fine", "", TASK("t", 1, "", "'true'", "")), 201);
    CHECK_INT(job_submit(&s, "broken", "", TASK("t", 1, "", "'exit 3'", "")), 201);
    /* the annotation replaces the routes: lark only, or nothing */
    CHECK_INT(job_submit(&s, "routed, annotations: {caldera.io/notify: lark}", "", TASK("t", 1, "", "'true'", "")),
              201);
    CHECK_INT(job_submit(&s, "quiet, annotations: {caldera.io/notify: none}", "", TASK("t", 1, "", "'exit 4'", "")),
              201);
    CHECK_INT(
        job_submit(&s, "huge", "", TASK("t", 1, "", "'true'", "          resources: {requests: {cpu: \"100000\"}}\n")),
        201);
    char *body = receiver_wait(&r, "/plain", (const char *const[]){"\"event\":\"Completed\"", "\"job\":\"fine\"", NULL},
                               WAIT_MS);
    CHECK(body != NULL);
    if (body) {
        json_t *j = json_loads(body, 0, NULL);
        CHECK_STR(jv_str(j, "namespace"), "default");
        CHECK_STR(jv_str(j, "phase"), "Completed");
        CHECK(jv_str(j, "user") && *jv_str(j, "user")); /* who posted it */
        CHECK(jv_str(j, "creationTimestamp") && jv_str(j, "completionTime"));
        CHECK(json_is_null(json_object_get(j, "exitCode")));
        json_decref(j);
    }
    free(body);
    body = receiver_wait(&r, "/plain", (const char *const[]){"\"event\":\"Failed\"", "\"job\":\"broken\"", NULL},
                         WAIT_MS);
    CHECK(body != NULL);
    if (body) {
        json_t *j = json_loads(body, 0, NULL);
        CHECK_INT(jv_num(j, "exitCode"), 3);
        CHECK_STR(jv_str(j, "pod"), "broken-t-0");
        CHECK_STR(jv_str(j, "phase"), "Failed");
        CHECK(jv_str(j, "reason") && *jv_str(j, "reason"));
        json_decref(j);
    }
    free(body);
    body = receiver_wait(&r, "/slack", (const char *const[]){"Job default/broken Failed", "exit code 3", NULL},
                         WAIT_MS);
    CHECK(body != NULL);
    if (body)
        CHECK(strncmp(body, "{\"text\":", 8) == 0);
    free(body);
    body = receiver_wait(&r, "/lark",
                         (const char *const[]){"\"msg_type\":\"text\"", "Job default/routed Completed", NULL}, WAIT_MS);
    CHECK(body != NULL);
    free(body);
    body = receiver_wait(&r, "/plain", (const char *const[]){"\"event\":\"PendingTooLong\"", "\"job\":\"huge\"", NULL},
                         WAIT_MS);
    CHECK(body != NULL);
    free(body);
    /* the receiver that is down: tried three times, then counted failed; never silently lost */
    CHECK(metric_reaches(&s, "caldera_watchdog_notifications_failed_total", "down", 1));
    CHECK(metric(&s, "caldera_watchdog_notifications_retries_total", "down") >= 2);
    CHECK(metric(&s, "caldera_watchdog_notifications_sent_total", "plain") >= 3);
    CHECK_INT(metric(&s, "caldera_watchdog_notifications_dropped_total", "plain"), 0);
    CHECK_INT(metric(&s, "caldera_watchdog_notifications_queued", "chat"), 0);
    REQUIRE(job_wait(&s, "quiet", "status.state.phase", "Failed", WAIT_MS) == 0);
    /* routed and quiet went nowhere the routes say */
    CHECK_INT(receiver_count(&r, "/plain", "\"job\":\"routed\""), 0);
    CHECK_INT(receiver_count(&r, "/plain", "\"job\":\"quiet\""), 0);
    CHECK_INT(receiver_count(&r, "/slack", "default/quiet"), 0);
    char *text = server_request_text(&s, "GET", "/metrics", NULL);
    REQUIRE(text);
    CHECK_CONTAINS(text, "# TYPE caldera_watchdog_notifications_sent_total counter\n");
    CHECK_CONTAINS(text, "# HELP caldera_watchdog_notifications_queued ");
    int rc = promtool_check(text);
    free(text);
    if (rc >= 0)
        CHECK_INT(rc, 0);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
    receiver_stop(&r);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}

/* Waits for the default queue's spec.capability[resource] to read want. */
static bool capability_reads(const struct test_server *s, const char *resource, const char *want)
{
    const char *seen = NULL;
    for (int waited = 0; waited < WAIT_MS; waited += 100) {
        long code;
        json_t *q = server_request(s, "GET", QUEUE, NULL, NULL, &code);
        seen = json_string_value(json_object_get(jv_at(q, "spec.capability"), resource));
        bool ok = seen && strcmp(seen, want) == 0;
        json_decref(q);
        if (ok)
            return true;
        usleep(100000);
    }
    fprintf(stderr, "queue default's capability %s never read %s\n", resource, want);
    return false;
}

/* The default node's GPUs come and go (the fake NVML's count, looked at again every 100 ms): the
 * default queue's capability follows them, each change a Normal Event on the Queue. A running job
 * that idles gets a waste notice. */
static void capability_follows_gpus_and_waste_is_told(void)
{
    char lib[PATH_MAX], count[] = "/tmp/caldera-count-XXXXXX";
    REQUIRE(fake_nvml_path(lib, sizeof lib)); /* `make` builds it with this test */
    int fd = mkstemp(count);
    REQUIRE(fd >= 0);
    close(fd);
    REQUIRE(put(count, "2"));
    char count_env[64];
    snprintf(count_env, sizeof count_env, "@%s", count);
    struct webhook_receiver r;
    REQUIRE(receiver_start(&r) == 0);
    char dir[] = "/tmp/caldera-dog-XXXXXX", yaml[1024];
    REQUIRE(mkdtemp(dir));
    snprintf(yaml, sizeof yaml,
             "webhooks: [{name: plain, url: \"http://127.0.0.1:%d/plain\"}]\n"
             "routes: [{webhooks: [plain], notify: [Waste]}]\n"
             "queues:\n"
             "  - name: default\n"
             "    capabilityPercent: {memory: 50, nvidia.com/gpu: 100}\n"
             "waste: {fraction: 0.5, period: 1s}\n",
             r.port);
    setenv("CALDERA_NVML_LIBRARY", lib, 1);
    setenv("FAKE_NVML_COUNT", count_env, 1);
    struct test_server s;
    int started = start_with(&s, dir, yaml, (const char *const[]){"--gpu-recheck", "100ms", NULL});
    unsetenv("CALDERA_NVML_LIBRARY");
    unsetenv("FAKE_NVML_COUNT");
    REQUIRE(started == 0);
    char type[16], message[1024];
    CHECK(capability_reads(&s, "nvidia.com/gpu", "2"));
    CHECK(event_wait(&s, "default", "CapabilityUpdated", "nvidia.com/gpu unset -> 2 (100% of 2)", type, message,
                     sizeof message, WAIT_MS));
    CHECK_STR(type, "Normal");
    CHECK_CONTAINS(message, "memory unset -> ");
    /* a GPU leaves the driver: the node's allocatable is 1, and so is the queue's capability */
    REQUIRE(put(count, "1"));
    CHECK(capability_reads(&s, "nvidia.com/gpu", "1"));
    CHECK(event_wait(&s, "default", "CapabilityUpdated", "nvidia.com/gpu 2 -> 1 (100% of 1)", type, message,
                     sizeof message, WAIT_MS));
    CHECK_STR(type, "Normal");
    CHECK(strstr(message, "memory") == NULL); /* memory did not change */
    /* back again */
    REQUIRE(put(count, "2"));
    CHECK(capability_reads(&s, "nvidia.com/gpu", "2"));
    /* a job that sleeps on its request of one CPU: under half of it for a period */
    CHECK_INT(job_submit(&s, "idle", "",
                         TASK("t", 1, "", "'sleep 300'",
                              "          resources: {requests: {cpu: \"1\", memory: 64Mi}, limits: {memory: 64Mi}}\n")),
              201);
    REQUIRE(job_wait(&s, "idle", "status.state.phase", "Running", WAIT_MS) == 0);
    CHECK(event_wait(&s, "idle", "ResourceWaste", "cpu: requested 1, used", type, message, sizeof message, WAIT_MS));
    CHECK_STR(type, "Warning");
    CHECK_CONTAINS(message, "under 50% of its request");
    char *body = receiver_wait(
        &r, "/plain", (const char *const[]){"\"event\":\"Waste\"", "\"job\":\"idle\"", "cpu: requested 1, used", NULL},
        WAIT_MS);
    CHECK(body != NULL);
    free(body);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
    receiver_stop(&r);
    unlink(count);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK_INT(system(cmd), 0);
}

TEST_MAIN(TEST_CASE(finish_and_failure_are_told), TEST_CASE(capability_follows_gpus_and_waste_is_told))
