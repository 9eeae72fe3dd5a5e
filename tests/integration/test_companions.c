/* Companions against the real jobserver and the real programs (Debian's jupyter-notebook, Caldera's
 * caldera-terminal), on loopback: a Volcano Job annotated caldera.io/companions gets them Ready beside
 * its task, as its user, in its cgroup, behind their secret; they are Cleaned when the job completes,
 * gone when it is deleted, started again when the task restarts and after a crash of the server; a
 * missing program is Failed NotInstalled, one that exits by itself Failed Exited, an idle one is
 * Cleaned, a bad --companions file stops the server; the companions API creates, refuses and deletes. */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"
#include "tests/lib/watch_client.h"

#define READY_MS 90000 /* jupyter under ASan and a loaded machine */
#define WAIT_MS 20000
#define NOBODY 65534
#define COMPANIONS "/apis/caldera.io/v1/namespaces/default/companions"
#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"

/* A server on its own data directory with its own companion ports. */
static int start(struct test_server *s, const char *ports, const char *companions_file)
{
    const char *args[] = {"--restart-backoff",
                          "100",
                          "--shutdown-grace",
                          "2",
                          "--companion-ports",
                          ports,
                          companions_file ? "--companions" : NULL,
                          companions_file,
                          NULL};
    return server_start(s, NULL, args);
}

/* A directory every user may write, for the tasks' signals. */
static void control_dir(char *out, size_t len)
{
    snprintf(out, len, "/tmp/caldera-comp-XXXXXX");
    if (mkdtemp(out))
        chmod(out, 0777);
}

/* A job whose task runs script (sh -c) as nobody, with the annotation's companions. */
static long submit(const struct test_server *s, const char *name, const char *companions, const char *script,
                   const char *restart_policy)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "apiVersion: batch.volcano.sh/v1alpha1\n"
             "kind: Job\n"
             "metadata:\n"
             "  name: %s\n"
             "  annotations:\n"
             "    caldera.io/companions: \"%s\"\n"
             "spec:\n"
             "  minAvailable: 1\n"
             "  maxRetry: 3\n"
             "  tasks:\n"
             "  - name: main\n"
             "    replicas: 1\n"
             "    maxRetry: 3\n"
             "    template:\n"
             "      spec:\n"
             "        restartPolicy: %s\n"
             "        securityContext: {runAsUser: %d, runAsGroup: %d}\n"
             "        containers:\n"
             "        - name: c\n"
             "          image: x\n"
             "          command: [sh, -c, '%s']\n",
             name, companions, restart_policy ? restart_policy : "Never", NOBODY, NOBODY, script);
    long code = 0;
    json_t *answer = server_request(s, "POST", JOBS, yaml, "application/yaml", &code);
    if (code != 201) {
        char *text = json_dumps(answer, JSON_COMPACT);
        fprintf(stderr, "# submit %s: %ld %s\n", name, code, text ? text : "");
        free(text);
    }
    json_decref(answer);
    return code;
}

/* On a timeout, the companion's status is printed: a Failed one says why (its reason and message). */
static int wait_phase(const struct test_server *s, const char *name, const char *phase, int ms)
{
    char path[256];
    snprintf(path, sizeof path, COMPANIONS "/%s", name);
    int rc = server_wait_field(s, path, "status.phase", phase, ms);
    if (rc != 0) {
        json_t *now = server_request(s, "GET", path, NULL, NULL, NULL);
        char *text = now ? json_dumps(json_object_get(now, "status"), JSON_COMPACT) : NULL;
        fprintf(stderr, "# %s's status: %s\n", name, text ? text : "(unreadable)");
        free(text);
        json_decref(now);
    }
    return rc;
}

static json_t *companion(const struct test_server *s, const char *name, long *code)
{
    char path[256];
    snprintf(path, sizeof path, COMPANIONS "/%s", name);
    return server_request(s, "GET", path, NULL, NULL, code);
}

/* The pid in the message of the last event of kind/name with reason ("... pid N ..."); 0 when none. */
static long event_pid(const struct test_server *s, const char *kind, const char *name, const char *reason)
{
    json_t *list = server_request(s, "GET", "/api/v1/namespaces/default/events", NULL, NULL, NULL);
    long pid = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(list, "items"), i, ev)
    {
        const char *k = jv_str(ev, "involvedObject.kind"), *n = jv_str(ev, "involvedObject.name"),
                   *r = jv_str(ev, "reason"), *m = jv_str(ev, "message");
        const char *p = m ? strstr(m, "pid ") : NULL;
        if (k && n && r && p && strcmp(k, kind) == 0 && strcmp(n, name) == 0 && strcmp(r, reason) == 0)
            pid = strtol(p + 4, NULL, 10);
    }
    json_decref(list);
    return pid;
}

