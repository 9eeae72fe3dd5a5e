/* How a debug session ends, on a real server: at its deadline (DeadlineExceeded), when every companion
 * was idle past its idle timeout (Idle), when deleted (gone; Deleted in its history); and how a PATCH
 * or PUT extends it (its deadline moves, the pod outlives the old one) and refuses any other change. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define SESSIONS "/apis/caldera.io/v1/namespaces/default/debugsessions"
#define PODS "/api/v1/namespaces/default/pods"
#define EVENTS "/api/v1/namespaces/default/events"
#define HISTORY "/apis/caldera.io/v1/namespaces/default/jobs"
#define MERGE "application/merge-patch+json"
#define WAIT_MS 30000
#define READY_MS 90000

#define COMPANIONS_FILE     \
    "companions:\n"         \
    "  terminal:\n"         \
    "    idleTimeout: 2s\n" \
    "    activity: proxy\n"

static struct test_server server;
static bool server_up;
static char companions_file[] = "/tmp/caldera-ds-life-XXXXXX";

static void remove_file(void) { unlink(companions_file); }

/* One server for every case, its terminal idle after 2 s. */
static bool start(void)
{
    if (server_up)
        return true;
    int fd = mkstemp(companions_file);
    if (fd < 0 || write(fd, COMPANIONS_FILE, strlen(COMPANIONS_FILE)) != (ssize_t)strlen(COMPANIONS_FILE))
        return false;
    close(fd);
    atexit(remove_file);
    static const char *args[] = {"--nodes",     "examples/nodes.yaml", "--shutdown-grace", "2", "--companion-ports",
                                 "44100-44199", "--companions",        companions_file,    NULL};
    server_up = server_start(&server, NULL, args) == 0;
    return server_up;
}

static const char *str_at(json_t *v, const char *path) { return json_string_value(server_json_at(v, path)); }

static json_t *get(const char *path, long *code) { return server_request(&server, "GET", path, NULL, NULL, code); }

/* Posts a session named name with its companions and duration; the answer's code. */
static long post(const char *name, const char *companions, const char *duration)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "apiVersion: caldera.io/v1\nkind: DebugSession\nmetadata:\n  name: %s\n"
             "spec:\n  resources: {cpu: \"1\", memory: 256Mi}\n  companions: [%s]\n  duration: %s\n",
             name, companions, duration);
    long code = 0;
    json_decref(server_request(&server, "POST", SESSIONS, yaml, "application/yaml", &code));
    return code;
}

/* Whether an event of kind/name has reason (and a message holding want, when not NULL). */
static bool has_event(const char *kind, const char *name, const char *reason, const char *want)
{
    json_t *list = get(EVENTS, NULL);
    bool found = false;
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(list, "items"), i, ev)
    {
        const char *k = str_at(ev, "involvedObject.kind"), *n = str_at(ev, "involvedObject.name"),
                   *r = str_at(ev, "reason"), *m = str_at(ev, "message");
        if (k && n && r && strcmp(k, kind) == 0 && strcmp(n, name) == 0 && strcmp(r, reason) == 0 &&
            (!want || (m && strstr(m, want))))
            found = true;
    }
    json_decref(list);
    return found;
}

static void deadline_ends_it_with_deadline_exceeded(void)
{
    REQUIRE(start());
    REQUIRE(post("brief", "jupyter", "3s") == 201); /* its idle timeout is long */
    CHECK(server_wait_field(&server, SESSIONS "/brief", "status.phase", "Running", WAIT_MS) == 0);
    CHECK(server_wait_field(&server, SESSIONS "/brief", "status.phase", "Ended", WAIT_MS) == 0);
    long code = 0;
    json_t *obj = get(SESSIONS "/brief", &code);
    CHECK_STR(str_at(obj, "status.reason"), "DeadlineExceeded");
    CHECK_STR(str_at(obj, "status.jobPhase"), "Failed");
    json_decref(obj);
    json_t *job = get(JOBS "/brief", &code);
    CHECK_STR(str_at(job, "status.state.reason"), "DeadlineExceeded");
    json_decref(job);
    CHECK(has_event("Job", "brief", "DeadlineExceeded", NULL));
    json_decref(server_request(&server, "DELETE", SESSIONS "/brief", NULL, NULL, &code));
}

