/* Debug sessions end to end on a real server: a DebugSession posted at its path becomes a Volcano Job
 * whose one pod runs and holds its resources, reads back with its companions' URLs, waits with its
 * pending reason when too big, ends when deleted; `jobctl debug` creates one and follows it (against
 * the server, and against a stand-in whose companions answer as scripted). */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define SESSIONS "/apis/caldera.io/v1/namespaces/default/debugsessions"
#define PODS "/api/v1/namespaces/default/pods"
#define WAIT_MS 30000

static struct test_server server;
static bool server_up;

static bool start(void)
{
    if (server_up)
        return true;
    static const char *const args[] = {"--nodes", "examples/nodes.yaml", NULL};
    server_up = server_start(&server, NULL, args) == 0;
    return server_up;
}

static const char *str_at(json_t *v, const char *path) { return json_string_value(server_json_at(v, path)); }

static json_t *get(const char *path, long *code) { return server_request(&server, "GET", path, NULL, NULL, code); }

/* Posts a YAML DebugSession named name holding cpu and memory; the answer's code. */
static long post_session(const char *name, const char *cpu, const char *memory)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "apiVersion: caldera.io/v1\nkind: DebugSession\nmetadata:\n  name: %s\n  labels: {owner: alice}\n"
             "spec:\n  resources: {cpu: \"%s\", memory: %s}\n  companions: [jupyter, terminal]\n"
             "  image: python:3.12\n  duration: 1h\n",
             name, cpu, memory);
    long code = 0;
    json_t *answer = server_request(&server, "POST", SESSIONS, yaml, "application/yaml", &code);
    if (code == 201) {
        CHECK_STR(str_at(answer, "kind"), "DebugSession");
        CHECK_STR(str_at(answer, "metadata.name"), name);
    }
    json_decref(answer);
    return code;
}

static void session_runs_a_pod_that_holds_its_resources(void)
{
    REQUIRE(start());
    REQUIRE(post_session("dbg", "2", "1Gi") == 201);
    long code = 0;
    json_t *obj = get(SESSIONS "/dbg", &code);
    CHECK_INT(code, 200);
    CHECK_STR(str_at(obj, "spec.companions.1"), "terminal");
    CHECK_STR(str_at(obj, "status.companions.0.name"), "dbg-jupyter");
    CHECK_STR(str_at(obj, "status.companions.0.url"), "/proxy/default/dbg-jupyter/");
    CHECK_STR(str_at(obj, "status.companions.1.url"), "/proxy/default/dbg-terminal/");
    json_decref(obj);

    /* the Volcano Job behind it, marked and annotated for the core's companions */
    json_t *job = get(JOBS "/dbg", &code);
    CHECK_INT(code, 200);
    json_t *annotations = server_json_at(job, "metadata.annotations");
    CHECK_STR(json_string_value(json_object_get(annotations, "caldera.io/debug-session")), "true");
    CHECK_STR(json_string_value(json_object_get(annotations, "caldera.io/companions")), "jupyter,terminal");
    CHECK_STR(str_at(job, "metadata.labels.owner"), "alice");
    CHECK_STR(str_at(job, "spec.tasks.0.name"), "session");
    json_decref(job);

    /* its pod runs and holds what was asked */
    CHECK(server_wait_field(&server, PODS "/dbg-session-0", "status.phase", "Running", WAIT_MS) == 0);
    json_t *pod = get(PODS "/dbg-session-0", &code);
    CHECK_STR(str_at(pod, "spec.containers.0.resources.requests.cpu"), "2");
    CHECK_STR(str_at(pod, "spec.containers.0.command.0"), "sleep");
    CHECK(str_at(pod, "spec.nodeName") != NULL);
    json_decref(pod);
    CHECK(server_wait_field(&server, SESSIONS "/dbg", "status.phase", "Running", WAIT_MS) == 0);
    obj = get(SESSIONS "/dbg", &code);
    CHECK(str_at(obj, "status.startTime") != NULL);
    CHECK(str_at(obj, "status.deadline") != NULL);
    json_decref(obj);

    /* listed at its path */
    json_t *list = get(SESSIONS, &code);
    CHECK_INT(code, 200);
    CHECK_STR(str_at(list, "kind"), "DebugSessionList");
    json_decref(list);

    /* a PUT may change only the deadline (422 for the rest), a PATCH extends it (test_debug_session_life
     * has more); the Volcano Job behind a session cannot be replaced (409) */
    const char *longer =
        "{\"apiVersion\":\"caldera.io/v1\",\"kind\":\"DebugSession\",\"metadata\":{\"name\":"
        "\"dbg\"},\"spec\":{\"resources\":{\"cpu\":\"2\"},\"companions\":[\"jupyter\"],"
        "\"duration\":\"10h\"}}";
    json_decref(server_request(&server, "PUT", SESSIONS "/dbg", longer, NULL, &code));
    CHECK_INT(code, 422);
    json_decref(server_request(&server, "PATCH", SESSIONS "/dbg", "{\"spec\":{\"duration\":\"10h\"}}",
                               "application/merge-patch+json", &code));
    CHECK_INT(code, 200);
    job = get(JOBS "/dbg", &code);
    char *text = json_dumps(job, 0);
    json_decref(server_request(&server, "PUT", JOBS "/dbg", text, NULL, &code));
    CHECK_INT(code, 409);
    free(text);
    json_decref(job);

    /* DELETE ends it: the session, its job and its pod go */
    json_t *gone = server_request(&server, "DELETE", SESSIONS "/dbg", NULL, NULL, &code);
    CHECK(code == 200 || code == 202);
    json_decref(gone);
    CHECK(server_wait_field(&server, SESSIONS "/dbg", "code", "404", WAIT_MS) == 0);
    CHECK(server_wait_field(&server, PODS "/dbg-session-0", "code", "404", WAIT_MS) == 0);
}

