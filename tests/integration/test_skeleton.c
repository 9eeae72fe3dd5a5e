/* The walking skeleton end to end: a real jobserver on loopback with virtual nodes, Volcano's distcc
 * example job submitted as YAML, run as real processes, read back as pods, logs and history, and found
 * unchanged after a restart; bad input answered with Status objects while the server keeps serving. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define NODES_FILE "examples/nodes.yaml"

static const char *const node_args[] = {"--nodes", NODES_FILE, NULL};

static char *read_fixture(const char *path)
{
    char *data = NULL;
    if (read_file(path, 1 << 20, &data, NULL) != 0)
        return NULL;
    return data;
}

static json_t *post_yaml(const struct test_server *s, const char *path, const char *yaml, long *code)
{
    return server_request(s, "POST", path, yaml, "application/yaml", code);
}

static const char *str_at(json_t *obj, const char *a, const char *b, const char *c)
{
    json_t *v = json_object_get(obj, a);
    if (b)
        v = json_object_get(v, b);
    if (c)
        v = json_object_get(v, c);
    return json_string_value(v);
}

static void check_pods(const struct test_server *s)
{
    long code;
    json_t *list = server_request(s, "GET", "/api/v1/namespaces/default/pods?labelSelector=volcano.sh/job-name=distcc",
                                  NULL, NULL, &code);
    CHECK_INT(code, 200);
    REQUIRE(list);
    json_t *items = json_object_get(list, "items");
    CHECK_INT(json_array_size(items), 4);
    size_t i;
    json_t *pod;
    json_array_foreach(items, i, pod)
    {
        const char *name = str_at(pod, "metadata", "name", NULL);
        CHECK(name && strncmp(name, "distcc-", 7) == 0);
        CHECK_STR(str_at(pod, "status", "phase", NULL), "Succeeded");
        CHECK_STR(str_at(pod, "metadata", "labels", "volcano.sh/job-name"), "distcc");
        const char *task = str_at(pod, "metadata", "labels", "volcano.sh/task-spec");
        CHECK(task && (strcmp(task, "master") == 0 || strcmp(task, "worker") == 0));
        CHECK(str_at(pod, "metadata", "labels", "volcano.sh/task-index") != NULL);
        const char *node = str_at(pod, "spec", "nodeName", NULL);
        CHECK(node && (strcmp(node, "node-a") == 0 || strcmp(node, "node-b") == 0 || strcmp(node, "node-c") == 0));
        json_t *term = json_object_get(
            json_object_get(json_array_get(json_object_get(json_object_get(pod, "status"), "containerStatuses"), 0),
                            "state"),
            "terminated");
        CHECK_INT(json_integer_value(json_object_get(term, "exitCode")), 0);
        CHECK_STR(json_string_value(json_object_get(term, "reason")), "Completed");
    }
    json_decref(list);

    json_t *one = server_request(s, "GET", "/api/v1/namespaces/default/pods/distcc-worker-2", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(str_at(one, "metadata", "labels", "volcano.sh/task-index"), "2");
    json_decref(one);
}

static void check_log(const struct test_server *s)
{
    long code;
    char *log = server_request_text(s, "GET", "/api/v1/namespaces/default/pods/distcc-worker-1/log", &code);
    CHECK_INT(code, 200);
    CHECK_CONTAINS(log, "worker 1 on distcc-worker-1");
    CHECK_CONTAINS(log, "to-stderr"); /* stderr goes to the same log */
    free(log);
    log = server_request_text(s, "GET", "/api/v1/namespaces/default/pods/distcc-master-0/log", &code);
    CHECK_CONTAINS(log, "master index 0");
    free(log);
}

