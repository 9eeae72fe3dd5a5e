/* A soak: a jobserver under a steady mixed load for SOAK_SECONDS (default 600), its resident memory
 * sampled every 10 s. The load: jobs submitted and finished without end (ttlSecondsAfterFinished
 * removes them, --history-retention prunes their history), GETs and lists, watches and WebSocket
 * subscribers that come and go, events listed. Figures:
 *   soak_rss_start_mib   - resident memory once warmed up (the sample at a tenth of the run);
 *   soak_rss_end_mib     - at the end;
 *   soak_rss_growth_pct  - end over start, in percent;
 *   soak_rss_growth_second_half_pct - the end over the middle sample: once the hub's window of
 *                          changes (--watch-cache-size, 64 MiB of text) is full, memory stays flat;
 *   soak_rss_growth_last_third_pct - the end over the sample at two thirds of the run: with the
 *                          default window full by then (about 320 s of this load), what would be a
 *                          leak (the log shows each sample beside caldera_watch_cache_bytes);
 *   soak_jobs            - jobs that ran to completion during the soak;
 *   soak_sanitizer_reports - with SOAK_ASAN=1 the server is the ASan+UBSan build, and this counts
 *                          the reports in its log after a clean stop (leaks included): 0 is clean.
 * Only `make bench ONLY=soak` runs it: it takes SOAK_SECONDS. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/bench.h"
#include "tests/lib/bench_server.h"
#include "tests/lib/server.h"
#include "tests/lib/watch_client.h"
#include "tests/lib/ws_client.h"
#include "tests/lib/proc_stats.h"

#define JOBS_PATH "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define SAMPLE_S 10
#define MAX_SAMPLES 4096

static const struct test_server *server;
static atomic_bool stopping;
static atomic_long jobs_done, requests_done;

/* Jobs without end: a few at a time, each 3 short pods, gone 2 s after finishing. */
static void *submitter(void *arg)
{
    (void)arg;
    for (long i = 0; !atomic_load(&stopping); i++) {
        char body[640];
        snprintf(body, sizeof body,
                 "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"soak-%ld\"},"
                 "\"spec\":{\"ttlSecondsAfterFinished\":2,\"tasks\":[{\"name\":\"t\",\"replicas\":3,\"template\":"
                 "{\"spec\":{\"containers\":[{\"name\":\"c\",\"command\":[\"sh\",\"-c\",\"echo soak $VC_TASK_INDEX\"],"
                 "\"resources\":{\"requests\":{\"cpu\":\"10m\"}}}]}}}]}}",
                 i);
        long code;
        json_decref(server_request(server, "POST", JOBS_PATH, body, "application/json", &code));
        char path[256];
        snprintf(path, sizeof path, JOBS_PATH "/soak-%ld", i);
        if (code == 201 && server_wait_field(server, path, "status.state.phase", "Completed", 30000) == 0)
            atomic_fetch_add(&jobs_done, 1);
        usleep(100 * 1000);
    }
    return NULL;
}

/* Reads: jobs, pods, events, history, metrics, over and over. */
static void *reader(void *arg)
{
    (void)arg;
    const char *paths[] = {JOBS_PATH,
                           "/api/v1/namespaces/default/pods",
                           "/api/v1/namespaces/default/events?limit=50",
                           "/apis/caldera.io/v1/namespaces/default/jobhistories?limit=20",
                           "/metrics",
                           "/apis/scheduling.volcano.sh/v1beta1/queues"};
    for (int i = 0; !atomic_load(&stopping); i++) {
        long code;
        char *text = server_request_text(server, "GET", paths[i % 6], &code);
        free(text);
        atomic_fetch_add(&requests_done, 1);
        usleep(20 * 1000);
    }
    return NULL;
}

/* Watches and WebSocket subscribers that come and go: each lives 15 s. */
static void *followers(void *arg)
{
    (void)arg;
    char ws_url[128] = "";
    json_t *info = server_request(server, "GET", "/apis/caldera.io/v1/stream", NULL, NULL, NULL);
    const char *url = json_string_value(json_object_get(info, "url"));
    snprintf(ws_url, sizeof ws_url, "%s", url ? url : "");
    json_decref(info);
    while (!atomic_load(&stopping)) {
        struct watch_client *pods = watch_open(server, "/api/v1/pods?watch=true&allowWatchBookmarks=true", NULL);
        struct watch_client *events = watch_open(server, "/api/v1/events?watch=true&resourceVersion=0", NULL);
        struct ws_client ws = {.fd = -1};
        bool ws_up = ws_url[0] && ws_client_connect(&ws, ws_url, "namespace=default", NULL, 5000) == 0;
        for (int t = 0; t < 150 && !atomic_load(&stopping); t++) {
            if (ws_up) {
                struct ws_frame f = ws_client_next(&ws, 100);
                ws_frame_clear(&f);
            } else {
                usleep(100 * 1000);
            }
        }
        if (ws_up)
            ws_client_close(&ws);
        watch_close(pods);
        watch_close(events);
    }
    return NULL;
}