static void too_big_waits_with_its_pending_reason(void)
{
    REQUIRE(start());
    REQUIRE(post_session("huge", "64", "1Gi") == 201);
    CHECK(server_wait_field(&server, SESSIONS "/huge", "status.reason", "Unschedulable", WAIT_MS) == 0);
    long code = 0;
    json_t *obj = get(SESSIONS "/huge", &code);
    CHECK_STR(str_at(obj, "status.phase"), "Pending");
    CHECK(str_at(obj, "status.message") != NULL && *str_at(obj, "status.message"));
    CHECK(str_at(obj, "status.deadline") == NULL);
    json_decref(obj);
    json_decref(server_request(&server, "DELETE", SESSIONS "/huge", NULL, NULL, &code));
    CHECK_INT(code, 200);
}

/* A GPU session tolerating the GPU node's taint runs there and holds its GPU. */
static void gpu_session_on_a_tainted_node(void)
{
    REQUIRE(start());
    long code = 0;
    json_decref(server_request(&server, "POST", SESSIONS,
                               "apiVersion: caldera.io/v1\nkind: DebugSession\nmetadata:\n  name: gpu\nspec:\n"
                               "  resources: {cpu: 1, memory: 2Gi, nvidia.com/gpu: 1}\n  companions: [jupyter]\n"
                               "  tolerations: [{key: dedicated, value: gpu, effect: NoSchedule}]\n",
                               "application/yaml", &code));
    REQUIRE(code == 201);
    CHECK(server_wait_field(&server, PODS "/gpu-session-0", "status.phase", "Running", WAIT_MS) == 0);
    json_t *pod = get(PODS "/gpu-session-0", &code);
    CHECK_STR(str_at(pod, "spec.nodeName"), "node-c");
    CHECK_STR(json_string_value(
                  json_object_get(server_json_at(pod, "spec.containers.0.resources.requests"), "nvidia.com/gpu")),
              "1");
    json_decref(pod);
    json_decref(server_request(&server, "DELETE", SESSIONS "/gpu", NULL, NULL, &code));
    CHECK_INT(code, 200);
}

