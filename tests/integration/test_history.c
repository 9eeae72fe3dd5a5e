/* Integration tests of the history API on a real server: a job that fails and retries (per job,
 * task, attempt and attempt log, before and after its deletion, and an earlier incarnation of its
 * name), JobHistoryList pages and filters, commands and nodes recorded, retention, and jobctl. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/clock.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"
#include "tests/lib/tmpdb.h"

#define CALDERA "/apis/caldera.io/v1"
#define VCJOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/%s/jobs"
#define WAIT_MS 30000
#define PAGE_JOBS 7

static const char *const server_args[] = {"--restart-backoff", "100", "--shutdown-grace", "2", NULL};

/* ---- helpers ----------------------------------------------------------------------------------- */

/* A path from a format, in a rotating set of buffers (a call may use a few at once). */
static const char *pathf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *pathf(const char *fmt, ...)
{
    static char bufs[4][1024];
    static int next;
    char *buf = bufs[next++ % 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof bufs[0], fmt, ap);
    va_end(ap);
    return buf;
}

static json_t *dig(json_t *v, const char *path) { return server_json_at(v, path); }
static const char *dig_str(json_t *v, const char *path) { return json_string_value(dig(v, path)); }

/* Submits a one-task job running `sh -c cmd` into ns; spec_lines go under spec (indented 2). */
static long submit_job(const struct test_server *s, const char *ns, const char *name, const char *spec_lines,
                       const char *cmd)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s}\nspec:\n%s  tasks:\n"
             "  - name: t\n    replicas: 1\n    template:\n      spec:\n        terminationGracePeriodSeconds: 1\n"
             "        containers:\n        - name: c\n          command: [sh, -c, '%s']\n",
             name, spec_lines, cmd);
    long code;
    json_t *r = server_request(s, "POST", pathf(VCJOBS, ns), yaml, "application/yaml", &code);
    if (code != 201)
        fprintf(stderr, "submit %s/%s: HTTP %ld: %s\n", ns, name, code, dig_str(r, "message"));
    json_decref(r);
    return code;
}

static json_t *get_json(const struct test_server *s, const char *path, long *code)
{
    return server_request(s, "GET", path, NULL, NULL, code);
}

/* GET path and expect code; returns the body (caller frees). */
static json_t *get_expect(const struct test_server *s, const char *path, long want)
{
    long code;
    json_t *body = get_json(s, path, &code);
    if (code != want)
        test_fail(__FILE__, __LINE__, "GET %s: HTTP %ld, expected %ld: %s", path, code, want,
                  dig_str(body, "message") ? dig_str(body, "message") : "");
    return body;
}

static char *get_text(const struct test_server *s, const char *path, long *code)
{
    return server_request_text(s, "GET", path, code);
}

static void check_text(const struct test_server *s, const char *path, long want_code, const char *want)
{
    long code;
    char *text = get_text(s, path, &code);
    if (code != want_code)
        test_fail(__FILE__, __LINE__, "GET %s: HTTP %ld, expected %ld: %s", path, code, want_code, text ? text : "");
    else if (want)
        CHECK_CONTAINS(text, want);
    free(text);
}

static int wait_phase(const struct test_server *s, const char *ns, const char *name, const char *phase)
{
    return server_wait_field(s, pathf(VCJOBS "/%s", ns, name), "status.state.phase", phase, WAIT_MS);
}

static bool dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void sleep_ms(int ms) { nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL); }

/* ---- one shared server ------------------------------------------------------------------------- */

static struct test_server shared;
static bool shared_up;

static struct test_server *server(void)
{
    if (!shared_up && server_start(&shared, NULL, server_args) == 0)
        shared_up = true;
    return shared_up ? &shared : NULL;
}

#define HIST "/apis/caldera.io/v1/namespaces/default/jobs/retry/history"