static void idle_companions_end_it_with_idle(void)
{
    REQUIRE(start());
    REQUIRE(post("lazy", "terminal", "1h") == 201);
    CHECK(server_wait_field(&server, "/apis/caldera.io/v1/namespaces/default/companions/lazy-terminal", "status.phase",
                            "Ready", READY_MS) == 0);
    CHECK(server_wait_field(&server, SESSIONS "/lazy", "status.phase", "Ended", WAIT_MS) == 0);
    long code = 0;
    json_t *obj = get(SESSIONS "/lazy", &code);
    CHECK_STR(str_at(obj, "status.reason"), "Idle");
    CHECK_CONTAINS(str_at(obj, "status.message"), "SessionIdle: every companion idle");
    CHECK_CONTAINS(str_at(obj, "status.message"), "terminal 2s");
    CHECK_STR(str_at(obj, "status.jobPhase"), "Terminated");
    json_decref(obj);
    CHECK(has_event("Job", "lazy", "SessionIdle", "every companion idle"));
    /* the history keeps it */
    json_t *hist = get(HISTORY "/lazy/history", &code);
    CHECK_INT(code, 200);
    char *text = json_dumps(hist, 0);
    CHECK_CONTAINS(text, "SessionIdle");
    free(text);
    json_decref(hist);
    json_decref(server_request(&server, "DELETE", SESSIONS "/lazy", NULL, NULL, &code));
}

/* The session's deadline as its status gives it, in ms since the epoch (0: none). */
static int64_t deadline_ms(void)
{
    json_t *obj = get(SESSIONS "/long", NULL);
    const char *text = str_at(obj, "status.deadline");
    struct tm tm = {0};
    int64_t ms = 0;
    if (text && strptime(text, "%Y-%m-%dT%H:%M:%S", &tm))
        ms = (int64_t)timegm(&tm) * 1000;
    json_decref(obj);
    return ms;
}

static void patch_extends_a_running_session(void)
{
    REQUIRE(start());
    REQUIRE(post("long", "jupyter", "8s") == 201);
    CHECK(server_wait_field(&server, SESSIONS "/long", "status.phase", "Running", WAIT_MS) == 0);
    int64_t before = deadline_ms();
    CHECK(before > 0);
    long code = 0;
    json_t *obj = server_request(&server, "PATCH", SESSIONS "/long", "{\"spec\":{\"duration\":\"1h\"}}", MERGE, &code);
    CHECK_INT(code, 200);
    CHECK_STR(str_at(obj, "spec.duration"), "1h");
    CHECK(server_json_at(obj, "spec.activeDeadlineSeconds") == NULL);
    json_decref(obj);
    int64_t after = deadline_ms();
    CHECK(after - before == 3592 * 1000);
    /* past the old deadline it still runs */
    sleep(10);
    obj = get(SESSIONS "/long", &code);
    CHECK_STR(str_at(obj, "status.phase"), "Running");
    json_decref(obj);
    json_t *pod = get(PODS "/long-session-0", &code);
    CHECK_STR(str_at(pod, "status.phase"), "Running");
    CHECK_INT(json_integer_value(server_json_at(pod, "spec.activeDeadlineSeconds")), 3600);
    json_decref(pod);
    CHECK(has_event("Job", "long", "Updated", "from 8s to 3600s"));

    /* a PUT of the object read back may change it too; activeDeadlineSeconds this time */
    obj = get(SESSIONS "/long", &code);
    json_object_del(json_object_get(obj, "spec"), "duration");
    json_object_set_new(json_object_get(obj, "spec"), "activeDeadlineSeconds", json_integer(7200));
    char *text = json_dumps(obj, 0);
    json_decref(obj);
    obj = server_request(&server, "PUT", SESSIONS "/long", text, NULL, &code);
    free(text);
    CHECK_INT(code, 200);
    CHECK_INT(json_integer_value(server_json_at(obj, "spec.activeDeadlineSeconds")), 7200);
    json_decref(obj);
    CHECK(deadline_ms() - before == 7192 * 1000);

    /* anything else is immutable: 422 naming the field */
    json_t *st = server_request(&server, "PATCH", SESSIONS "/long", "{\"spec\":{\"resources\":{\"cpu\":\"4\"}}}", MERGE,
                                &code);
    CHECK_INT(code, 422);
    CHECK_STR(str_at(st, "details.causes.0.field"), "spec.resources");
    CHECK_CONTAINS(str_at(st, "details.causes.0.message"), "field is immutable");
    json_decref(st);
    st = server_request(&server, "PATCH", SESSIONS "/long", "{\"spec\":{\"duration\":\"30d\"}}", MERGE, &code);
    CHECK_INT(code, 422);
    CHECK_STR(str_at(st, "details.causes.0.field"), "spec.duration");
    json_decref(st);
    json_decref(server_request(&server, "PATCH", SESSIONS "/long", "{\"spec\":{}}", "application/json", &code));
    CHECK_INT(code, 415);

    /* a deadline already past ends it at once, DeadlineExceeded */
    obj = server_request(&server, "PATCH", SESSIONS "/long", "{\"spec\":{\"activeDeadlineSeconds\":1}}", MERGE, &code);
    CHECK_INT(code, 200);
    json_decref(obj);
    CHECK(server_wait_field(&server, SESSIONS "/long", "status.phase", "Ended", WAIT_MS) == 0);
    CHECK(server_wait_field(&server, SESSIONS "/long", "status.reason", "DeadlineExceeded", WAIT_MS) == 0);
    json_decref(server_request(&server, "DELETE", SESSIONS "/long", NULL, NULL, &code));
}

