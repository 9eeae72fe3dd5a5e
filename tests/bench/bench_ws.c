/* The WebSocket stream under load, through a real jobserver (release build) on loopback: 1,000
 * subscribers, each following one of 100 jobs (10 per job), while the 100 jobs (3 pods of /bin/true
 * each) are submitted and run:
 *   ws_p50_ms, ws_p99_ms  - delivery latency of every event to every subscriber: the time it was
 *                           received minus the event's "time" (when the core recorded it; so commit,
 *                           the hub and the WebSocket thread are all in it), wall clock;
 *   ws_events_lost        - events of a subscriber's job in the events table it never received;
 *   ws_events_duplicated  - events a subscriber received more than once (or out of order);
 *   ws_subscribers        - subscribers connected when the jobs started.
 * One run; the subscribers are read by one thread with epoll, on the server's two cores. */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/grow.h"
#include "tests/lib/bench.h"
#include "tests/lib/bench_server.h"
#include "tests/lib/server.h"
#include "tests/lib/ws_client.h"

#define JOBS 100
#define PER_JOB 10
#define SUBSCRIBERS (JOBS * PER_JOB)
#define PODS 3
#define MAX_SEQS 64 /* events a subscriber can keep: a 3-pod job has about 15 */
#define JOBS_PATH "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"

struct subscriber {
    struct ws_client c;
    int job;
    int n, extra; /* seqs kept; events past MAX_SEQS */
    long long seqs[MAX_SEQS];
};

static struct subscriber subs[SUBSCRIBERS];
static double *latencies;
static size_t nlat, cap_lat;
static const struct test_server *server;
static volatile int submitted_all; /* 1: every job submitted and completed, 2: failed */

static void *submit_and_wait(void *arg)
{
    (void)arg;
    for (int i = 0; i < JOBS; i++) {
        char body[512];
        snprintf(body, sizeof body,
                 "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"bws-%d\"},"
                 "\"spec\":{\"tasks\":[{\"name\":\"t\",\"replicas\":%d,\"template\":{\"spec\":{\"containers\":"
                 "[{\"name\":\"c\",\"command\":[\"/bin/true\"],\"resources\":{\"requests\":{\"cpu\":\"10m\"}}}]}}}]}}",
                 i, PODS);
        long code = 0;
        json_decref(server_request(server, "POST", JOBS_PATH, body, "application/json", &code));
        if (code != 201)
            fprintf(stderr, "bench_ws: POST answered %ld\n", code);
    }
    for (int i = 0; i < JOBS; i++) {
        char path[256];
        snprintf(path, sizeof path, JOBS_PATH "/bws-%d", i);
        if (server_wait_field(server, path, "status.state.phase", "Completed", 120000) != 0) {
            submitted_all = 2;
            return NULL;
        }
    }
    usleep(500000); /* what the completions still commit */
    submitted_all = 1;
    return NULL;
}

static void deliver(struct subscriber *s, const char *text, double now_ms)
{
    json_t *ev = json_loads(text, 0, NULL);
    const char *time = json_string_value(json_object_get(ev, "time"));
    int64_t at;
    if (time && rfc3339_parse(time, &at) == 0) {
        if (GROW(latencies, cap_lat, nlat + 1, 65536) == 0)
            latencies[nlat++] = now_ms - (double)at;
    }
    if (s->n < MAX_SEQS)
        s->seqs[s->n++] = json_integer_value(json_object_get(ev, "seq"));
    else
        s->extra++;
    json_decref(ev);
}

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec * 1000 + (double)ts.tv_nsec / 1e6;
}

/* Reads every subscriber until the jobs are done and a moment after. */
static void follow(int ep)
{
    struct epoll_event events[256];
    int64_t quiet_since = 0;
    for (;;) {
        int n = epoll_wait(ep, events, 256, 50);
        for (int i = 0; i < n; i++) {
            struct subscriber *s = events[i].data.ptr;
            bool alive = ws_client_feed(&s->c);
            double now = wall_ms();
            struct ws_frame f;
            while (ws_client_take(&s->c, &f)) {
                if (f.kind == WS_TEXT)
                    deliver(s, f.text, now);
                else if (f.kind == WS_CLOSE)
                    fprintf(stderr, "bench_ws: subscriber of bws-%d closed: %d %s\n", s->job, f.close_code,
                            f.close_reason);
                ws_frame_clear(&f);
            }
            if (!alive) {
                epoll_ctl(ep, EPOLL_CTL_DEL, s->c.fd, NULL);
                ws_client_drop(&s->c);
            }
        }
        if (submitted_all) {
            if (!quiet_since)
                quiet_since = clock_mono_ms();
            if (clock_mono_ms() - quiet_since > 1000)
                return;
        }
    }
}