/* sh -c 'echo x; exit 3' with maxRetry 2 and RestartJob on PodFailed: two attempts of retry-t-0
 * (job versions 0 and 1), each exit 3, then Failed. Per job, per task, per attempt and logs. */
static void retried_job_history(void)
{
    struct test_server *s = server();
    REQUIRE(s);
    REQUIRE(submit_job(s, "default", "retry",
                       "  maxRetry: 2\n  policies:\n  - {event: PodFailed, action: RestartJob}\n",
                       "echo x$(cat count 2>/dev/null); echo 1 >> count; exit 3") == 201);
    REQUIRE(wait_phase(s, "default", "retry", "Failed") == 0);

    json_t *h = get_expect(s, HIST, 200);
    CHECK_STR(dig_str(h, "kind"), "JobHistory");
    CHECK_STR(dig_str(h, "phase"), "Failed");
    CHECK_INT(json_array_size(dig(h, "attempts")), 2);
    CHECK_STR(dig_str(h, "tasks.0.name"), "t");
    CHECK_INT(json_integer_value(dig(h, "tasks.0.minAvailable")), 1);
    for (int i = 0; i < 2; i++) {
        json_t *a = json_array_get(dig(h, "attempts"), (size_t)i);
        CHECK_STR(dig_str(a, "pod"), "retry-t-0");
        CHECK_INT(json_integer_value(dig(a, "attempt")), i + 1);
        CHECK_INT(json_integer_value(dig(a, "exitCode")), 3);
        CHECK(json_is_string(dig(a, "cgroup")));
    }
    char uid[64];
    snprintf(uid, sizeof uid, "%s", dig_str(h, "metadata.uid") ? dig_str(h, "metadata.uid") : "");
    json_decref(h);

    json_t *task = get_expect(s, HIST "/tasks/t", 200);
    CHECK_STR(dig_str(task, "kind"), "TaskHistory");
    CHECK_INT(json_integer_value(dig(task, "replicas")), 1);
    CHECK_STR(dig_str(task, "template.spec.containers.0.name"), "c");
    CHECK_INT(json_array_size(dig(task, "attempts")), 2);
    json_decref(task);
    json_t *missing = get_expect(s, HIST "/tasks/nope", 404);
    CHECK_STR(dig_str(missing, "kind"), "Status");
    json_decref(missing);

    json_t *a2 = get_expect(s, HIST "/pods/retry-t-0/attempts/2", 200);
    CHECK_STR(dig_str(a2, "kind"), "PodAttempt");
    CHECK_INT(json_integer_value(dig(a2, "jobVersion")), 1);
    CHECK_STR(dig_str(a2, "job.uid"), uid);
    json_decref(a2);
    json_decref(get_expect(s, HIST "/pods/retry-t-0/attempts/3", 404));
    json_decref(get_expect(s, HIST "/pods/retry-t-0/attempts/zero", 400));

    /* every attempt's own log, kept through the retries */
    check_text(s, HIST "/pods/retry-t-0/attempts/1/log", 200, "x\n");
    check_text(s, HIST "/pods/retry-t-0/attempts/2/log", 200, "x1\n");
    check_text(s, "/api/v1/namespaces/default/pods/retry-t-0/log?attempt=1", 200, "x\n");

    /* deleted: the core forgets it, the history and the logs stay */
    long code;
    json_decref(server_request(s, "DELETE", pathf(VCJOBS "/retry", "default"), NULL, NULL, &code));
    CHECK_INT(code, 200);
    CHECK(server_wait_field(s, pathf(VCJOBS "/retry", "default"), "code", "404", WAIT_MS) == 0);
    h = get_expect(s, HIST, 200);
    CHECK(json_is_string(dig(h, "metadata.deletionTimestamp")));
    json_decref(h);
    check_text(s, HIST "/pods/retry-t-0/attempts/1/log", 200, "x\n");
    check_text(s, "/api/v1/namespaces/default/pods/retry-t-0/log?attempt=1", 200, "x\n");
    check_text(s, "/api/v1/namespaces/default/pods/retry-t-0/log?previous=true", 200, "x\n");
    check_text(s, "/api/v1/namespaces/default/pods/retry-t-0/log", 200, "x1\n");
    check_text(s, "/api/v1/namespaces/default/pods/retry-t-0/log?attempt=5", 400, NULL);
    check_text(s, "/api/v1/namespaces/default/pods/never-ran-0/log", 404, NULL);

    /* the name again: the newest incarnation by default, the earlier one by ?uid= */
    REQUIRE(submit_job(s, "default", "retry", "", "echo again") == 201);
    REQUIRE(wait_phase(s, "default", "retry", "Completed") == 0);
    h = get_expect(s, HIST, 200);
    CHECK(dig_str(h, "metadata.uid") && strcmp(dig_str(h, "metadata.uid"), uid) != 0);
    CHECK_INT(json_array_size(dig(h, "attempts")), 1);
    json_decref(h);
    h = get_expect(s, pathf(HIST "?uid=%s", uid), 200);
    CHECK_STR(dig_str(h, "metadata.uid"), uid);
    CHECK_INT(json_array_size(dig(h, "attempts")), 2);
    json_decref(h);
    h = get_expect(s, pathf(CALDERA "/namespaces/default/jobhistories/retry?uid=%s", uid), 200);
    CHECK_STR(dig_str(h, "metadata.uid"), uid);
    json_decref(h);
    json_decref(get_expect(s, HIST "?uid=no-such-uid", 404));
    json_decref(get_expect(s, HIST "/pods/retry-t-0/attempts/2?uid=no-such-uid", 404));
    check_text(s, pathf(HIST "/pods/retry-t-0/attempts/2/log?uid=%s", uid), 200, "x1\n");
}