/* How many events of companion name have reason and, when want is not NULL, a message holding it. */
static int count_events(const struct test_server *s, const char *name, const char *reason, const char *want)
{
    json_t *list = server_request(s, "GET", "/api/v1/namespaces/default/events", NULL, NULL, NULL);
    int n = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(list, "items"), i, ev)
    {
        const char *k = jv_str(ev, "involvedObject.kind"), *nm = jv_str(ev, "involvedObject.name"),
                   *r = jv_str(ev, "reason"), *m = jv_str(ev, "message");
        n += k && nm && r && strcmp(k, "Companion") == 0 && strcmp(nm, name) == 0 && strcmp(r, reason) == 0 &&
             (!want || (m && strstr(m, want)));
    }
    json_decref(list);
    return n;
}

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
    (void)p;
    (void)ctx;
    return size * n;
}

/* GET http://127.0.0.1:port/path, with header when not NULL: the status, 0 when no answer. */
static long http_status(int port, const char *path, const char *header)
{
    CURL *curl = curl_easy_init();
    char url[512];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    struct curl_slist *hl = header ? curl_slist_append(NULL, header) : NULL;
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10000L);
    curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    long code = 0;
    if (curl_easy_perform(curl) == CURLE_OK)
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(hl);
    curl_easy_cleanup(curl);
    return code;
}

/* The companion's token, from its file in the job's directory (the test runs as root). */
static bool read_token(const struct test_server *s, const char *job, const char *name, char *out, size_t len,
                       char path[512])
{
    json_t *j = job_get(s, job);
    snprintf(path, 512, "%s/jobs/%s/companion-%s.token", s->data_dir,
             jv_str(j, "metadata.uid") ? jv_str(j, "metadata.uid") : "?", name);
    json_decref(j);
    char *data = NULL;
    if (read_file(path, 1024, &data, NULL) != 0)
        return false;
    snprintf(out, len, "%s", data);
    free(data);
    struct stat st;
    return stat(path, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_uid == NOBODY;
}

static long proc_uid(long pid)
{
    char path[64], *data = NULL;
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    if (read_file(path, 1 << 16, &data, NULL) != 0)
        return -1;
    const char *u = strstr(data, "\nUid:");
    long uid = u ? strtol(u + 5, NULL, 10) : -1;
    free(data);
    return uid;
}

static char *proc_cgroup(long pid)
{
    char path[64], *data = NULL;
    snprintf(path, sizeof path, "/proc/%ld/cgroup", pid);
    return read_file(path, 1 << 16, &data, NULL) == 0 ? data : NULL;
}

static void touch(const char *dir, const char *name)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
}

/* --- the cases ------------------------------------------------------------------------------------- */

