/* The WebSocket stream against real servers: a job's, a namespace's and a pod's subscribers receive
 * exactly their events (held against the events table), once and in order; a subscriber dropped
 * mid-job or across a server restart resumes with since=<last seq> without gap or duplicate; bad
 * handshakes are refused with a Status naming the parameter; a subscriber that stops reading is
 * closed with 1008 and resumes exactly; the subscriber gauge goes up and down. */
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"
#include "tests/lib/ws_client.h"

#define MAX_EVENTS 4096
#define NODES "/tmp/caldera-test-ws-nodes.yaml"

struct seqs {
    int n;
    long long v[MAX_EVENTS];
};

static struct test_server shared;

static const char *const node_yaml =
    "apiVersion: v1\nkind: Node\nmetadata: {name: big}\nstatus:\n  allocatable: "
    "{cpu: \"1000\", memory: 1Ti, pods: \"10000\"}\n";

static int write_nodes(void)
{
    FILE *f = fopen(NODES, "w");
    if (!f)
        return -1;
    fputs(node_yaml, f);
    return fclose(f);
}

static struct test_server *shared_server(void)
{
    static bool tried;
    static const char *const args[] = {"--nodes", NODES, NULL};
    if (!tried) {
        tried = true;
        if (write_nodes() != 0 || server_start(&shared, NULL, args) != 0)
            shared.pid = 0;
    }
    return shared.pid ? &shared : NULL;
}

static int subscribe(const struct test_server *s, const char *query, struct ws_client *c)
{
    int rc = ws_client_connect(c, server_ws_url(s), query, NULL, 10000);
    if (rc != 0)
        fprintf(stderr, "subscribe %s: %d (HTTP %d %s)\n", query, rc, c->http_code, c->http_body ? c->http_body : "");
    return rc;
}

/* The seqs of the events table rows that `where` picks (e is events, j the job's row). */
static void db_seqs(const struct test_server *s, const char *where, struct seqs *out)
{
    char path[512], sql[1024];
    snprintf(path, sizeof path, "%s/caldera.db", s->data_dir);
    snprintf(sql, sizeof sql,
             "SELECT e.seq FROM events e LEFT JOIN jobs j ON j.uid = e.job_uid WHERE %s ORDER BY e.seq", where);
    out->n = 0;
    sqlite3 *db = NULL;
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        while (sqlite3_step(stmt) == SQLITE_ROW && out->n < MAX_EVENTS)
            out->v[out->n++] = sqlite3_column_int64(stmt, 0);
    } else {
        fprintf(stderr, "db_seqs: %s\n", db ? sqlite3_errmsg(db) : "cannot open");
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}

/* Reads messages, appending their seqs to got, until one with seq >= until came (or timeout_ms
 * passed); each message is checked with check(ctx, event) when set. Returns the frame it stopped at
 * (WS_TEXT when it had what it wanted). */
static struct ws_frame read_until(struct ws_client *c, long long until, int timeout_ms, struct seqs *got,
                                  void (*check)(const void *ctx, json_t *event), const void *ctx)
{
    int64_t deadline = clock_mono_ms() + timeout_ms;
    while (clock_mono_ms() < deadline && (got->n == 0 || got->v[got->n - 1] < until)) {
        struct ws_frame f = ws_client_next(c, (int)(deadline - clock_mono_ms()));
        if (f.kind != WS_TEXT)
            return f;
        json_t *event = json_loads(f.text, 0, NULL);
        ws_frame_clear(&f);
        json_t *seq = json_object_get(event, "seq");
        if (!json_is_integer(seq)) {
            test_fail(__FILE__, __LINE__, "a message without seq");
        } else if (got->n < MAX_EVENTS) {
            got->v[got->n++] = json_integer_value(seq);
            if (check)
                check(ctx, event);
        }
        json_decref(event);
    }
    return (struct ws_frame){.kind = WS_TEXT};
}