/* At its deadline the pod is killed and the session has Ended (DeadlineExceeded), not Failed. */
static void deadline_ends_the_session(void)
{
    REQUIRE(start());
    long code = 0;
    json_decref(server_request(&server, "POST", SESSIONS,
                               "apiVersion: caldera.io/v1\nkind: DebugSession\nmetadata:\n  name: short\nspec:\n"
                               "  resources: {cpu: 1}\n  companions: [terminal]\n  duration: 2s\n",
                               "application/yaml", &code));
    REQUIRE(code == 201);
    CHECK(server_wait_field(&server, SESSIONS "/short", "status.phase", "Running", WAIT_MS) == 0);
    CHECK(server_wait_field(&server, SESSIONS "/short", "status.phase", "Ended", WAIT_MS) == 0);
    json_t *obj = get(SESSIONS "/short", &code);
    CHECK_STR(str_at(obj, "status.reason"), "DeadlineExceeded");
    CHECK(str_at(obj, "status.endTime") != NULL);
    json_decref(obj);
    json_t *pod = get(PODS "/short-session-0", &code);
    CHECK_STR(str_at(pod, "status.reason"), "DeadlineExceeded");
    json_decref(pod);
    json_decref(server_request(&server, "DELETE", SESSIONS "/short", NULL, NULL, &code));
}

static void errors_name_the_field_and_line(void)
{
    REQUIRE(start());
    long code = 0;
    json_t *st = server_request(&server, "POST", SESSIONS,
                                "apiVersion: caldera.io/v1\nkind: DebugSession\nmetadata:\n  name: bad\nspec:\n"
                                "  resources: {cpu: 1}\n  companions: [jupyter]\n  duration: 30d\n",
                                "application/yaml", &code);
    CHECK_INT(code, 422);
    CHECK_STR(str_at(st, "details.causes.0.field"), "spec.duration");
    CHECK_CONTAINS(str_at(st, "details.causes.0.message"), "line 8");
    json_decref(st);
}

static void jobctl_debug_creates_and_follows(void)
{
    REQUIRE(start());
    char *out = NULL, *err = NULL;
    const char *const no_wait[] = {"debug",    "--cpu",  "1",        "--memory",  "512Mi", "--companion",
                                   "terminal", "--name", "from-ctl", "--no-wait", NULL};
    CHECK_INT(server_jobctl(&server, no_wait, &out, &err), 0);
    CHECK_CONTAINS(out, "debugsession.caldera.io/from-ctl created");
    free(out);
    free(err);
    long code = 0;
    json_t *obj = get(SESSIONS "/from-ctl", &code);
    CHECK_INT(code, 200);
    CHECK_STR(str_at(obj, "spec.resources.memory"), "512Mi");
    json_decref(obj);

    /* a session too big for any node never runs, so its companion is never Ready: --timeout says what
     * it waited for, and that the session keeps running */
    const char *const follow[] = {"debug",  "--cpu",  "64",        "--companion", "jupyter",
                                  "--name", "waiter", "--timeout", "4s",          NULL};
    CHECK_INT(server_jobctl(&server, follow, &out, &err), 1);
    CHECK_CONTAINS(out, "debugsession.caldera.io/waiter created");
    CHECK_CONTAINS(err, "gave up after --timeout");
    CHECK(strstr(err, "waiting for companion waiter-jupyter") || strstr(err, "debug session waiter is still"));
    CHECK_CONTAINS(err, "jobctl delete debugsession waiter");
    free(out);
    free(err);
    CHECK_INT(server_wait_field(&server, SESSIONS "/waiter", "metadata.name", "waiter", 1000), 0);

    /* jobctl delete debugsession NAME */
    const char *const del[] = {"delete", "debugsession", "from-ctl", NULL};
    CHECK_INT(server_jobctl(&server, del, &out, &err), 0);
    CHECK_CONTAINS(out, "debugsession.caldera.io/from-ctl deleted");
    free(out);
    free(err);
    const char *const del2[] = {"delete", "ds", "waiter", NULL};
    CHECK_INT(server_jobctl(&server, del2, &out, &err), 0);
    free(out);
    free(err);

    /* a usage error names what is missing */
    const char *const bare[] = {"debug", "--cpu", "1", NULL};
    CHECK_INT(server_jobctl(&server, bare, &out, &err), 2);
    CHECK_CONTAINS(err, "--companion");
    free(out);
    free(err);
}