/* History: 4 attempts, each ended with exit 0, and the job's own transitions in order. */
static json_t *check_history(const struct test_server *s)
{
    long code;
    json_t *h = server_request(s, "GET", "/apis/caldera.io/v1/namespaces/default/jobs/distcc/history", NULL, NULL,
                               &code);
    CHECK_INT(code, 200);
    if (!h)
        return NULL;
    CHECK_STR(str_at(h, "kind", NULL, NULL), "JobHistory");
    CHECK_STR(str_at(h, "phase", NULL, NULL), "Completed");
    json_t *attempts = json_object_get(h, "attempts");
    CHECK_INT(json_array_size(attempts), 4);
    size_t i;
    json_t *a;
    json_array_foreach(attempts, i, a)
    {
        CHECK_INT(json_integer_value(json_object_get(a, "attempt")), 1);
        CHECK_INT(json_integer_value(json_object_get(a, "exitCode")), 0);
        CHECK_STR(json_string_value(json_object_get(a, "reason")), "Completed");
        CHECK(json_string_value(json_object_get(a, "node")) != NULL);
        CHECK(json_string_value(json_object_get(a, "startTime")) != NULL);
        CHECK(json_string_value(json_object_get(a, "finishTime")) != NULL);
    }
    json_t *tr = json_object_get(h, "transitions");
    if (json_array_size(tr) != 3) {
        test_fail(__FILE__, __LINE__, "expected 3 transitions, got %zu", json_array_size(tr));
        return h;
    }
    CHECK_STR(str_at(json_array_get(tr, 0), "to", NULL, NULL), "Pending");
    CHECK_STR(str_at(json_array_get(tr, 1), "to", NULL, NULL), "Running");
    CHECK_STR(str_at(json_array_get(tr, 2), "to", NULL, NULL), "Completed");
    return h;
}