/* got holds exactly want's seqs up to got's last (every one once, in order), and reaches want's last. */
static void check_same(const struct seqs *got, const struct seqs *want, const char *what)
{
    int n = 0;
    while (n < want->n && got->n > 0 && want->v[n] <= got->v[got->n - 1])
        n++;
    bool same = got->n == n && (want->n == 0 || n == want->n || got->v[got->n - 1] >= want->v[want->n - 1]);
    for (int i = 0; same && i < n; i++)
        same = got->v[i] == want->v[i];
    if (!same || got->n < want->n) {
        char text[2048];
        int len = snprintf(text, sizeof text, "%s: got %d events [", what, got->n);
        for (int i = 0; i < got->n && len < 900; i++)
            len += snprintf(text + len, sizeof text - (size_t)len, "%lld ", got->v[i]);
        len += snprintf(text + len, sizeof text - (size_t)len, "], the events table has %d [", want->n);
        for (int i = 0; i < want->n && len < 1900; i++)
            len += snprintf(text + len, sizeof text - (size_t)len, "%lld ", want->v[i]);
        test_fail(__FILE__, __LINE__, "%s]", text);
    }
}

static long submit_in(const struct test_server *s, const char *ns, const char *name, const char *tasks)
{
    char path[256];
    long code = 0;
    snprintf(path, sizeof path, "/apis/batch.volcano.sh/v1alpha1/namespaces/%s/jobs", ns);
    json_decref(server_request(s, "POST", path, job_yaml(name, "", tasks), "application/yaml", &code));
    return code;
}

static int wait_completed(const struct test_server *s, const char *ns, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "/apis/batch.volcano.sh/v1alpha1/namespaces/%s/jobs/%s", ns, name);
    int rc = server_wait_field(s, path, "status.state.phase", "Completed", 60000);
    usleep(300000); /* what the completion still commits (the pod group's end) */
    return rc;
}

static void is_about(const void *ctx, json_t *event)
{
    const char *job = ctx;
    const char *got = json_string_value(json_object_get(event, "job"));
    if (!got || strcmp(got, job) != 0)
        test_fail(__FILE__, __LINE__, "an event of job \"%s\" on the stream of job %s", got ? got : "", job);
    if (!json_is_string(json_object_get(event, "time")) || !json_is_string(json_object_get(event, "kind")))
        test_fail(__FILE__, __LINE__, "an event without time or kind");
}

static const char *job_where(const char *ns, const char *name)
{
    static char where[256];
    snprintf(where, sizeof where, "j.namespace = '%s' AND j.name = '%s'", ns, name);
    return where;
}

/* A job's subscriber gets every event of the job, its pods and its PodGroup, once and in order. */
static void job_stream_has_every_event_once(void)
{
    struct test_server *s = shared_server();
    REQUIRE(s);
    struct ws_client c;
    REQUIRE(subscribe(s, "namespace=default&job=ws-one", &c) == 0);
    CHECK_INT(c.http_code, 101);
    REQUIRE(job_submit(s, "ws-one", "", TASK("work", 2, "", "'sleep 0.2'", "")) == 201);
    REQUIRE(wait_completed(s, "default", "ws-one") == 0);
    struct seqs want, got = {0};
    db_seqs(s, job_where("default", "ws-one"), &want);
    REQUIRE(want.n >= 6);
    read_until(&c, want.v[want.n - 1], 10000, &got, is_about, "ws-one");
    CHECK(ws_client_next(&c, 300).kind == WS_NOTHING); /* nothing twice, nothing else */
    check_same(&got, &want, "job stream");
    ws_client_close(&c);
}

static void only_namespace(const void *ctx, json_t *event)
{
    const char *ns = json_string_value(json_object_get(event, "namespace"));
    if (!ns || strcmp(ns, ctx) != 0)
        test_fail(__FILE__, __LINE__, "an event of namespace \"%s\" on the stream of %s", ns ? ns : "",
                  (const char *)ctx);
}