/* --- jobctl debug against a stand-in server with the companions API --------------------------------- */

/* The stand-in: the session "fake" is Pending once (with its reason), then Running; its jupyter is
 * missing (404), then Starting, then Ready; its terminal is Ready. The session "broken" runs and its
 * jupyter Failed. */
static atomic_int session_gets, jupyter_gets;
static char posted[2048];

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned code, const char *body)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(resp, "Content-Type", "application/json");
    enum MHD_Result rc = MHD_queue_response(conn, code, resp);
    MHD_destroy_response(resp);
    return rc;
}

#define STAND_IN_NS "/apis/caldera.io/v1/namespaces/default/"
#define NOT_FOUND "{\"kind\":\"Status\",\"status\":\"Failure\",\"code\":404,\"reason\":\"NotFound\"}"

static enum MHD_Result stand_in(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                const char *version, const char *data, size_t *size, void **state)
{
    (void)cls, (void)version;
    static int marker;
    if (!*state) {
        *state = &marker;
        return MHD_YES;
    }
    if (*size > 0) {
        snprintf(posted, sizeof posted, "%.*s", (int)*size, data);
        *size = 0;
        return MHD_YES;
    }
    if (strcmp(method, "POST") == 0 && strcmp(url, STAND_IN_NS "debugsessions") == 0) {
        json_t *doc = json_loads(posted, 0, NULL);
        const char *name = str_at(doc, "metadata.name");
        char body[256];
        snprintf(body, sizeof body, "{\"kind\":\"DebugSession\",\"metadata\":{\"name\":\"%s\"}}", name ? name : "");
        json_decref(doc);
        return answer(conn, 201, body);
    }
    if (strcmp(url, STAND_IN_NS "debugsessions/fake") == 0)
        return answer(conn, 200,
                      atomic_fetch_add(&session_gets, 1) == 0
                          ? "{\"status\":{\"phase\":\"Pending\",\"reason\":\"Unschedulable\",\"message\":\"0/3 "
                            "nodes are available: 3 Insufficient cpu\"}}"
                          : "{\"status\":{\"phase\":\"Running\"}}");
    if (strcmp(url, STAND_IN_NS "debugsessions/broken") == 0)
        return answer(conn, 200, "{\"status\":{\"phase\":\"Running\"}}");
    if (strcmp(url, STAND_IN_NS "companions/fake-jupyter") == 0) {
        int n = atomic_fetch_add(&jupyter_gets, 1);
        return n == 0 ? answer(conn, 404, NOT_FOUND)
               : n == 1
                   ? answer(conn, 200, "{\"status\":{\"phase\":\"Starting\"}}")
                   : answer(conn, 200, "{\"status\":{\"phase\":\"Ready\",\"url\":\"/proxy/default/fake-jupyter/\"}}");
    }
    if (strcmp(url, STAND_IN_NS "companions/fake-terminal") == 0)
        return answer(conn, 200, "{\"status\":{\"phase\":\"Ready\",\"url\":\"/proxy/default/fake-terminal/\"}}");
    if (strcmp(url, STAND_IN_NS "companions/broken-jupyter") == 0)
        return answer(conn, 200,
                      "{\"status\":{\"phase\":\"Failed\",\"reason\":\"NotInstalled\",\"message\":\"not "
                      "installed: jupyter\"}}");
    return answer(conn, 404, NOT_FOUND);
}