static void ready_beside_the_task_then_cleaned_when_the_job_completes(void)
{
    SKIP_IF(!test_program_installed("jupyter-notebook"),
            "jupyter-notebook is not installed (apt-get install jupyter-notebook)");
    struct test_server s;
    REQUIRE(start(&s, "43100-43199", NULL) == 0);
    char dir[64], script[256];
    control_dir(dir, sizeof dir);
    snprintf(script, sizeof script, "while [ ! -e %s/done ]; do sleep 0.2; done", dir);
    CHECK_INT(submit(&s, "nb", "jupyter,terminal", script, NULL), 201);
    CHECK(wait_phase(&s, "nb-jupyter", "Ready", READY_MS) == 0);
    CHECK(wait_phase(&s, "nb-terminal", "Ready", READY_MS) == 0);

    json_t *jc = companion(&s, "nb-jupyter", NULL);
    int port = (int)jv_num(jc, "status.port");
    CHECK_STR(jv_str(jc, "status.url"), "/proxy/default/nb-jupyter/");
    CHECK_STR(json_string_value(json_object_get(jv_at(jc, "metadata.labels"), "volcano.sh/job-name")), "nb");
    CHECK_STR(jv_str(jc, "spec.type"), "jupyter");
    CHECK_STR(jv_str(jc, "spec.task"), "main");
    CHECK(jv_str(jc, "status.readyTime") != NULL);
    json_decref(jc);
    char token[128] = "", header[200], token_path[512];
    CHECK(read_token(&s, "nb", "nb-jupyter", token, sizeof token, token_path));
    CHECK_INT((long)strlen(token), 64);
    snprintf(header, sizeof header, "Authorization: token %s", token);
    CHECK_INT(http_status(port, "/proxy/default/nb-jupyter/api/status", header), 200);
    CHECK_INT(http_status(port, "/proxy/default/nb-jupyter/api/status", NULL), 403);

    long task_pid = event_pid(&s, "Pod", "nb-main-0", "Started");
    long jupyter = event_pid(&s, "Companion", "nb-jupyter", "CompanionStarting");
    long terminal = event_pid(&s, "Companion", "nb-terminal", "CompanionStarting");
    CHECK(task_pid > 0 && jupyter > 0 && terminal > 0);
    CHECK_INT(proc_uid(jupyter), NOBODY);
    CHECK_INT(proc_uid(terminal), NOBODY);
    char *cg_task = proc_cgroup(task_pid), *cg_jupyter = proc_cgroup(jupyter), *cg_terminal = proc_cgroup(terminal);
    CHECK(cg_task && strstr(cg_task, "/caldera/nb-main-0.1."));
    CHECK_STR(cg_jupyter, cg_task);
    CHECK_STR(cg_terminal, cg_task);
    free(cg_task);
    free(cg_jupyter);
    free(cg_terminal);
    CHECK_INT(count_events(&s, "nb-jupyter", "CompanionStarting", NULL), 1);
    CHECK_INT(count_events(&s, "nb-jupyter", "CompanionReady", NULL), 1);

    touch(dir, "done");
    CHECK(job_wait(&s, "nb", "status.state.phase", "Completed", WAIT_MS) == 0);
    CHECK(wait_phase(&s, "nb-jupyter", "Cleaned", WAIT_MS) == 0);
    CHECK(wait_phase(&s, "nb-terminal", "Cleaned", WAIT_MS) == 0);
    jc = companion(&s, "nb-terminal", NULL);
    CHECK_STR(jv_str(jc, "status.reason"), "JobFinished");
    json_decref(jc);
    CHECK(pid_gone_within(jupyter, 10000));
    CHECK(pid_gone_within(terminal, 10000));
    CHECK_INT(count_events(&s, "nb-jupyter", "CompanionStopping", NULL), 1);
    CHECK_INT(count_events(&s, "nb-jupyter", "CompanionCleaned", "JobFinished"), 1);
    CHECK(access(token_path, F_OK) != 0);
    server_stop(&s);
    server_cleanup(&s);
}

static void a_deleted_job_takes_its_companions(void)
{
    struct test_server s;
    REQUIRE(start(&s, "43200-43299", NULL) == 0);
    CHECK_INT(submit(&s, "gone", "terminal", "sleep 300", NULL), 201);
    CHECK(wait_phase(&s, "gone-terminal", "Ready", READY_MS) == 0);
    long pid = event_pid(&s, "Companion", "gone-terminal", "CompanionStarting");
    CHECK(pid > 0);
    long code = 0;
    json_decref(server_request(&s, "DELETE", JOBS "/gone", NULL, NULL, &code));
    CHECK_INT(code, 200);
    bool empty = false;
    for (int waited = 0; waited < WAIT_MS && !empty; waited += 100) {
        json_t *list = server_request(&s, "GET", COMPANIONS, NULL, NULL, NULL);
        empty = list && json_array_size(json_object_get(list, "items")) == 0;
        json_decref(list);
        if (!empty)
            usleep(100000);
    }
    CHECK(empty);
    json_decref(companion(&s, "gone-terminal", &code));
    CHECK_INT(code, 404);
    CHECK(pid_gone_within(pid, 10000));
    server_stop(&s);
    server_cleanup(&s);
}

