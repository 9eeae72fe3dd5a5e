/* kubectl and the official Python client writing to a real jobserver, as a platform backend does:
 * apply (create, then change), label, annotate, patch --type merge/json/strategic, server-side apply
 * with a conflict and --force-conflicts, explain, unknown fields warned or refused, a container
 * without a name refused, and the Python client's patch calls. Skipped where kubectl (or
 * python3-kubernetes, for its case) is not installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define QUEUES "/apis/scheduling.volcano.sh/v1beta1/queues"

static struct test_server server;
static char work_dir[64]; /* kubectl's cache and the manifests written for it */

static struct test_server *started(void)
{
    static bool tried;
    static const char *const args[] = {"--nodes", "examples/nodes.yaml", NULL};
    if (!tried) {
        tried = true;
        snprintf(work_dir, sizeof work_dir, "/tmp/caldera-kubectl-XXXXXX");
        if (!mkdtemp(work_dir) || server_start(&server, NULL, args) != 0)
            server.pid = 0;
    }
    return server.pid ? &server : NULL;
}

/* Runs `kubectl --server URL ARGS` (stdin from input when not NULL) and returns its exit status; its
 * stdout and stderr together in *out (a static buffer). */
static int kubectl(const char *args, const char *input, const char **out)
{
    static char buf[16384];
    char in_path[128] = "/dev/null", cmd[4096];
    if (input) {
        snprintf(in_path, sizeof in_path, "%s/stdin.yaml", work_dir);
        FILE *f = fopen(in_path, "w");
        if (f) {
            fputs(input, f);
            fclose(f);
        }
    }
    snprintf(cmd, sizeof cmd, "timeout 60 kubectl --server %s --token anonymous --cache-dir %s/cache %s <%s 2>&1",
             server.url, work_dir, args, in_path);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(buf, 1, sizeof buf - 1, p) : 0;
    buf[n] = '\0';
    *out = buf;
    int st = p ? pclose(p) : -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *job_manifest(const char *name, int replicas, const char *extra_spec, const char *container)
{
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: %s\nspec:\n  minAvailable: 1\n%s"
             "  tasks:\n  - name: work\n    replicas: %d\n    template:\n      spec:\n"
             "        terminationGracePeriodSeconds: 1\n        containers:\n        - %s\n"
             "          image: busybox\n          command: [sleep, \"300\"]\n",
             name, extra_spec, replicas, container);
    return buf;
}

static json_t *job(const char *name)
{
    long code = 0;
    json_t *j = api_get(&server, JOBS "/%s", name, &code);
    if (code != 200)
        test_fail(__FILE__, __LINE__, "GET job %s: HTTP %ld", name, code);
    return j;
}

static void apply_creates_then_changes(void)
{
    SKIP_IF(!test_program_installed("kubectl"), "kubectl is not installed");
    REQUIRE(started());
    const char *out;
    CHECK_INT(kubectl("apply -f -", job_manifest("applied", 1, "", "name: c"), &out), 0);
    CHECK_CONTAINS(out, "job.batch.volcano.sh/applied created");
    CHECK_INT(kubectl("apply -f -", job_manifest("applied", 2, "", "name: c"), &out), 0);
    CHECK_CONTAINS(out, "job.batch.volcano.sh/applied configured");
    json_t *j = job("applied");
    CHECK_INT(jv_num(j, "spec.tasks.0.replicas"), 2);
    CHECK(json_object_get(jv_at(j, "metadata.annotations"), "kubectl.kubernetes.io/last-applied-configuration"));
    json_decref(j);
    /* What Volcano's webhook refuses to change is refused, naming why. */
    CHECK(kubectl("apply -f -", job_manifest("applied", 2, "  queue: other\n", "name: c"), &out) != 0);
    CHECK_CONTAINS(out, "job updates may not change fields other than");
}

static void label_and_annotate(void)
{
    SKIP_IF(!test_program_installed("kubectl"), "kubectl is not installed");
    REQUIRE(started());
    const char *out;
    CHECK_INT(kubectl("create -f -", job_manifest("marked", 1, "", "name: c"), &out), 0);
    CHECK_INT(kubectl("label vcjob marked team=vision", NULL, &out), 0);
    CHECK_CONTAINS(out, "labeled");
    CHECK_INT(kubectl("annotate vcjob marked note=hello", NULL, &out), 0);
    CHECK_CONTAINS(out, "annotated");
    json_t *j = job("marked");
    CHECK_STR(jv_str(j, "metadata.labels.team"), "vision");
    CHECK_STR(jv_str(j, "metadata.annotations.note"), "hello");
    json_decref(j);
    CHECK_INT(kubectl("get vcjob -l team=vision -o name", NULL, &out), 0);
    CHECK_CONTAINS(out, "job.batch.volcano.sh/marked");
    CHECK_INT(kubectl("label queue default tier=gold", NULL, &out), 0);
    long code = 0;
    json_t *q = api_get(&server, QUEUES "/%s", "default", &code);
    CHECK_STR(jv_str(q, "metadata.labels.tier"), "gold");
    json_decref(q);
}