/* PAGE_JOBS jobs in namespace pages (one of them fails): limit=3 walks them newest first in pages
 * of 3, 3, 1, each once; phase, since and until filter; bad parameters are 400s naming them. */
static void list_pages_and_filters(void)
{
    struct test_server *s = server();
    REQUIRE(s);
    int64_t before = clock_wall_ms() - 1000;
    for (int i = 0; i < PAGE_JOBS; i++) {
        char name[32];
        snprintf(name, sizeof name, "page-%d", i);
        REQUIRE(submit_job(s, "pages", name, "", i == 3 ? "exit 1" : "exit 0") == 201);
    }
    for (int i = 0; i < PAGE_JOBS; i++)
        CHECK(wait_phase(s, "pages", pathf("page-%d", i), i == 3 ? "Failed" : "Completed") == 0);

    bool seen[PAGE_JOBS] = {false};
    int pages = 0, total = 0;
    char token[1024] = "";
    long long last_created = INT64_MAX;
    do {
        json_t *list = get_expect(s,
                                  token[0] ? pathf(CALDERA "/namespaces/pages/jobhistories?limit=3&continue=%s", token)
                                           : CALDERA "/namespaces/pages/jobhistories?limit=3",
                                  200);
        REQUIRE(list);
        CHECK_STR(dig_str(list, "kind"), "JobHistoryList");
        size_t i;
        json_t *item;
        json_array_foreach(dig(list, "items"), i, item)
        {
            const char *name = dig_str(item, "metadata.name");
            int n = name && strncmp(name, "page-", 5) == 0 ? atoi(name + 5) : -1;
            if (n < 0 || n >= PAGE_JOBS || seen[n])
                test_fail(__FILE__, __LINE__, "page %d: unexpected or repeated item %s", pages, name ? name : "?");
            else
                seen[n] = true;
            int64_t created = 0;
            CHECK(rfc3339_parse(dig_str(item, "metadata.creationTimestamp"), &created) == 0);
            CHECK(created <= last_created); /* newest first */
            last_created = created;
            CHECK_INT(json_integer_value(dig(item, "attemptCount")), 1);
            CHECK(json_is_string(dig(item, "lastFinishTime")));
            total++;
        }
        CHECK_INT(json_array_size(dig(list, "items")), pages < 2 ? 3 : 1);
        const char *next = dig_str(list, "metadata.continue");
        snprintf(token, sizeof token, "%s", next ? next : "");
        json_decref(list);
        pages++;
    } while (token[0] && pages < 10);
    CHECK_INT(pages, 3);
    CHECK_INT(total, PAGE_JOBS);
    for (int i = 0; i < PAGE_JOBS; i++)
        CHECK(seen[i]);

    json_t *list = get_expect(s, CALDERA "/namespaces/pages/jobhistories?phase=Failed", 200);
    CHECK_INT(json_array_size(dig(list, "items")), 1);
    CHECK_STR(dig_str(list, "items.0.metadata.name"), "page-3");
    json_decref(list);
    list = get_expect(s, CALDERA "/namespaces/pages/jobhistories?phase=Completed", 200);
    CHECK_INT(json_array_size(dig(list, "items")), PAGE_JOBS - 1);
    json_decref(list);
    char since[RFC3339_LEN], later[RFC3339_LEN];
    rfc3339_ms(before, since);
    rfc3339_ms(clock_wall_ms() + 60000, later);
    list = get_expect(s, pathf(CALDERA "/namespaces/pages/jobhistories?since=%s&until=%s", since, later), 200);
    CHECK_INT(json_array_size(dig(list, "items")), PAGE_JOBS);
    json_decref(list);
    list = get_expect(s, pathf(CALDERA "/namespaces/pages/jobhistories?since=%s", later), 200);
    CHECK_INT(json_array_size(dig(list, "items")), 0);
    json_decref(list);
    list = get_expect(s, pathf(CALDERA "/namespaces/pages/jobhistories?until=%s", since), 200);
    CHECK_INT(json_array_size(dig(list, "items")), 0);
    json_decref(list);
    list = get_expect(s, CALDERA "/jobhistories", 200); /* every namespace */
    CHECK(json_array_size(dig(list, "items")) >= PAGE_JOBS);
    json_decref(list);

    const char *bad[][2] = {
        {"since=yesterday", "since"}, {"until=2026-13-01T00:00:00Z", "until"},  {"limit=-1", "limit"},
        {"limit=three", "limit"},     {"continue=bm90IGEgdG9rZW4", "continue"}, {"continue=!!!!", "continue"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_t *st = get_expect(s, pathf(CALDERA "/namespaces/pages/jobhistories?%s", bad[i][0]), 400);
        CHECK_STR(dig_str(st, "reason"), "BadRequest");
        CHECK_STR(dig_str(st, "details.causes.0.field"), bad[i][1]);
        json_decref(st);
    }

    json_t *disc = get_expect(s, CALDERA, 200);
    bool listed = false;
    size_t i;
    json_t *res;
    json_array_foreach(dig(disc, "resources"), i, res)
    {
        if (dig_str(res, "name") && strcmp(dig_str(res, "name"), "jobhistories") == 0)
            listed = true;
    }
    CHECK(listed);
    json_decref(disc);
}

/* A Command and a caldera.io action each leave a commands row, shown in the job's history, and so
 * does a Command about a queue; the nodes are recorded at start; Commands GET still answers. */
static void commands_and_nodes_recorded(void)
{
    struct test_server *s = server();
    REQUIRE(s);
    REQUIRE(submit_job(s, "default", "cmd", "", "exec sleep 300") == 201);
    REQUIRE(server_wait_field(s, pathf(VCJOBS "/cmd", "default"), "status.running", "1", WAIT_MS) == 0);
    long code;
    json_decref(server_request(s, "POST", "/apis/bus.volcano.sh/v1alpha1/namespaces/default/commands",
                               "{\"apiVersion\":\"bus.volcano.sh/v1alpha1\",\"kind\":\"Command\","
                               "\"metadata\":{\"name\":\"stop-cmd\"},\"action\":\"AbortJob\","
                               "\"target\":{\"kind\":\"Job\",\"name\":\"cmd\"},\"reason\":\"by test\"}",
                               NULL, &code));
    CHECK_INT(code, 201);
    json_decref(server_request(s, "POST", CALDERA "/namespaces/default/jobs/cmd/terminate", NULL, NULL, &code));
    CHECK_INT(code, 200);
    json_decref(get_expect(s, "/apis/bus.volcano.sh/v1alpha1/namespaces/default/commands", 200));
    json_t *h = get_expect(s, CALDERA "/namespaces/default/jobs/cmd/history", 200);
    CHECK_INT(json_array_size(dig(h, "commands")), 2);
    CHECK_STR(dig_str(h, "commands.0.action"), "AbortJob");
    CHECK_STR(dig_str(h, "commands.0.reason"), "by test");
    CHECK_STR(dig_str(h, "commands.1.action"), "TerminateJob");
    json_decref(h);
    json_decref(server_request(s, "POST", "/apis/scheduling.volcano.sh/v1beta1/queues",
                               "{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"Queue\","
                               "\"metadata\":{\"name\":\"cmdq\"},\"spec\":{\"weight\":1}}",
                               NULL, &code));
    CHECK_INT(code, 201);
    json_decref(server_request(s, "POST", "/apis/bus.volcano.sh/v1alpha1/namespaces/default/commands",
                               "{\"apiVersion\":\"bus.volcano.sh/v1alpha1\",\"kind\":\"Command\","
                               "\"metadata\":{\"name\":\"close-q\"},\"action\":\"CloseQueue\","
                               "\"target\":{\"kind\":\"Queue\",\"name\":\"cmdq\"}}",
                               NULL, &code));
    CHECK_INT(code, 201);
    char db[400];
    snprintf(db, sizeof db, "%s/caldera.db", s->data_dir);
    CHECK_INT(tmp_db_query_int(db,
                               "SELECT COUNT(*) FROM commands WHERE job_name = 'cmd' AND namespace = 'default'"
                               " AND action = 'AbortJob' AND reason = 'by test' AND json ->> '$.metadata.name' ="
                               " 'stop-cmd'"),
              1);
    CHECK_INT(tmp_db_query_int(db,
                               "SELECT COUNT(*) FROM commands WHERE job_name = 'cmd' AND action = 'TerminateJob'"
                               " AND json ->> '$.target.name' = 'cmd'"),
              1);
    CHECK_INT(tmp_db_query_int(db,
                               "SELECT COUNT(*) FROM commands WHERE job_name = '' AND action = 'CloseQueue'"
                               " AND json ->> '$.target.name' = 'cmdq'"),
              1);
    CHECK_INT(tmp_db_query_int(db, "SELECT COUNT(*) FROM nodes WHERE json ->> '$.kind' = 'Node'"), 1);
}

/* jobctl history without a job lists (with --phase and --limit); jobctl logs --attempt reads an
 * attempt of a deleted job's pod. */
static void jobctl_history_and_logs(void)
{
    struct test_server *s = server();
    REQUIRE(s);
    REQUIRE(submit_job(s, "ctl", "ctl-a", "", "echo hello-a; exit 0") == 201);
    REQUIRE(submit_job(s, "ctl", "ctl-b", "", "echo hello-b; exit 2") == 201);
    REQUIRE(wait_phase(s, "ctl", "ctl-a", "Completed") == 0);
    REQUIRE(wait_phase(s, "ctl", "ctl-b", "Failed") == 0);
    char *out = NULL, *err = NULL;
    const char *list[] = {"history", "-n", "ctl", NULL};
    CHECK_INT(server_jobctl(s, list, &out, &err), 0);
    CHECK_CONTAINS(out, "NAME");
    CHECK_CONTAINS(out, "ATTEMPTS");
    CHECK_CONTAINS(out, "ctl-a");
    CHECK_CONTAINS(out, "ctl-b");
    free(out);
    free(err);
    const char *failed[] = {"history", "-n", "ctl", "--phase", "Failed", NULL};
    CHECK_INT(server_jobctl(s, failed, &out, &err), 0);
    CHECK(out && strstr(out, "ctl-b") && !strstr(out, "ctl-a"));
    free(out);
    free(err);
    const char *one[] = {"history", "-n", "ctl", "--limit", "1", NULL};
    CHECK_INT(server_jobctl(s, one, &out, &err), 0);
    CHECK(out && (strstr(out, "ctl-a") != NULL) != (strstr(out, "ctl-b") != NULL));
    bool first_is_a = out && strstr(out, "ctl-a");
    /* the page says how to get the next one, which holds the other job and says no more */
    char token[256] = "";
    const char *hint = err ? strstr(err, "--continue ") : NULL;
    if (hint)
        sscanf(hint + strlen("--continue "), "%255s", token);
    CHECK(token[0] != '\0');
    free(out);
    free(err);
    const char *next[] = {"history", "-n", "ctl", "--limit", "1", "--continue", token, NULL};
    CHECK_INT(server_jobctl(s, next, &out, &err), 0);
    CHECK_CONTAINS(out, first_is_a ? "ctl-b" : "ctl-a");
    CHECK(out && !strstr(out, first_is_a ? "ctl-a" : "ctl-b"));
    CHECK(!err || !strstr(err, "--continue"));
    free(out);
    free(err);
    const char *since[] = {"history", "-n", "ctl", "--since", "not-a-time", NULL};
    CHECK(server_jobctl(s, since, &out, &err) != 0);
    CHECK_CONTAINS(err, "since");
    free(out);
    free(err);
    const char *del[] = {"delete", "-n", "ctl", "ctl-b", NULL};
    CHECK_INT(server_jobctl(s, del, &out, &err), 0);
    free(out);
    free(err);
    CHECK(server_wait_field(s, pathf(VCJOBS "/ctl-b", "ctl"), "code", "404", WAIT_MS) == 0);
    const char *logs[] = {"logs", "-n", "ctl", "ctl-b-t-0", "--attempt", "1", NULL};
    CHECK_INT(server_jobctl(s, logs, &out, &err), 0);
    CHECK_STR(out, "hello-b\n");
    free(out);
    free(err);
}

/* --history-retention 1s: a deleted job's rows and directory go once a second or two has passed;
 * a finished job that is not deleted keeps both. (With a commit delay: group commits hold back
 * nothing for longer than it.) */
static void retention_prunes_deleted_jobs(void)
{
    static const char *const args[] = {
        "--history-retention", "1s", "--commit-delay", "20ms", "--shutdown-grace", "2", NULL};
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    REQUIRE(submit_job(&s, "default", "keep", "", "echo keep") == 201);
    REQUIRE(submit_job(&s, "default", "drop", "", "echo drop") == 201);
    REQUIRE(wait_phase(&s, "default", "keep", "Completed") == 0);
    REQUIRE(wait_phase(&s, "default", "drop", "Completed") == 0);
    long code;
    json_t *keep = get_json(&s, pathf(VCJOBS "/keep", "default"), &code);
    json_t *drop = get_json(&s, pathf(VCJOBS "/drop", "default"), &code);
    char keep_dir[512], drop_dir[512];
    snprintf(keep_dir, sizeof keep_dir, "%s/jobs/%s", s.data_dir, dig_str(keep, "metadata.uid"));
    snprintf(drop_dir, sizeof drop_dir, "%s/jobs/%s", s.data_dir, dig_str(drop, "metadata.uid"));
    json_decref(keep);
    json_decref(drop);
    CHECK(dir_exists(drop_dir));
    json_decref(server_request(&s, "DELETE", pathf(VCJOBS "/drop", "default"), NULL, NULL, &code));
    CHECK_INT(code, 200);
    json_decref(get_expect(&s, CALDERA "/namespaces/default/jobs/drop/history", 200)); /* not yet */
    CHECK(server_wait_field(&s, CALDERA "/namespaces/default/jobs/drop/history", "code", "404", WAIT_MS) == 0);
    for (int i = 0; i < 100 && dir_exists(drop_dir); i++)
        sleep_ms(50);
    CHECK(!dir_exists(drop_dir));
    check_text(&s, "/api/v1/namespaces/default/pods/drop-t-0/log", 404, NULL);
    sleep_ms(1500); /* another round of pruning: the live finished job stays */
    json_decref(get_expect(&s, CALDERA "/namespaces/default/jobs/keep/history", 200));
    CHECK(dir_exists(keep_dir));
    check_text(&s, "/api/v1/namespaces/default/pods/keep-t-0/log", 200, "keep\n");
    server_cleanup(&s);
}

/* A deleted job whose pod takes its grace period to stop (its TERM trap runs 8 s) is not pruned
 * while it stops, however short the retention: its task still runs in its directory and its end is
 * still to be recorded. Once the pod has ended, the next round prunes it. */
static void retention_waits_for_a_stopping_pod(void)
{
    static const char *const args[] = {"--history-retention", "1s", "--shutdown-grace", "30", NULL};
    struct test_server s;
    REQUIRE(server_start(&s, NULL, args) == 0);
    long code;
    json_decref(server_request(&s, "POST", pathf(VCJOBS, "default"),
                               "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: slow}\nspec:\n"
                               "  tasks:\n  - name: t\n    replicas: 1\n    template:\n      spec:\n"
                               "        terminationGracePeriodSeconds: 20\n        containers:\n        - name: c\n"
                               "          command: [sh, -c, 'trap \"sleep 8; exit 0\" TERM; echo up; "
                               "while :; do sleep 1; done']\n",
                               "application/yaml", &code));
    REQUIRE(code == 201);
    REQUIRE(server_wait_field(&s, "/api/v1/namespaces/default/pods/slow-t-0", "status.phase", "Running", WAIT_MS) == 0);
    bool trapped = false; /* the trap is set before "up" is written */
    for (int i = 0; i < WAIT_MS / 50 && !trapped; i++) {
        char *log = server_request_text(&s, "GET", "/api/v1/namespaces/default/pods/slow-t-0/log", &code);
        trapped = log && strstr(log, "up\n");
        free(log);
        if (!trapped)
            sleep_ms(50);
    }
    REQUIRE(trapped);
    json_t *job = get_json(&s, pathf(VCJOBS "/slow", "default"), &code);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/jobs/%s", s.data_dir, dig_str(job, "metadata.uid"));
    json_decref(job);
    json_decref(server_request(&s, "DELETE", pathf(VCJOBS "/slow", "default"), NULL, NULL, &code));
    CHECK_INT(code, 200);
    sleep_ms(2500); /* two pruning rounds past the retention, while the trap still runs */
    json_decref(get_expect(&s, CALDERA "/namespaces/default/jobs/slow/history", 200));
    CHECK(dir_exists(dir));
    CHECK(server_wait_field(&s, CALDERA "/namespaces/default/jobs/slow/history", "code", "404", WAIT_MS) == 0);
    for (int i = 0; i < 100 && dir_exists(dir); i++)
        sleep_ms(50);
    CHECK(!dir_exists(dir));
    server_cleanup(&s);
}

static void stop_shared(void)
{
    if (shared_up)
        server_cleanup(&shared);
    shared_up = false;
}

TEST_MAIN(TEST_CASE(retried_job_history), TEST_CASE(list_pages_and_filters), TEST_CASE(commands_and_nodes_recorded),
          TEST_CASE(jobctl_history_and_logs), TEST_CASE(retention_prunes_deleted_jobs),
          TEST_CASE(retention_waits_for_a_stopping_pod), TEST_CASE(stop_shared))