static void a_restarted_task_gets_a_fresh_companion(void)
{
    struct test_server s;
    REQUIRE(start(&s, "43300-43399", NULL) == 0);
    char dir[64], script[512];
    control_dir(dir, sizeof dir);
    snprintf(script, sizeof script,
             "if [ -e %s/restarted ]; then sleep 300; fi; while [ ! -e %s/fail ]; do sleep 0.2; done; "
             "touch %s/restarted; exit 1",
             dir, dir, dir);
    CHECK_INT(submit(&s, "rs", "terminal", script, "OnFailure"), 201);
    CHECK(wait_phase(&s, "rs-terminal", "Ready", READY_MS) == 0);
    long first = event_pid(&s, "Companion", "rs-terminal", "CompanionStarting");
    touch(dir, "fail");
    bool again = false;
    for (int waited = 0; waited < READY_MS && !again; waited += 100) {
        again = count_events(&s, "rs-terminal", "CompanionReady", NULL) >= 2;
        if (!again)
            usleep(100000);
    }
    CHECK(again);
    CHECK(count_events(&s, "rs-terminal", "CompanionCleaned", "TaskRestarted") >= 1);
    CHECK(wait_phase(&s, "rs-terminal", "Ready", WAIT_MS) == 0);
    long second = event_pid(&s, "Companion", "rs-terminal", "CompanionStarting");
    CHECK(second > 0 && second != first);
    CHECK(pid_gone_within(first, 10000));
    server_stop(&s);
    server_cleanup(&s);
}

/* A companion that answers only once {logdir} holds the file the task writes there: TensorBoard's
 * directory is the task's own, readable as its user (the server's log directory is not). */
#define LOGDIR_WAITER                                                                                         \
    "  tbwait:\n"                                                                                             \
    "    command: [sh, -c, 'while [ ! -e {logdir}/events.out.1 ]; do sleep 0.1; done; exec caldera-terminal " \
    "--listen 127.0.0.1:{port} --base-url {base_url} --token-file {token_file} --cwd {workdir}']\n"           \
    "    headers: {Authorization: \"Bearer {token}\"}\n"                                                      \
    "    readinessPath: \"{base_url}api/status\"\n"                                                           \
    "    startTimeout: 20s\n"

#define COMPANIONS_FILE                          \
    "companions:\n"                              \
    "  terminal:\n"                              \
    "    idleTimeout: 2s\n"                      \
    "    activity: proxy\n"                      \
    "  ghost:\n"                                 \
    "    command: [caldera-no-such-program]\n"   \
    "    readinessPath: /\n"                     \
    "  quitter:\n"                               \
    "    command: [sh, -c, 'sleep 1; exit 3']\n" \
    "    readinessPath: /\n" LOGDIR_WAITER

static void missing_program_fails_and_idleness_cleans(void)
{
    char file[] = "/tmp/caldera-companions-XXXXXX";
    int fd = mkstemp(file);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, COMPANIONS_FILE, strlen(COMPANIONS_FILE)) == (ssize_t)strlen(COMPANIONS_FILE));
    close(fd);
    struct test_server s;
    REQUIRE(start(&s, "43400-43499", file) == 0);
    CHECK_INT(submit(&s, "idle", "ghost,terminal,quitter", "sleep 300", NULL), 201);
    CHECK(wait_phase(&s, "idle-ghost", "Failed", WAIT_MS) == 0);
    json_t *c = companion(&s, "idle-ghost", NULL);
    CHECK_STR(jv_str(c, "status.reason"), "NotInstalled");
    CHECK_STR(jv_str(c, "status.message"), "not installed: caldera-no-such-program");
    json_decref(c);
    CHECK(wait_phase(&s, "idle-terminal", "Ready", READY_MS) == 0);
    long pid = event_pid(&s, "Companion", "idle-terminal", "CompanionStarting");
    CHECK(wait_phase(&s, "idle-terminal", "Cleaned", WAIT_MS) == 0);
    c = companion(&s, "idle-terminal", NULL);
    CHECK_STR(jv_str(c, "status.reason"), "Idle");
    json_decref(c);
    CHECK(pid_gone_within(pid, 10000));
    /* one that exits by itself while its task runs on fails (after the grace a task's end would take) */
    CHECK(wait_phase(&s, "idle-quitter", "Failed", WAIT_MS) == 0);
    c = companion(&s, "idle-quitter", NULL);
    CHECK_STR(jv_str(c, "status.reason"), "Exited");
    CHECK_STR(jv_str(c, "status.message"), "the companion exited with status 3");
    json_decref(c);
    CHECK(job_wait(&s, "idle", "status.state.phase", "Running", WAIT_MS) == 0); /* the task runs on */
    CHECK_INT(submit(&s, "tb", "tbwait", "mkdir -p logs && touch logs/events.out.1 && sleep 300", NULL), 201);
    CHECK(wait_phase(&s, "tb-tbwait", "Ready", READY_MS) == 0);
    server_stop(&s);
    server_cleanup(&s);
    unlink(file);
}