static void patch_types(void)
{
    SKIP_IF(!test_program_installed("kubectl"), "kubectl is not installed");
    REQUIRE(started());
    const char *out;
    CHECK_INT(kubectl("create -f -", job_manifest("patched", 1, "", "name: c"), &out), 0);
    CHECK_INT(kubectl("patch vcjob patched --type json -p '[{\"op\":\"test\",\"path\":\"/spec/minAvailable\","
                      "\"value\":1},{\"op\":\"replace\",\"path\":\"/spec/tasks/0/replicas\",\"value\":3}]'",
                      NULL, &out),
              0);
    json_t *j = job("patched");
    CHECK_INT(jv_num(j, "spec.tasks.0.replicas"), 3);
    json_decref(j);
    CHECK_INT(kubectl("patch vcjob patched --type merge -p '{\"spec\":{\"minAvailable\":2}}'", NULL, &out), 0);
    j = job("patched");
    CHECK_INT(jv_num(j, "spec.minAvailable"), 2);
    json_decref(j);
    /* A JSON patch whose test fails names the operation's index and path, and changes nothing. */
    CHECK(kubectl("patch vcjob patched --type json -p '[{\"op\":\"replace\",\"path\":\"/spec/tasks/0/replicas\","
                  "\"value\":5},{\"op\":\"test\",\"path\":\"/spec/minAvailable\",\"value\":7}]'",
                  NULL, &out) != 0);
    CHECK_CONTAINS(out, "operation 1 (test /spec/minAvailable)");
    j = job("patched");
    CHECK_INT(jv_num(j, "spec.tasks.0.replicas"), 3);
    json_decref(j);
    /* Strategic merge (kubectl patch's default): tasks merge by name, the container keeps its image. */
    CHECK_INT(
        kubectl("patch vcjob patched -p '{\"spec\":{\"tasks\":[{\"name\":\"work\",\"replicas\":4}]}}'", NULL, &out), 0);
    j = job("patched");
    CHECK_INT(jv_num(j, "spec.tasks.0.replicas"), 4);
    CHECK_STR(jv_str(j, "spec.tasks.0.template.spec.containers.0.image"), "busybox");
    CHECK_INT((long long)json_array_size(jv_at(j, "spec.tasks")), 1);
    json_decref(j);
    CHECK_INT(kubectl("patch queue default --type merge -p '{\"spec\":{\"weight\":5}}'", NULL, &out), 0);
    long code = 0;
    json_t *q = api_get(&server, QUEUES "/%s", "default", &code);
    CHECK_INT(jv_num(q, "spec.weight"), 5);
    json_decref(q);
}

/* The HTTP answers kubectl hides: 415 for a body of another type, 409 for a stale resourceVersion. */
static void patch_answers(void)
{
    SKIP_IF(!test_program_installed("kubectl"), "kubectl is not installed");
    REQUIRE(started());
    const char *out_unused;
    long code = 0;
    json_t *r = server_request(&server, "POST", JOBS, job_manifest("raw", 1, "", "name: c"), "application/yaml", &code);
    CHECK_INT(code, 201);
    json_decref(r);
    r = server_request(&server, "PATCH", JOBS "/raw", "{}", "application/json", &code);
    CHECK_INT(code, 415);
    json_decref(r);
    r = server_request(&server, "PATCH", JOBS "/raw",
                       "{\"metadata\":{\"resourceVersion\":\"1\",\"labels\":{\"a\":\"b\"}}}",
                       "application/merge-patch+json", &code);
    CHECK_INT(code, 409);
    CHECK_STR(jv_str(r, "reason"), "Conflict");
    json_decref(r);
    r = server_request(&server, "PATCH", JOBS "/missing", "{}", "application/merge-patch+json", &code);
    CHECK_INT(code, 404);
    json_decref(r);
    r = server_request(&server, "PATCH", JOBS "/raw", "[{\"op\":\"remove\",\"path\":\"/spec/nothing\"}]",
                       "application/json-patch+json", &code);
    CHECK_INT(code, 422);
    CHECK_CONTAINS(jv_str(r, "message"), "operation 0 (remove /spec/nothing)");
    json_decref(r);
    r = server_request(&server, "PATCH", JOBS "/raw", "{\"spec\":{}}", "application/apply-patch+yaml", &code);
    CHECK_INT(code, 400);
    CHECK_CONTAINS(jv_str(r, "message"), "fieldManager is required");
    json_decref(r);
    /* A dry run is refused rather than written. */
    CHECK(kubectl("label vcjob raw --dry-run=server x=y", NULL, &out_unused) != 0);
    r = server_request(&server, "GET", JOBS "/raw", NULL, NULL, &code);
    CHECK(jv_at(r, "metadata.labels.x") == NULL);
    json_decref(r);
    /* An apply that creates must name the object of its URL. */
    r = server_request(&server, "PATCH", JOBS "/other?fieldManager=me", job_manifest("raw2", 1, "", "name: c"),
                       "application/apply-patch+yaml", &code);
    CHECK_INT(code, 400);
    CHECK_CONTAINS(jv_str(r, "message"), "does not match the name on the URL");
    json_decref(r);
}