/* A namespace's subscriber sees its jobs and not another namespace's; one with no namespace sees all. */
static void namespace_stream_keeps_to_its_namespace(void)
{
    struct test_server *s = shared_server();
    REQUIRE(s);
    struct ws_client team, all;
    REQUIRE(subscribe(s, "namespace=team-a", &team) == 0);
    REQUIRE(subscribe(s, NULL, &all) == 0);
    REQUIRE(submit_in(s, "team-b", "ws-b", TASK("work", 1, "", "'true'", "")) == 201);
    REQUIRE(submit_in(s, "team-a", "ws-a", TASK("work", 1, "", "'true'", "")) == 201);
    REQUIRE(wait_completed(s, "team-b", "ws-b") == 0);
    REQUIRE(wait_completed(s, "team-a", "ws-a") == 0);
    struct seqs want, got = {0}, everything, got_all = {0};
    db_seqs(s, "e.namespace = 'team-a'", &want);
    REQUIRE(want.n >= 4);
    read_until(&team, want.v[want.n - 1], 10000, &got, only_namespace, "team-a");
    CHECK(ws_client_next(&team, 300).kind == WS_NOTHING);
    check_same(&got, &want, "namespace stream");
    /* Every event since the subscription, both namespaces' jobs among them. */
    db_seqs(s, "e.seq >= (SELECT min(seq) FROM events WHERE namespace IN ('team-a', 'team-b'))", &everything);
    read_until(&all, everything.v[everything.n - 1], 10000, &got_all, NULL, NULL);
    check_same(&got_all, &everything, "the stream of everything");
    ws_client_close(&team);
    ws_client_close(&all);
}

static void only_pod(const void *ctx, json_t *event)
{
    const char *name = json_string_value(json_object_get(event, "name"));
    const char *kind = json_string_value(json_object_get(event, "kind"));
    if (!name || strcmp(name, ctx) != 0 || !kind || strcmp(kind, "Pod") != 0)
        test_fail(__FILE__, __LINE__, "an event of %s \"%s\" on the stream of pod %s", kind ? kind : "",
                  name ? name : "", (const char *)ctx);
}

/* A pod's subscriber gets that pod's events only. */
static void pod_stream_has_only_its_pod(void)
{
    struct test_server *s = shared_server();
    REQUIRE(s);
    struct ws_client c;
    REQUIRE(subscribe(s, "namespace=default&pod=ws-pod-work-1", &c) == 0);
    REQUIRE(job_submit(s, "ws-pod", "", TASK("work", 3, "", "'true'", "")) == 201);
    REQUIRE(wait_completed(s, "default", "ws-pod") == 0);
    struct seqs want, got = {0};
    db_seqs(s, "e.namespace = 'default' AND e.kind = 'Pod' AND e.name = 'ws-pod-work-1'", &want);
    REQUIRE(want.n >= 2);
    read_until(&c, want.v[want.n - 1], 10000, &got, only_pod, "ws-pod-work-1");
    CHECK(ws_client_next(&c, 300).kind == WS_NOTHING);
    check_same(&got, &want, "pod stream");
    ws_client_close(&c);
}

/* A subscriber whose connection drops mid-job reconnects with since=<last seq> and gets every event
 * it missed, once. */