static void distcc_end_to_end_and_restart(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    char *yaml = read_fixture("examples/distcc.yaml");
    REQUIRE(yaml);
    long code;
    json_t *created = post_yaml(&s, JOBS, yaml, &code);
    free(yaml);
    CHECK_INT(code, 201);
    CHECK(str_at(created, "metadata", "uid", NULL) != NULL);
    CHECK(str_at(created, "metadata", "resourceVersion", NULL) != NULL);
    CHECK(str_at(created, "metadata", "creationTimestamp", NULL) != NULL);
    CHECK_STR(str_at(created, "spec", "queue", NULL), "default"); /* Volcano's admission default */
    json_decref(created);

    CHECK(server_wait_field(&s, JOBS "/distcc", "status.state.phase", "Completed", 30000) == 0);
    json_t *job = server_request(&s, "GET", JOBS "/distcc", NULL, NULL, &code);
    json_t *st = json_object_get(job, "status");
    CHECK_INT(json_integer_value(json_object_get(st, "succeeded")), 4);
    CHECK_INT(json_integer_value(json_object_get(st, "failed")), 0);
    CHECK_INT(json_integer_value(json_object_get(st, "minAvailable")), 4);
    CHECK_INT(json_integer_value(json_object_get(st, "retryCount")), 0);
    CHECK_INT(
        json_integer_value(json_object_get(
            json_object_get(json_object_get(json_object_get(st, "taskStatusCount"), "worker"), "phase"), "Succeeded")),
        3);
    check_pods(&s);
    check_log(&s);
    json_t *history = check_history(&s);
    char *before = history ? json_dumps(history, JSON_SORT_KEYS) : NULL;
    json_decref(history);

    CHECK_INT(server_stop(&s), 0);
    REQUIRE(server_start(&s, s.data_dir, node_args) == 0);
    json_t *again = server_request(&s, "GET", JOBS "/distcc", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(str_at(again, "status", "state", "phase"), "Completed");
    CHECK_STR(str_at(again, "metadata", "uid", NULL), str_at(job, "metadata", "uid", NULL));
    json_t *after_h = server_request(&s, "GET", "/apis/caldera.io/v1/namespaces/default/jobs/distcc/history", NULL,
                                     NULL, &code);
    char *after = after_h ? json_dumps(after_h, JSON_SORT_KEYS) : NULL;
    CHECK_STR(after, before);
    check_log(&s); /* logs survive the restart too */
    json_decref(after_h);
    json_decref(again);
    json_decref(job);
    free(before);
    free(after);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* A Status answer: its code, reason, and a message containing want. */
static void expect_status(json_t *body, long code, long want_code, const char *want_reason, const char *want_text)
{
    CHECK_INT(code, want_code);
    CHECK_STR(str_at(body, "kind", NULL, NULL), "Status");
    CHECK_STR(str_at(body, "status", NULL, NULL), "Failure");
    CHECK_INT(json_integer_value(json_object_get(body, "code")), want_code);
    CHECK_STR(str_at(body, "reason", NULL, NULL), want_reason);
    CHECK_CONTAINS(str_at(body, "message", NULL, NULL), want_text);
}

static void bad_input_gets_a_status(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    long code;
    json_t *r;

    r = post_yaml(&s, JOBS, "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: x\n bad: indent\n",
                  &code);
    expect_status(r, code, 400, "BadRequest", "line 5");
    json_decref(r);

    r = server_request(&s, "POST", JOBS, "{\"apiVersion\": \"batch.volcano.sh/v1alpha1\",\n \"kind\": }",
                       "application/json", &code);
    expect_status(r, code, 400, "BadRequest", "line 2");
    json_decref(r);

    r = post_yaml(&s, JOBS, "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\n", &code);
    expect_status(r, code, 400, "BadRequest", "batch/v1");
    json_decref(r);

    r = post_yaml(&s, JOBS, "apiVersion: batch.volcano.sh/v1alpha1\nkind: Pod\nmetadata: {name: x}\n", &code);
    expect_status(r, code, 400, "BadRequest", "kind");
    json_decref(r);

    r = post_yaml(&s, JOBS,
                  "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {}\nspec:\n  tasks:\n  - name: a\n"
                  "    replicas: 1\n    template: {spec: {containers: [{name: c, command: [\"true\"]}]}}\n",
                  &code);
    expect_status(r, code, 422, "Invalid", "metadata.name: Required value");
    json_decref(r);

    r = post_yaml(&s, JOBS,
                  "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: noreplicas}\nspec:\n  tasks:\n"
                  "  - name: a\n    template: {spec: {containers: [{name: c, command: [\"true\"]}]}}\n  - name: b\n"
                  "    replicas: 1\n",
                  &code);
    expect_status(r, code, 422, "Invalid", "spec.tasks[0].replicas: Required value");
    CHECK_CONTAINS(str_at(r, "message", NULL, NULL), "spec.tasks[1].template: Required value");
    json_t *causes = json_object_get(json_object_get(r, "details"), "causes");
    CHECK_INT(json_array_size(causes), 2);
    CHECK_STR(str_at(json_array_get(causes, 0), "field", NULL, NULL), "spec.tasks[0].replicas");
    json_decref(r);

    r = post_yaml(
        &s, JOBS,
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: badqty}\nspec:\n  tasks:\n"
        "  - replicas: 1\n    template:\n      spec:\n        containers:\n        - name: c\n"
        "          command: [\"true\"]\n          resources:\n            limits:\n              memory: 1.5GG\n",
        &code);
    expect_status(r, code, 422, "Invalid",
                  "spec.tasks[0].template.spec.containers[0].resources.limits.memory: invalid quantity \"1.5GG\"");
    CHECK_CONTAINS(str_at(r, "message", NULL, NULL), "(line 14, column 23)");
    json_decref(r);

    char *yaml = read_fixture("examples/distcc.yaml");
    r = post_yaml(&s, JOBS, yaml, &code);
    CHECK_INT(code, 201);
    json_decref(r);
    r = post_yaml(&s, JOBS, yaml, &code);
    expect_status(r, code, 409, "AlreadyExists", "jobs.batch.volcano.sh \"distcc\" already exists");
    json_decref(r);
    free(yaml);

    size_t big = 17u << 20;
    char *huge = malloc(big + 1);
    memset(huge, ' ', big);
    huge[big] = '\0';
    r = post_yaml(&s, JOBS, huge, &code);
    free(huge);
    expect_status(r, code, 413, "RequestEntityTooLarge", "limit");
    json_decref(r);

    r = server_request(&s, "GET", "/apis/nothing.here/v1/things", NULL, NULL, &code);
    expect_status(r, code, 404, "NotFound", "could not find");
    json_decref(r);

    r = server_request(&s, "PATCH", "/api/v1/nodes/node-a", "{}", NULL, &code);
    expect_status(r, code, 405, "MethodNotAllowed", "method");
    json_decref(r);
    r = server_request(&s, "PATCH", JOBS "/distcc", "{}", NULL, &code); /* a patch says its type */
    expect_status(r, code, 415, "UnsupportedMediaType", "application/merge-patch+json");
    json_decref(r);
    r = server_request(&s, "PUT", JOBS "/distcc", "{}", NULL, &code); /* an update needs a whole Job */
    expect_status(r, code, 422, "Invalid", "spec: Required value");
    json_decref(r);
    r = server_request(&s, "GET", JOBS "/nosuchjob", NULL, NULL, &code);
    expect_status(r, code, 404, "NotFound", "jobs.batch.volcano.sh \"nosuchjob\" not found");
    json_decref(r);
    r = server_request(&s, "POST", JOBS, "<job/>", "text/html", &code);
    expect_status(r, code, 415, "UnsupportedMediaType", "text/html");
    json_decref(r);

    char *ok = server_request_text(&s, "GET", "/healthz", &code);
    CHECK_INT(code, 200);
    CHECK_STR(ok, "ok");
    free(ok);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static const char *const failing_job =
    "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s}\nspec:\n  tasks:\n"
    "  - name: t\n    replicas: 1\n    template:\n      spec:\n        containers:\n        - name: c\n%s";

static json_t *run_to_phase(const struct test_server *s, const char *name, const char *container_tail,
                            const char *phase)
{
    char yaml[1024];
    long code;
    snprintf(yaml, sizeof yaml, failing_job, name, container_tail);
    json_decref(post_yaml(s, JOBS, yaml, &code));
    CHECK_INT(code, 201);
    char path[256];
    snprintf(path, sizeof path, JOBS "/%s", name);
    CHECK(server_wait_field(s, path, "status.state.phase", phase, 20000) == 0);
    snprintf(path, sizeof path, "/api/v1/namespaces/default/pods/%s-t-0", name);
    return server_request(s, "GET", path, NULL, NULL, &code);
}

static json_t *terminated(json_t *pod)
{
    return json_object_get(
        json_object_get(json_array_get(json_object_get(json_object_get(pod, "status"), "containerStatuses"), 0),
                        "state"),
        "terminated");
}

static void failures_are_reported(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    json_t *pod = run_to_phase(&s, "exit3", "          command: [sh, -c, \"echo bye; exit 3\"]\n", "Failed");
    CHECK_INT(json_integer_value(json_object_get(terminated(pod), "exitCode")), 3);
    CHECK_STR(json_string_value(json_object_get(terminated(pod), "reason")), "Error");
    json_decref(pod);

    pod = run_to_phase(&s, "nocmd", "          image: busybox\n", "Failed");
    CHECK_STR(json_string_value(json_object_get(terminated(pod), "reason")), "StartError");
    CHECK_CONTAINS(json_string_value(json_object_get(terminated(pod), "message")), "no command or args");
    json_decref(pod);

    pod = run_to_phase(&s, "nobin", "          command: [no-such-binary-here]\n", "Failed");
    CHECK_STR(json_string_value(json_object_get(terminated(pod), "reason")), "StartError");
    CHECK_CONTAINS(json_string_value(json_object_get(terminated(pod), "message")),
                   "executable file not found in $PATH");
    json_decref(pod);

    pod = run_to_phase(&s, "killed", "          command: [sh, -c, \"kill -9 $$\"]\n", "Failed");
    CHECK_INT(json_integer_value(json_object_get(terminated(pod), "exitCode")), 137);
    json_decref(pod);

    long code;
    json_t *h = server_request(&s, "GET", "/apis/caldera.io/v1/namespaces/default/jobs/exit3/history", NULL, NULL,
                               &code);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(json_object_get(h, "attempts"), 0), "exitCode")), 3);
    json_decref(h);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void discovery_nodes_and_queues(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    long code;
    json_t *r = server_request(&s, "GET", "/api", NULL, NULL, &code);
    CHECK_STR(str_at(r, "kind", NULL, NULL), "APIVersions");
    json_decref(r);
    r = server_request(&s, "GET", "/apis", NULL, NULL, &code);
    CHECK_STR(str_at(r, "kind", NULL, NULL), "APIGroupList");
    char *text = json_dumps(r, 0);
    CHECK_CONTAINS(text, "\"batch.volcano.sh/v1alpha1\"");
    CHECK_CONTAINS(text, "\"scheduling.volcano.sh/v1beta1\"");
    CHECK_CONTAINS(text, "\"caldera.io/v1\"");
    free(text);
    json_decref(r);
    r = server_request(&s, "GET", "/apis/batch.volcano.sh/v1alpha1", NULL, NULL, &code);
    CHECK_STR(str_at(r, "kind", NULL, NULL), "APIResourceList");
    CHECK_STR(str_at(json_array_get(json_object_get(r, "resources"), 0), "name", NULL, NULL), "jobs");
    json_decref(r);
    r = server_request(&s, "GET", "/apis/scheduling.volcano.sh/v1beta1", NULL, NULL, &code);
    CHECK_INT(code, 200);
    json_decref(r);
    r = server_request(&s, "GET", "/api/v1", NULL, NULL, &code);
    CHECK_STR(str_at(r, "groupVersion", NULL, NULL), "v1");
    json_decref(r);

    r = server_request(&s, "GET", "/api/v1/nodes", NULL, NULL, &code);
    json_t *items = json_object_get(r, "items");
    CHECK_INT(json_array_size(items), 3);
    CHECK_STR(str_at(json_array_get(items, 0), "metadata", "name", NULL), "node-a");
    CHECK_STR(str_at(json_array_get(items, 0), "status", "allocatable", "cpu"), "4");
    CHECK_STR(str_at(json_array_get(items, 0), "status", "allocatable", "memory"), "8Gi");
    CHECK_STR(str_at(json_array_get(items, 2), "status", "allocatable", "nvidia.com/gpu"), "4");
    CHECK_STR(str_at(json_array_get(items, 0), "metadata", "labels", "node-zone"), "a");
    json_decref(r);

    r = server_request(&s, "GET", "/apis/scheduling.volcano.sh/v1beta1/queues", NULL, NULL, &code);
    CHECK_STR(str_at(json_array_get(json_object_get(r, "items"), 0), "metadata", "name", NULL), "default");
    CHECK_INT(json_integer_value(
                  json_object_get(json_object_get(json_array_get(json_object_get(r, "items"), 0), "spec"), "weight")),
              1);
    json_decref(r);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void jobctl_against_the_server(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    char *out = NULL, *err = NULL;
    const char *submit[] = {"submit", "examples/distcc.yaml", NULL};
    CHECK_INT(server_jobctl(&s, submit, &out, &err), 0);
    CHECK_CONTAINS(out, "job.batch.volcano.sh/distcc created");
    free(out);
    free(err);
    CHECK(server_wait_field(&s, JOBS "/distcc", "status.state.phase", "Completed", 30000) == 0);
    const char *get[] = {"get", "distcc", NULL};
    CHECK_INT(server_jobctl(&s, get, &out, &err), 0);
    CHECK_CONTAINS(out, "Completed");
    CHECK_CONTAINS(out, "distcc-worker-2");
    free(out);
    free(err);
    const char *logs[] = {"logs", "distcc-worker-0", NULL};
    CHECK_INT(server_jobctl(&s, logs, &out, &err), 0);
    CHECK_CONTAINS(out, "worker 0 on distcc-worker-0");
    free(out);
    free(err);
    /* A Status answer: one clear line, exit status 1. */
    CHECK_INT(server_jobctl(&s, submit, &out, &err), 1);
    CHECK_CONTAINS(err, "jobctl: jobs.batch.volcano.sh \"distcc\" already exists (409 AlreadyExists)");
    free(out);
    free(err);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void delete_stops_tasks_and_keeps_history(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    long code;
    json_decref(
        post_yaml(&s, JOBS,
                  "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: forever}\nspec:\n  tasks:\n"
                  "  - name: t\n    replicas: 2\n    template:\n      spec:\n        terminationGracePeriodSeconds: 1\n"
                  "        containers:\n        - name: c\n          command: [sleep, \"1000\"]\n",
                  &code));
    CHECK_INT(code, 201);
    CHECK(server_wait_field(&s, JOBS "/forever", "status.running", "2", 20000) == 0);
    json_t *r = server_request(&s, "DELETE", JOBS "/forever", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(str_at(r, "status", NULL, NULL), "Success");
    json_decref(r);
    r = server_request(&s, "GET", JOBS "/forever", NULL, NULL, &code);
    CHECK_INT(code, 404);
    json_decref(r);
    /* The attempts end (killed) and the history stays readable, marked deleted. */
    CHECK(server_wait_field(&s, "/apis/caldera.io/v1/namespaces/default/jobs/forever/history", "attempts.1.reason",
                            "Deleted", 20000) == 0);
    json_t *h = server_request(&s, "GET", "/apis/caldera.io/v1/namespaces/default/jobs/forever/history", NULL, NULL,
                               &code);
    CHECK(str_at(h, "metadata", "deletionTimestamp", NULL) != NULL);
    json_decref(h);
    /* The name is free again. */
    json_decref(post_yaml(
        &s, JOBS,
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: forever}\nspec:\n  tasks:\n"
        "  - name: t\n    replicas: 1\n    template: {spec: {containers: [{name: c, command: [\"true\"]}]}}\n",
        &code));
    CHECK_INT(code, 201);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void shutdown_stops_tasks_and_restart_runs_them_again(void)
{
    struct test_server s;
    const char *const args[] = {"--nodes", NODES_FILE, "--shutdown-grace", "5", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    long code;
    json_decref(
        post_yaml(&s, JOBS,
                  "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: longrun}\nspec:\n  tasks:\n"
                  "  - name: t\n    replicas: 1\n    template:\n      spec:\n        containers:\n        - name: c\n"
                  "          command: [sh, -c, \"trap 'echo stopping; exit 0' TERM; echo run; sleep 1000 & wait\"]\n",
                  &code));
    CHECK(server_wait_field(&s, JOBS "/longrun", "status.running", "1", 20000) == 0);
    /* Running says the process was started; its shell still has to set its trap, which it has
     * done once "run" is in the log */
    char *started = NULL;
    for (int i = 0; i < 200 && !(started && strstr(started, "run")); i++) {
        free(started);
        usleep(25000);
        started = server_request_text(&s, "GET", "/api/v1/namespaces/default/pods/longrun-t-0/log", &code);
    }
    CHECK_CONTAINS(started, "run");
    free(started);
    CHECK_INT(server_stop(&s), 0);
    REQUIRE(server_start(&s, s.data_dir, args) == 0);
    CHECK(server_wait_field(&s, "/apis/caldera.io/v1/namespaces/default/jobs/longrun/history", "attempts.1.attempt",
                            "2", 20000) == 0);
    json_t *h = server_request(&s, "GET", "/apis/caldera.io/v1/namespaces/default/jobs/longrun/history", NULL, NULL,
                               &code);
    json_t *first = json_array_get(json_object_get(h, "attempts"), 0);
    CHECK_STR(str_at(first, "reason", NULL, NULL), "Shutdown");
    json_decref(h);
    char *log = server_request_text(&s, "GET", "/api/v1/namespaces/default/pods/longrun-t-0/log?attempt=1", &code);
    CHECK_INT(code, 200);
    CHECK_CONTAINS(log, "stopping"); /* it was asked with SIGTERM, not killed */
    free(log);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* Runs jobserver with args (it must refuse to start) and returns its exit status and output. */
static int jobserver_refuses(const char *args, char **output)
{
    const char *bin_dir = getenv("CALDERA_BIN_DIR");
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "timeout 20 %s/jobserver --listen 127.0.0.1:0 --data /tmp/caldera-refuse-$$ %s 2>&1; "
             "st=$?; rm -rf /tmp/caldera-refuse-$$; exit $st",
             bin_dir ? bin_dir : "build/asan/bin", args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = '\0';
    *output = buf;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void bad_configuration_stops_the_start(void)
{
    char *out;
    CHECK_INT(jobserver_refuses("--nodes examples/distcc.yaml", &out), 1);
    CHECK_CONTAINS(out, "a nodes file holds v1 Node objects");
    CHECK_INT(jobserver_refuses("--nodes /nonexistent/nodes.yaml", &out), 1);
    CHECK_CONTAINS(out, "cannot read the nodes file /nonexistent/nodes.yaml");
    CHECK_INT(jobserver_refuses("--scheduler-conf examples/nodes.yaml", &out), 1);
    CHECK_CONTAINS(out, "Unsupported value");
    CHECK_INT(jobserver_refuses("--listen nowhere", &out), 1);
    CHECK_CONTAINS(out, "--listen wants HOST:PORT");
    CHECK_INT(jobserver_refuses("--bogus", &out), 2);
    CHECK_CONTAINS(out, "unknown option");
}

TEST_MAIN(TEST_CASE(distcc_end_to_end_and_restart), TEST_CASE(bad_configuration_stops_the_start),
          TEST_CASE(bad_input_gets_a_status), TEST_CASE(failures_are_reported), TEST_CASE(discovery_nodes_and_queues),
          TEST_CASE(jobctl_against_the_server), TEST_CASE(delete_stops_tasks_and_keeps_history),
          TEST_CASE(shutdown_stops_tasks_and_restart_runs_them_again))