static void a_crash_leaves_no_companion_behind(void)
{
    struct test_server s;
    REQUIRE(start(&s, "43500-43599", NULL) == 0);
    CHECK_INT(submit(&s, "crash", "terminal", "sleep 300", NULL), 201);
    CHECK(wait_phase(&s, "crash-terminal", "Ready", READY_MS) == 0);
    long old = event_pid(&s, "Companion", "crash-terminal", "CompanionStarting");
    CHECK(old > 0);
    server_kill9(&s);
    CHECK(!pid_gone(old)); /* it outlived the crash, in its task's cgroup */
    char dir[256];
    snprintf(dir, sizeof dir, "%s", s.data_dir);
    const char *args[] = {"--restart-backoff", "100", "--shutdown-grace", "2", "--companion-ports",
                          "43500-43599",       NULL};
    REQUIRE(server_start(&s, dir, args) == 0);
    CHECK(pid_gone_within(old, 10000));
    bool again = false;
    for (int waited = 0; waited < READY_MS && !again; waited += 100) {
        again = count_events(&s, "crash-terminal", "CompanionReady", NULL) >= 2;
        if (!again)
            usleep(100000);
    }
    CHECK(again);
    CHECK_INT(count_events(&s, "crash-terminal", "CompanionCleaned", "ServerRestarted"), 1);
    CHECK(wait_phase(&s, "crash-terminal", "Ready", WAIT_MS) == 0);
    long now = event_pid(&s, "Companion", "crash-terminal", "CompanionStarting");
    CHECK(now > 0 && now != old);
    server_stop(&s);
    server_cleanup(&s);
}