static void resume_after_a_drop(void)
{
    struct test_server *s = shared_server();
    REQUIRE(s);
    struct ws_client c;
    REQUIRE(subscribe(s, "namespace=default&job=ws-drop", &c) == 0);
    REQUIRE(job_submit(s, "ws-drop", "",
                       TASK("work", 3, "", "'sleep 0.3'", "") TASK("more", 2, "", "'sleep 0.6'", "")) == 201);
    struct seqs got = {0}, want;
    for (int64_t deadline = clock_mono_ms() + 20000; got.n < 3 && clock_mono_ms() < deadline;)
        read_until(&c, got.n ? got.v[got.n - 1] + 1 : 1, 500, &got, is_about, "ws-drop");
    REQUIRE(got.n >= 3);
    ws_client_drop(&c); /* no close frame: as a network would */
    usleep(400000);     /* the job goes on meanwhile */
    char query[128];
    snprintf(query, sizeof query, "namespace=default&job=ws-drop&since=%lld", got.v[got.n - 1]);
    REQUIRE(subscribe(s, query, &c) == 0);
    REQUIRE(wait_completed(s, "default", "ws-drop") == 0);
    db_seqs(s, job_where("default", "ws-drop"), &want);
    read_until(&c, want.v[want.n - 1], 10000, &got, is_about, "ws-drop");
    CHECK(ws_client_next(&c, 300).kind == WS_NOTHING);
    check_same(&got, &want, "resumed job stream");
    ws_client_close(&c);
}

/* After a restart the hub starts empty: a since from before it is served from the events table, and
 * the stream goes on live from there without a gap. */
static void resume_across_a_restart(void)
{
    static const char *const args[] = {"--nodes", NODES, NULL};
    struct test_server s;
    REQUIRE(write_nodes() == 0);
    REQUIRE(server_start(&s, NULL, args) == 0);
    if (job_submit(&s, "ws-restart", "", TASK("work", 2, "", "'true'", "")) != 201 ||
        wait_completed(&s, "default", "ws-restart") != 0 || server_stop(&s) != 0 ||
        server_start(&s, s.data_dir, args) != 0) {
        test_fail(__FILE__, __LINE__, "the first run or the restart failed");
        server_cleanup(&s);
        return;
    }
    struct seqs want, got = {0};
    db_seqs(&s, job_where("default", "ws-restart"), &want);
    REQUIRE(want.n >= 4);
    char query[128];
    snprintf(query, sizeof query, "namespace=default&job=ws-restart&since=%lld", want.v[0]);
    struct ws_client c;
    if (subscribe(&s, query, &c) == 0) {
        read_until(&c, want.v[want.n - 1], 10000, &got, is_about, "ws-restart");
        struct seqs rest = {want.n - 1};
        memcpy(rest.v, want.v + 1, sizeof rest.v[0] * (size_t)rest.n);
        check_same(&got, &rest, "stream from the database");
        /* Live again: the job's deletion comes next, after what the database gave. */
        long code = 0;
        json_decref(server_request(&s, "DELETE", JOBS "/ws-restart", NULL, NULL, &code));
        CHECK_INT(code, 200);
        usleep(300000);
        db_seqs(&s, job_where("default", "ws-restart"), &want);
        read_until(&c, want.v[want.n - 1], 10000, &got, is_about, "ws-restart");
        memcpy(rest.v, want.v + 1, sizeof rest.v[0] * (size_t)(want.n - 1));
        rest.n = want.n - 1;
        check_same(&got, &rest, "stream from the database, then live");
        CHECK(got.n > 0 && want.n > 0 && got.v[got.n - 1] == want.v[want.n - 1]);
        ws_client_close(&c);
    }
    server_cleanup(&s);
}

/* A refused handshake: the code, and the Status's message naming what was wrong. */
static void expect_refusal(const struct test_server *s, const char *query, const struct ws_client_options *o, int code,
                           const char *names)
{
    struct ws_client c;
    int rc = ws_client_connect(&c, server_ws_url(s), query, o, 10000);
    json_t *status = c.http_body ? json_loads(c.http_body, 0, NULL) : NULL;
    const char *message = json_string_value(json_object_get(status, "message"));
    const char *kind = json_string_value(json_object_get(status, "kind"));
    if (rc != 1 || c.http_code != code || !message || !strstr(message, names) || !kind || strcmp(kind, "Status") != 0)
        test_fail(__FILE__, __LINE__, "?%s: %d, HTTP %d %s; expected %d naming \"%s\"", query ? query : "", rc,
                  c.http_code, c.http_body ? c.http_body : "", code, names);
    json_decref(status);
    ws_client_drop(&c);
}