/* Sanitizer reports in the server's log. */
static int count_reports(const char *log_path)
{
    FILE *f = fopen(log_path, "r");
    char line[1024];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, "ERROR: AddressSanitizer") || strstr(line, "ERROR: LeakSanitizer") ||
             strstr(line, "runtime error:");
    if (f)
        fclose(f);
    return n;
}

int main(void)
{
    const char *only = getenv("BENCH_ONLY");
    if (!only || strncmp(only, "soak", 4) != 0)
        return 0; /* long: only when asked for by name */
    int seconds = getenv("SOAK_SECONDS") ? atoi(getenv("SOAK_SECONDS")) : 600;
    bool asan = getenv("SOAK_ASAN") && strcmp(getenv("SOAK_ASAN"), "1") == 0;
    if (asan)
        setenv("CALDERA_BIN_DIR", "build/asan/bin", 1);
    const char *cache = getenv("SOAK_WATCH_CACHE"); /* --watch-cache-size, to tell the hub's share apart */
    const char *const args[] = {
        "--history-retention", "10s", "--schedule-period", "200", cache ? "--watch-cache-size" : NULL, cache, NULL};
    struct bench_server b;
    if (bench_server_start_with(&b, asan ? "soak-asan" : "soak", args) != 0)
        return 1;
    server = &b.s;
    pthread_t threads[3];
    pthread_create(&threads[0], NULL, submitter, NULL);
    pthread_create(&threads[1], NULL, reader, NULL);
    pthread_create(&threads[2], NULL, followers, NULL);
    static double samples[MAX_SAMPLES];
    int n = 0;
    for (int t = 0; t < seconds && n < MAX_SAMPLES; t += SAMPLE_S) {
        sleep(SAMPLE_S);
        samples[n++] = proc_status_kib(b.s.pid, "VmRSS") / 1024.0;
        char *metrics = server_request_text(&b.s, "GET", "/metrics", NULL);
        const char *held = metrics ? strstr(metrics, "\ncaldera_watch_cache_bytes ") : NULL;
        fprintf(stderr, "bench_soak: %4d s: rss %.1f MiB (watch cache %.1f MiB), %ld jobs done, %ld reads\n",
                t + SAMPLE_S, samples[n - 1], held ? atof(held + 27) / 1048576 : -1.0, atomic_load(&jobs_done),
                atomic_load(&requests_done));
        free(metrics);
    }
    atomic_store(&stopping, true);
    for (int i = 0; i < 3; i++)
        pthread_join(threads[i], NULL);
    int status = n < 2;
    if (n >= 2) {
        double start = samples[n / 10], end = samples[n - 1];
        bench_report(asan ? "soak_asan_rss_start_mib" : "soak_rss_start_mib", start, "MiB");
        bench_report(asan ? "soak_asan_rss_end_mib" : "soak_rss_end_mib", end, "MiB");
        bench_report(asan ? "soak_asan_rss_growth_pct" : "soak_rss_growth_pct", (end - start) / start * 100, "%");
        bench_report(asan ? "soak_asan_rss_growth_second_half_pct" : "soak_rss_growth_second_half_pct",
                     (end - samples[n / 2]) / samples[n / 2] * 100, "%");
        bench_report(asan ? "soak_asan_rss_growth_last_third_pct" : "soak_rss_growth_last_third_pct",
                     (end - samples[2 * n / 3]) / samples[2 * n / 3] * 100, "%");
        bench_report(asan ? "soak_asan_jobs" : "soak_jobs", (double)atomic_load(&jobs_done), "jobs");
    }
    char log_path[sizeof b.s.log_path];
    snprintf(log_path, sizeof log_path, "%s", b.s.log_path);
    server_stop(&b.s); /* a clean stop: LeakSanitizer reports at exit */
    if (asan)
        bench_report("soak_sanitizer_reports", count_reports(log_path), "reports");
    if (asan && count_reports(log_path) > 0) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "grep -A20 -m3 -E 'ERROR: (Address|Leak)Sanitizer|runtime error:' %s >&2", log_path);
        if (system(cmd) != 0)
            fprintf(stderr, "bench_soak: see %s\n", log_path);
        status = 1;
    }
    bench_server_finish(&b);
    return status;
}