static void the_api_creates_refuses_and_deletes(void)
{
    struct test_server s;
    REQUIRE(start(&s, "43600-43699", NULL) == 0);
    CHECK_INT(submit(&s, "bad", "jupyter,vscode", "sleep 1", NULL), 422);
    json_t *answer = server_request(
        &s, "POST", JOBS,
        "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"bad2\","
        "\"annotations\":{\"caldera.io/companions\":\"vscode\"}},\"spec\":{\"tasks\":[{\"replicas\":1,\"template\":"
        "{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\",\"command\":[\"sleep\",\"1\"]}]}}}]}}",
        NULL, NULL);
    CHECK_CONTAINS(jv_str(answer, "message"), "caldera.io/companions");
    CHECK_CONTAINS(jv_str(answer, "message"), "\"vscode\"");
    json_decref(answer);

    CHECK_INT(submit(&s, "api", "", "sleep 300", NULL), 201);
    struct watch_client *watch = watch_open(&s, COMPANIONS "?watch=true", NULL);
    REQUIRE(watch != NULL);
    long code = 0;
    const char *body =
        "{\"apiVersion\":\"caldera.io/v1\",\"kind\":\"Companion\",\"spec\":{\"jobName\":\"api\","
        "\"type\":\"terminal\"}}";
    json_decref(server_request(&s, "POST", COMPANIONS, body, NULL, &code));
    CHECK_INT(code, 201);
    json_decref(server_request(&s, "POST", COMPANIONS, body, NULL, &code));
    CHECK_INT(code, 409);
    json_decref(
        server_request(&s, "POST", COMPANIONS, "{\"spec\":{\"jobName\":\"api\",\"type\":\"vscode\"}}", NULL, &code));
    CHECK_INT(code, 422);
    json_decref(server_request(&s, "POST", COMPANIONS, "{\"spec\":{\"jobName\":\"nojob\",\"type\":\"terminal\"}}", NULL,
                               &code));
    CHECK_INT(code, 404);
    CHECK(wait_phase(&s, "api-terminal", "Ready", READY_MS) == 0);
    long pid = event_pid(&s, "Companion", "api-terminal", "CompanionStarting");
    json_t *list = server_request(&s, "GET", "/apis/caldera.io/v1/companions", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_INT((long)json_array_size(json_object_get(list, "items")), 1);
    json_decref(list);
    json_decref(server_request(&s, "DELETE", COMPANIONS "/api-terminal", NULL, NULL, &code));
    CHECK_INT(code, 200);
    bool gone = false;
    for (int waited = 0; waited < WAIT_MS && !gone; waited += 100) {
        json_decref(companion(&s, "api-terminal", &code));
        gone = code == 404;
        if (!gone)
            usleep(100000);
    }
    CHECK(gone);
    CHECK(pid_gone_within(pid, 10000));
    /* the watch saw it come, get Ready with its URL, and go, in that order */
    int added = watch_wait_for(watch, 0, "ADDED", "api-terminal", NULL, NULL, WAIT_MS);
    int ready = watch_wait_for(watch, 0, "MODIFIED", "api-terminal", "status.phase", "Ready", WAIT_MS);
    int deleted = watch_wait_for(watch, 0, "DELETED", "api-terminal", NULL, NULL, WAIT_MS);
    CHECK(added >= 0 && ready > added && deleted > ready);
    json_t *seen = watch_events(watch);
    if (test_failed_checks) {
        char *all = json_dumps(seen, JSON_COMPACT);
        fprintf(stderr, "# the watch saw: %s\n", all ? all : "");
        free(all);
    }
    json_t *ready_obj = json_object_get(json_array_get(seen, (size_t)(ready >= 0 ? ready : 0)), "object");
    CHECK_STR(jv_str(ready_obj, "status.url"), "/proxy/default/api-terminal/");
    CHECK(jv_str(ready_obj, "metadata.resourceVersion") != NULL);
    json_decref(seen);
    watch_close(watch);
    /* a watch from an old resourceVersion catches up from the database: the companion is gone */
    watch = watch_open(&s, COMPANIONS "?watch=true&resourceVersion=1&timeoutSeconds=2", NULL);
    REQUIRE(watch != NULL);
    CHECK(watch_wait_for(watch, 0, "DELETED", "api-terminal", NULL, NULL, WAIT_MS) >= 0);
    watch_close(watch);

    /* a training request's companions: the annotation on its Volcano Job, checked alike */
    json_decref(server_request(&s, "POST", "/apis/caldera.io/v1/namespaces/default/trainings",
                               "{\"apiVersion\":\"caldera.io/v1\",\"kind\":\"Training\",\"metadata\":{\"name\":"
                               "\"tr\"},\"command\":[\"sleep\",\"300\"],\"companions\":[\"terminal\"]}",
                               NULL, &code));
    CHECK_INT(code, 201);
    CHECK(wait_phase(&s, "tr-terminal", "Ready", READY_MS) == 0);
    answer = server_request(&s, "POST", "/apis/caldera.io/v1/namespaces/default/trainings",
                            "{\"apiVersion\":\"caldera.io/v1\",\"kind\":\"Training\",\"metadata\":{\"name\":"
                            "\"tr2\"},\"command\":[\"sleep\",\"300\"],\"companions\":[\"wetty\"]}",
                            NULL, &code);
    CHECK_INT(code, 422);
    CHECK_CONTAINS(jv_str(answer, "message"), "\"wetty\"");
    json_decref(answer);
    server_stop(&s);
    server_cleanup(&s);
}

static void a_bad_companions_file_stops_the_server(void)
{
    char file[] = "/tmp/caldera-companions-XXXXXX", dir[] = "/tmp/caldera-comp-data-XXXXXX";
    int fd = mkstemp(file);
    REQUIRE(fd >= 0 && mkdtemp(dir));
    const char *bad = "companions:\n  jupyter:\n    startTimeout: soon\n";
    REQUIRE(write(fd, bad, strlen(bad)) == (ssize_t)strlen(bad));
    close(fd);
    const char *args[] = {"--companions", file, NULL};
    char *err = NULL;
    CHECK_INT(server_run_to_exit(dir, args, 20000, NULL, &err, NULL), 2);
    CHECK_CONTAINS(err, "companions.jupyter.startTimeout");
    free(err);
    unlink(file);
    rmdir(dir);
}

TEST_MAIN(TEST_CASE(ready_beside_the_task_then_cleaned_when_the_job_completes),
          TEST_CASE(a_deleted_job_takes_its_companions), TEST_CASE(a_restarted_task_gets_a_fresh_companion),
          TEST_CASE(missing_program_fails_and_idleness_cleans), TEST_CASE(a_crash_leaves_no_companion_behind),
          TEST_CASE(the_api_creates_refuses_and_deletes), TEST_CASE(a_bad_companions_file_stops_the_server))