static void bad_handshakes_are_refused(void)
{
    struct test_server *s = shared_server();
    REQUIRE(s);
    expect_refusal(s, "namespace=default&color=red", NULL, 400, "color");
    expect_refusal(s, "namespace=default&job=a&pod=b", NULL, 400, "pod");
    expect_refusal(s, "namespace=default&since=yesterday", NULL, 400, "since");
    expect_refusal(s, "namespace=default&since=99999999999", NULL, 400, "since");
    expect_refusal(s, "job=a", NULL, 400, "namespace");
    expect_refusal(s, "namespace=a&namespace=b", NULL, 400, "namespace");
    struct ws_client_options token = {.authorization = "Bearer abc"};
    expect_refusal(s, "namespace=default", &token, 401, "token");
    struct ws_client_options browser = {.protocols = "caldera.events.v1, base64url.bearer.authorization.k8s.io.YWJj"};
    expect_refusal(s, "namespace=default", &browser, 401, "token");
    struct ws_client_options other = {.protocols = "chat"};
    expect_refusal(s, "namespace=default", &other, 400, "caldera.events.v1");
    /* The real protocol alone is selected. */
    struct ws_client c;
    struct ws_client_options ours = {.protocols = "caldera.events.v1"};
    CHECK_INT(ws_client_connect(&c, server_ws_url(s), "namespace=default", &ours, 10000), 0);
    CHECK_STR(c.protocol, "caldera.events.v1");
    ws_client_close(&c);
    /* The HTTP API says where the stream is. */
    long code = 0;
    json_t *info = server_request(s, "GET", "/apis/caldera.io/v1/stream", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(json_string_value(json_object_get(info, "kind")), "StreamInfo");
    CHECK_STR(json_string_value(json_object_get(info, "url")), server_ws_url(s));
    json_decref(info);
}

/* A subscriber that stops reading while the hub (128 items here) moves on is closed with 1008 and
 * told where to resume, and resuming there gives every later event once; one that reads along on the
 * same server is not disturbed. */
static void slow_subscriber_is_dropped_and_resumes(void)
{
    static const char *const args[] = {"--nodes", NODES, "--watch-cache-size", "128", NULL};
    struct test_server s;
    REQUIRE(write_nodes() == 0);
    REQUIRE(server_start(&s, NULL, args) == 0);
    struct ws_client slow, fast;
    struct ws_client_options small = {.rcvbuf = 4096};
    if (ws_client_connect(&slow, server_ws_url(&s), "namespace=default", &small, 10000) != 0 ||
        subscribe(&s, "namespace=default", &fast) != 0) {
        test_fail(__FILE__, __LINE__, "cannot subscribe");
        server_cleanup(&s);
        return;
    }
    /* Far more than the socket buffers and the hub hold, in batches smaller than the hub: the slow
     * subscriber reads nothing meanwhile, the fast one everything. */
    struct seqs got = {0}, fast_got = {0}, want;
    for (int i = 0; i < 10; i++) {
        char name[32];
        snprintf(name, sizeof name, "ws-flood-%d", i);
        CHECK(job_submit(&s, name, "",
                         TASK("work", 40, "", "'true'", "          resources: {requests: {cpu: 10m}}\n")) == 201);
        for (int64_t deadline = clock_mono_ms() + 60000; clock_mono_ms() < deadline;) {
            json_t *job = job_get(&s, name);
            bool done = job && strcmp(jv_str(job, "status.state.phase") ? jv_str(job, "status.state.phase") : "",
                                      "Completed") == 0;
            json_decref(job);
            if (done)
                break;
            read_until(&fast, LLONG_MAX, 100, &fast_got, only_namespace, "default");
        }
    }
    usleep(300000);
    db_seqs(&s, "e.namespace = 'default'", &want);
    REQUIRE(want.n > 0);
    struct ws_frame fast_end = read_until(&fast, want.v[want.n - 1], 10000, &fast_got, only_namespace, "default");
    CHECK_INT(fast_end.kind, WS_TEXT);
    check_same(&fast_got, &want, "a fast subscriber's stream");
    ws_client_close(&fast);
    struct ws_frame end = read_until(&slow, LLONG_MAX, 20000, &got, NULL, NULL);
    CHECK_INT(end.kind, WS_CLOSE);
    CHECK_INT(end.close_code, 1008);
    CHECK_CONTAINS(end.close_reason, "too slow");
    char since[64];
    snprintf(since, sizeof since, "since=%lld", got.n ? got.v[got.n - 1] : 0);
    CHECK_CONTAINS(end.close_reason, since);
    ws_client_drop(&slow);
    CHECK(got.n > 0 && got.n < want.n);
    /* Where the close frame said to go on from: the last event received. */
    struct ws_client again;
    char query[128];
    snprintf(query, sizeof query, "namespace=default&%s", since);
    if (ws_client_connect(&again, server_ws_url(&s), query, NULL, 10000) == 0) {
        read_until(&again, want.v[want.n - 1], 20000, &got, NULL, NULL);
        check_same(&got, &want, "a slow subscriber's stream, resumed");
        ws_client_close(&again);
    } else {
        test_fail(__FILE__, __LINE__, "cannot resume: HTTP %d %s", again.http_code, again.http_body);
        ws_client_drop(&again);
    }
    server_cleanup(&s);
}

static long gauge(const struct test_server *s)
{
    long code = 0;
    char *text = server_request_text(s, "GET", "/metrics", &code);
    const char *line = text ? strstr(text, "\ncaldera_websocket_subscribers ") : NULL;
    long v = line ? strtol(line + strlen("\ncaldera_websocket_subscribers "), NULL, 10) : -1;
    free(text);
    return v;
}

/* caldera_websocket_subscribers counts subscribers as they come and go. */
static void gauge_follows_subscribers(void)
{
    struct test_server *s = shared_server();
    REQUIRE(s);
    long before = gauge(s);
    struct ws_client a, b;
    REQUIRE(subscribe(s, "namespace=default", &a) == 0);
    REQUIRE(subscribe(s, "namespace=default&job=x", &b) == 0);
    long during = -1;
    for (int i = 0; i < 50 && (during = gauge(s)) != before + 2; i++)
        usleep(20000);
    CHECK_INT(during, before + 2);
    ws_client_close(&a);
    ws_client_drop(&b);
    long after = -1;
    for (int i = 0; i < 100 && (after = gauge(s)) != before; i++)
        usleep(20000);
    CHECK_INT(after, before);
}

/* A stop closes every subscriber with 1001 (going away), and the server exits cleanly. */
static void stop_says_going_away(void)
{
    struct test_server *s = shared_server();
    REQUIRE(s);
    struct ws_client c;
    REQUIRE(subscribe(s, "namespace=default", &c) == 0);
    CHECK_INT(server_stop(s), 0);
    struct ws_frame f = ws_client_next(&c, 10000);
    CHECK_INT(f.kind, WS_CLOSE);
    CHECK_INT(f.close_code, 1001);
    ws_frame_clear(&f);
    ws_client_drop(&c);
    server_cleanup(s);
}

TEST_MAIN(TEST_CASE(job_stream_has_every_event_once), TEST_CASE(namespace_stream_keeps_to_its_namespace),
          TEST_CASE(pod_stream_has_only_its_pod), TEST_CASE(resume_after_a_drop), TEST_CASE(resume_across_a_restart),
          TEST_CASE(bad_handshakes_are_refused), TEST_CASE(slow_subscriber_is_dropped_and_resumes),
          TEST_CASE(gauge_follows_subscribers), TEST_CASE(stop_says_going_away))