static void server_side_apply_conflicts(void)
{
    SKIP_IF(!test_program_installed("kubectl"), "kubectl is not installed");
    REQUIRE(started());
    const char *out;
    CHECK_INT(kubectl("apply --server-side -f -", job_manifest("owned", 1, "", "name: c"), &out), 0);
    CHECK_CONTAINS(out, "serverside-applied");
    json_t *j = job("owned");
    CHECK_STR(jv_str(j, "metadata.managedFields.0.manager"), "kubectl");
    CHECK_STR(jv_str(j, "metadata.managedFields.0.operation"), "Apply");
    json_decref(j);
    char changed[2048];
    snprintf(changed, sizeof changed, "%s", job_manifest("owned", 2, "", "name: c"));
    CHECK(kubectl("apply --server-side --field-manager=other -f -", changed, &out) != 0);
    CHECK_CONTAINS(out, "conflict with \"kubectl\"");
    CHECK_CONTAINS(out, ".spec.tasks");
    j = job("owned");
    CHECK_INT(jv_num(j, "spec.tasks.0.replicas"), 1);
    json_decref(j);
    CHECK_INT(kubectl("apply --server-side --field-manager=other --force-conflicts -f -", changed, &out), 0);
    j = job("owned");
    CHECK_INT(jv_num(j, "spec.tasks.0.replicas"), 2);
    json_decref(j);
    /* The same value applied again by the first manager is shared, not a conflict. */
    CHECK_INT(kubectl("apply --server-side -f -", changed, &out), 0);
}

static const char *queue_manifest(const char *labels, int weight)
{
    static char buf[512];
    snprintf(buf, sizeof buf,
             "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: applied\n  labels: {%s}\n"
             "spec: {weight: %d}\n",
             labels, weight);
    return buf;
}

/* What a manager stops applying goes, unless another manager applied it too. */
static void server_side_apply_removes_what_is_no_longer_applied(void)
{
    SKIP_IF(!test_program_installed("kubectl"), "kubectl is not installed");
    REQUIRE(started());
    const char *out;
    CHECK_INT(kubectl("apply --server-side -f -", queue_manifest("a: \"1\", b: \"2\"", 2), &out), 0);
    CHECK_INT(kubectl("apply --server-side --field-manager=two -f -", queue_manifest("a: \"1\"", 2), &out), 0);
    CHECK_INT(kubectl("apply --server-side -f -", queue_manifest("", 2), &out), 0);
    long code = 0;
    json_t *q = api_get(&server, QUEUES "/%s", "applied", &code);
    CHECK_STR(jv_str(q, "metadata.labels.a"), "1"); /* "two" applies it still */
    CHECK(jv_at(q, "metadata.labels.b") == NULL);
    json_decref(q);
    CHECK(kubectl("apply --server-side -f -", queue_manifest("", 7), &out) != 0);
    CHECK_CONTAINS(out, "conflict with \"two\": .spec.weight");
}

static void explain_prints_the_fields(void)
{
    SKIP_IF(!test_program_installed("kubectl"), "kubectl is not installed");
    REQUIRE(started());
    const char *out;
    CHECK_INT(kubectl("explain vcjob.spec.tasks", NULL, &out), 0);
    CHECK_CONTAINS(out, "KIND:       Job");
    CHECK_CONTAINS(out, "replicas");
    CHECK_CONTAINS(out, "template");
    CHECK_CONTAINS(out, "minAvailable");
    CHECK_INT(kubectl("explain queue.spec", NULL, &out), 0);
    CHECK_CONTAINS(out, "weight");
    long code = 0;
    json_t *index = server_request(&server, "GET", "/openapi/v3", NULL, NULL, &code);
    const char *url = json_string_value(json_object_get(
        json_object_get(json_object_get(index, "paths"), "apis/batch.volcano.sh/v1alpha1"), "serverRelativeURL"));
    CHECK_CONTAINS(url ? url : "", "/openapi/v3/apis/batch.volcano.sh/v1alpha1?hash=");
    json_decref(index);
}