static void jobctl_debug_prints_urls_once_companions_are_ready(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL,
                                            NULL, stand_in, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                                            MHD_OPTION_END);
    REQUIRE(d);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    struct test_server fake = {0};
    snprintf(fake.url, sizeof fake.url, "http://127.0.0.1:%u", info ? (unsigned)info->port : 0u);

    char *out = NULL, *err = NULL;
    const char *const follow[] = {"debug",  "--cpu",       "2",       "--memory",    "4Gi",         "--gpu",
                                  "1",      "--companion", "jupyter", "--companion", "terminal",    "--name",
                                  "fake",   "--for",       "2h",      "--image",     "python:3.12", "--token",
                                  "s3cret", "--timeout",   "20s",     NULL};
    CHECK_INT(server_jobctl(&fake, follow, &out, &err), 0);
    CHECK_CONTAINS(out, "debugsession.caldera.io/fake created");
    char line[256];
    snprintf(line, sizeof line, "jupyter      %s/proxy/default/fake-jupyter/\n", fake.url);
    CHECK_CONTAINS(out, line);
    snprintf(line, sizeof line, "terminal     %s/proxy/default/fake-terminal/\n", fake.url);
    CHECK_CONTAINS(out, line);
    CHECK_CONTAINS(out, "?token=<your token>");
    CHECK(!strstr(out, "s3cret") && !strstr(err, "s3cret"));
    CHECK_CONTAINS(err, "debugsession.caldera.io/fake Pending: Unschedulable: 0/3 nodes are available");
    CHECK_CONTAINS(err, "debugsession.caldera.io/fake Running");
    /* what was posted */
    json_t *doc = json_loads(posted, 0, NULL);
    CHECK_STR(str_at(doc, "kind"), "DebugSession");
    CHECK_STR(json_string_value(json_object_get(server_json_at(doc, "spec.resources"), "nvidia.com/gpu")), "1");
    CHECK_STR(str_at(doc, "spec.duration"), "2h");
    CHECK_STR(str_at(doc, "spec.image"), "python:3.12");
    CHECK_STR(str_at(doc, "spec.companions.1"), "terminal");
    json_decref(doc);
    free(out);
    free(err);

    const char *const broken[] = {"debug", "--cpu", "1", "--companion", "jupyter", "--name", "broken", NULL};
    CHECK_INT(server_jobctl(&fake, broken, &out, &err), 1);
    CHECK_CONTAINS(err, "companion broken-jupyter failed: Failed: NotInstalled: not installed: jupyter");
    free(out);
    free(err);
    MHD_stop_daemon(d);
}

/* A session is read back from the store after a restart as it was posted (duration kept, one deadline). */
static void sessions_survive_a_restart(void)
{
    REQUIRE(start());
    REQUIRE(post_session("keep", "1", "256Mi") == 201);
    CHECK_INT(server_stop(&server), 0);
    static const char *const args[] = {"--nodes", "examples/nodes.yaml", NULL};
    server_up = server_start(&server, server.data_dir, args) == 0;
    REQUIRE(server_up);
    long code = 0;
    json_t *obj = get(SESSIONS "/keep", &code);
    CHECK_INT(code, 200);
    CHECK_STR(str_at(obj, "spec.duration"), "1h");
    CHECK(server_json_at(obj, "spec.activeDeadlineSeconds") == NULL);
    CHECK_STR(str_at(obj, "status.companions.1.name"), "keep-terminal");
    json_decref(obj);
    json_t *job = get(JOBS "/keep", &code);
    CHECK_INT(json_integer_value(server_json_at(job, "spec.tasks.0.template.spec.activeDeadlineSeconds")), 3600);
    json_decref(job);
    CHECK_INT(server_stop(&server), 0);
    server_cleanup(&server);
    server_up = false;
}

TEST_MAIN(TEST_CASE(session_runs_a_pod_that_holds_its_resources), TEST_CASE(too_big_waits_with_its_pending_reason),
          TEST_CASE(gpu_session_on_a_tainted_node), TEST_CASE(deadline_ends_the_session),
          TEST_CASE(errors_name_the_field_and_line), TEST_CASE(jobctl_debug_creates_and_follows),
          TEST_CASE(jobctl_debug_prints_urls_once_companions_are_ready), TEST_CASE(sessions_survive_a_restart))