/* The seqs of job bws-<job>'s events in the table. */
static int expected(sqlite3 *db, int job, long long *out, int max)
{
    sqlite3_stmt *stmt;
    char name[32];
    snprintf(name, sizeof name, "bws-%d", job);
    int n = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT e.seq FROM events e JOIN jobs j ON j.uid = e.job_uid WHERE j.namespace = 'default'"
                           " AND j.name = ?1 ORDER BY e.seq",
                           -1, &stmt, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
    while (sqlite3_step(stmt) == SQLITE_ROW && n < max)
        out[n++] = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return n;
}

/* Lost and duplicated events over every subscriber, against the events table. */
static void count_errors(const char *data_dir, long *lost, long *duplicated)
{
    char path[512];
    snprintf(path, sizeof path, "%s/caldera.db", data_dir);
    sqlite3 *db = NULL;
    *lost = *duplicated = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        *lost = -1;
        sqlite3_close(db);
        return;
    }
    long long want[MAX_SEQS];
    for (int i = 0; i < SUBSCRIBERS; i++) {
        struct subscriber *s = &subs[i];
        int n = expected(db, s->job, want, MAX_SEQS);
        *duplicated += s->extra;
        for (int k = 1; k < s->n; k++)
            *duplicated += s->seqs[k] <= s->seqs[k - 1];
        for (int w = 0; w < n; w++) {
            bool seen = false;
            for (int k = 0; k < s->n && !seen; k++)
                seen = s->seqs[k] == want[w];
            *lost += !seen;
        }
    }
    sqlite3_close(db);
}

static double percentile(double *sorted, size_t n, double p)
{
    if (n == 0)
        return -1;
    size_t i = (size_t)(p * (double)(n - 1) + 0.5);
    return sorted[i < n ? i : n - 1];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    static const char *const figures[] = {"ws_p50_ms",      "ws_p99_ms",    "ws_events_lost", "ws_events_duplicated",
                                          "ws_subscribers", "ws_deliveries"};
    bool wanted = false;
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
        wanted |= bench_wanted(figures[i]);
    if (!wanted)
        return 0;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max; /* a descriptor per subscriber, here and in the server */
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    static struct bench_server b;
    char per_client[16]; /* every subscriber comes from 127.0.0.1: past the server's default per address */
    snprintf(per_client, sizeof per_client, "%d", SUBSCRIBERS);
    const char *args[] = {"--ws-max-subscribers-per-client", per_client, NULL};
    if (bench_server_start_with(&b, "ws", args) != 0)
        return 1;
    server = &b.s;
    const char *data_dir = b.data_dir;
    char url_path[512], url[256] = "";
    snprintf(url_path, sizeof url_path, "%s/jobserver.ws-url", data_dir);
    FILE *f = fopen(url_path, "r");
    if (!f || !fgets(url, sizeof url, f))
        return 1;
    fclose(f);
    url[strcspn(url, "\n")] = '\0';

    int ep = epoll_create1(EPOLL_CLOEXEC), connected = 0;
    for (int i = 0; i < SUBSCRIBERS; i++) {
        char query[128];
        subs[i].job = i / PER_JOB;
        snprintf(query, sizeof query, "namespace=default&job=bws-%d", subs[i].job);
        if (ws_client_connect(&subs[i].c, url, query, NULL, 10000) != 0) {
            fprintf(stderr, "bench_ws: subscriber %d: HTTP %d\n", i, subs[i].c.http_code);
            continue;
        }
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &subs[i]};
        epoll_ctl(ep, EPOLL_CTL_ADD, subs[i].c.fd, &ev);
        connected++;
    }
    pthread_t submitter;
    pthread_create(&submitter, NULL, submit_and_wait, NULL);
    follow(ep);
    pthread_join(submitter, NULL);

    long lost, duplicated;
    count_errors(data_dir, &lost, &duplicated);
    qsort(latencies, nlat, sizeof *latencies, cmp_double);
    bench_report("ws_p50_ms", percentile(latencies, nlat, 0.50), "ms");
    bench_report("ws_p99_ms", percentile(latencies, nlat, 0.99), "ms");
    bench_report("ws_events_lost", (double)lost, "events");
    bench_report("ws_events_duplicated", (double)duplicated, "events");
    bench_report("ws_subscribers", connected, "subscribers");
    bench_report("ws_deliveries", (double)nlat, "events");
    for (int i = 0; i < SUBSCRIBERS; i++)
        ws_client_drop(&subs[i].c);
    close(ep);
    free(latencies);
    bench_server_finish(&b);
    return submitted_all == 1 && lost == 0 && duplicated == 0 && connected == SUBSCRIBERS ? 0 : 1;
}