static void unknown_fields_warned_or_refused(void)
{
    SKIP_IF(!test_program_installed("kubectl"), "kubectl is not installed");
    REQUIRE(started());
    const char *out;
    const char *typo = job_manifest("typo", 1, "  minAvaliable: 1\n", "name: c");
    CHECK(kubectl("create -f -", typo, &out) != 0); /* kubectl's default: --validate=strict */
    CHECK_CONTAINS(out, "unknown field \"spec.minAvaliable\"");
    CHECK_INT(kubectl("create --validate=warn -f -", typo, &out), 0);
    CHECK_CONTAINS(out, "Warning: unknown field \"spec.minAvaliable\"");
    json_t *j = job("typo");
    CHECK(jv_at(j, "spec.minAvaliable") == NULL); /* dropped */
    json_decref(j);
    /* An API client that says nothing gets the warning header and the field dropped. */
    long code = 0;
    json_t *r = server_request(&server, "POST", JOBS, job_manifest("typo2", 1, "  foo: 1\n", "name: c"),
                               "application/yaml", &code);
    CHECK_INT(code, 201);
    CHECK(jv_at(r, "spec.foo") == NULL);
    json_decref(r);
    r = server_request(&server, "POST", JOBS "?fieldValidation=Strict",
                       job_manifest("typo3", 1, "  foo: 1\n", "name: c"), "application/yaml", &code);
    CHECK_INT(code, 422);
    json_decref(r);
    r = server_request(&server, "POST", JOBS "?fieldValidation=Sometimes", job_manifest("typo3", 1, "", "name: c"),
                       "application/yaml", &code);
    CHECK_INT(code, 400);
    json_decref(r);
}

static void container_needs_a_name(void)
{
    REQUIRE(started());
    long code = 0;
    json_t *r = server_request(&server, "POST", JOBS, job_manifest("nameless", 1, "", "imagePullPolicy: Never"),
                               "application/yaml", &code);
    CHECK_INT(code, 422);
    CHECK_CONTAINS(jv_str(r, "message"), "spec.tasks[0].template.spec.containers[0].name: Required value");
    json_decref(r);
}

static void python_client_patches(void)
{
    SKIP_IF(!test_program_installed("kubectl"), "kubectl is not installed");
    SKIP_IF(system("/usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1") != 0,
            "python3-kubernetes is not installed");
    REQUIRE(started());
    const char *out;
    CHECK_INT(kubectl("create -f -", job_manifest("pyjob", 1, "", "name: c"), &out), 0);
    char script[2048], cmd[2600];
    snprintf(script, sizeof script,
             "from kubernetes import client\n"
             "c = client.Configuration(); c.host = '%s'\n"
             "api = client.CustomObjectsApi(client.ApiClient(c))\n"
             "o = api.patch_namespaced_custom_object('batch.volcano.sh', 'v1alpha1', 'default', 'jobs', 'pyjob',\n"
             "    {'metadata': {'labels': {'from': 'python'}}, 'spec': {'minAvailable': 1}})\n"
             "print('label', o['metadata']['labels']['from'])\n"
             "o = api.patch_namespaced_custom_object('batch.volcano.sh', 'v1alpha1', 'default', 'jobs', 'pyjob',\n"
             "    [{'op': 'replace', 'path': '/spec/tasks/0/replicas', 'value': 2}])\n"
             "print('replicas', o['spec']['tasks'][0]['replicas'])\n"
             "q = api.patch_cluster_custom_object('scheduling.volcano.sh', 'v1beta1', 'queues', 'default',\n"
             "    {'metadata': {'annotations': {'owner': 'python'}}})\n"
             "print('queue', q['metadata']['annotations']['owner'])\n",
             server.url);
    char path[128];
    snprintf(path, sizeof path, "%s/client.py", work_dir);
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fputs(script, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "timeout 60 /usr/bin/python3 %s 2>&1", path); /* Debian's, with the client */
    FILE *p = popen(cmd, "r");
    REQUIRE(p);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = '\0';
    CHECK_INT(pclose(p), 0);
    CHECK_CONTAINS(buf, "label python");
    CHECK_CONTAINS(buf, "replicas 2");
    CHECK_CONTAINS(buf, "queue python");
}

static void stop_server(void)
{
    if (server.pid) {
        CHECK_INT(server_stop(&server), 0);
        server_cleanup(&server);
    }
    if (work_dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", work_dir);
        CHECK_INT(system(cmd), 0);
    }
}

TEST_MAIN(TEST_CASE(apply_creates_then_changes), TEST_CASE(label_and_annotate), TEST_CASE(patch_types),
          TEST_CASE(patch_answers), TEST_CASE(server_side_apply_conflicts),
          TEST_CASE(server_side_apply_removes_what_is_no_longer_applied), TEST_CASE(explain_prints_the_fields),
          TEST_CASE(unknown_fields_warned_or_refused), TEST_CASE(container_needs_a_name),
          TEST_CASE(python_client_patches), TEST_CASE(stop_server))