/* Kubernetes' way: a deleted object is gone (404); its history says Deleted. */
static void a_deleted_session_is_gone_and_its_history_says_deleted(void)
{
    REQUIRE(start());
    REQUIRE(post("gone", "terminal", "1h") == 201);
    CHECK(server_wait_field(&server, SESSIONS "/gone", "status.phase", "Running", WAIT_MS) == 0);
    long code = 0;
    json_decref(server_request(&server, "DELETE", SESSIONS "/gone", NULL, NULL, &code));
    CHECK_INT(code, 200);
    CHECK(server_wait_field(&server, SESSIONS "/gone", "code", "404", WAIT_MS) == 0);
    json_t *hist = get(HISTORY "/gone/history", &code);
    CHECK_INT(code, 200);
    char *text = json_dumps(hist, 0);
    CHECK_CONTAINS(text, "Deleted");
    free(text);
    json_decref(hist);
}

/* jobctl debug --extend NAME --for D; the extension outlives a restart of the server. */
static void jobctl_extends_and_a_restart_keeps_it(void)
{
    REQUIRE(start());
    REQUIRE(post("kept", "jupyter", "1h") == 201);
    CHECK(server_wait_field(&server, SESSIONS "/kept", "status.phase", "Running", WAIT_MS) == 0);
    char *out = NULL, *err = NULL;
    const char *const args[] = {"debug", "--extend", "kept", "--for", "3h", NULL};
    CHECK_INT(server_jobctl(&server, args, &out, &err), 0);
    CHECK_CONTAINS(out, "debugsession.caldera.io/kept extended: duration 3h, deadline ");
    free(out);
    free(err);
    const char *const bare[] = {"debug", "--extend", "kept", NULL};
    CHECK_INT(server_jobctl(&server, bare, &out, &err), 2);
    CHECK_CONTAINS(err, "--for");
    free(out);
    free(err);
    REQUIRE(server_stop(&server) == 0);
    server_up = false;
    static const char *args2[] = {"--nodes",     "examples/nodes.yaml", "--shutdown-grace", "2", "--companion-ports",
                                  "44100-44199", "--companions",        companions_file,    NULL};
    REQUIRE(server_start(&server, server.data_dir, args2) == 0);
    server_up = true;
    long code = 0;
    json_t *obj = get(SESSIONS "/kept", &code);
    CHECK_INT(code, 200);
    CHECK_STR(str_at(obj, "spec.duration"), "3h");
    json_decref(obj);
    json_t *job = get(JOBS "/kept", &code);
    CHECK_INT(json_integer_value(server_json_at(job, "spec.tasks.0.template.spec.activeDeadlineSeconds")), 10800);
    json_decref(job);
    json_decref(server_request(&server, "DELETE", SESSIONS "/kept", NULL, NULL, &code));
}

TEST_MAIN(TEST_CASE(deadline_ends_it_with_deadline_exceeded), TEST_CASE(idle_companions_end_it_with_idle),
          TEST_CASE(patch_extends_a_running_session), TEST_CASE(a_deleted_session_is_gone_and_its_history_says_deleted),
          TEST_CASE(jobctl_extends_and_a_restart_keeps_it))
