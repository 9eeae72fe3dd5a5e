/* The OpenAPI document against a real jobserver: GET /openapi/v3/all serves it; the answers of a job's
 * whole life (the job, its pods, pod group, history, attempts, the nodes, queues, classes, quotas,
 * discovery, Status errors) have every field documented; and, where node and npm are at hand,
 * @apidevtools/swagger-parser finds the document valid OpenAPI 3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gateway/openapi/openapi.h"
#include "gateway/routes.h"
#include "tests/lib/job_client.h"
#include "tests/lib/openapi_check.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define NODES_FILE "examples/nodes.yaml"
#define NPM_PREFIX "build/npm" /* where the validator is installed (npm install --prefix) */
#define VALIDATOR NPM_PREFIX "/node_modules/@apidevtools/swagger-parser"

static struct test_server server;

static struct test_server *started(void)
{
    static bool tried;
    static const char *const args[] = {"--nodes", NODES_FILE, NULL};
    if (!tried) {
        tried = true;
        if (server_start(&server, NULL, args) != 0)
            server.pid = 0;
    }
    return server.pid ? &server : NULL;
}

static json_t *served_document(long *code)
{
    struct test_server *s = started();
    return s ? server_request(s, "GET", "/openapi/v3/all", NULL, NULL, code) : NULL;
}

/* GET /openapi/v3/all is the document the tables build. */
static void the_document_is_served(void)
{
    long code = 0;
    json_t *served = served_document(&code);
    CHECK_INT(code, 200);
    json_t *built = openapi_document(gateway_routes);
    REQUIRE(served && built);
    CHECK(json_equal(served, built));
    json_decref(served);
    json_decref(built);
}

/* The answer to method path (documented as doc_path) is held against the schema its operation
 * documents for code. */
static void check_answer(json_t *doc, const char *method, const char *path, const char *body, const char *doc_path,
                         long want)
{
    long code = 0;
    json_t *answer = server_request(&server, method, path, body, body ? "application/yaml" : NULL, &code);
    char lower[16], status[8];
    size_t i;
    for (i = 0; method[i] && i + 1 < sizeof lower; i++)
        lower[i] = (char)(method[i] | 0x20);
    lower[i] = '\0';
    snprintf(status, sizeof status, "%ld", code);
    json_t *responses = json_object_get(
        json_object_get(json_object_get(json_object_get(doc, "paths"), doc_path), lower), "responses");
    json_t *response = openapi_deref(doc, json_object_get(responses, status));
    if (!response)
        response = openapi_deref(doc, json_object_get(responses, "default"));
    json_t *schema = json_object_get(json_object_get(json_object_get(response, "content"), "application/json"),
                                     "schema");
    if (code != want || !answer || !schema)
        test_fail(__FILE__, __LINE__, "%s %s: HTTP %ld (expected %ld), %s, %s", method, path, code, want,
                  answer ? "JSON" : "no JSON", schema ? "documented" : "no schema documented for it");
    else
        openapi_conform(doc, answer, schema, path);
    json_decref(answer);
}

#define JOB "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs/docs"
#define DOC_JOB "/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs/{name}"
#define CAL_JOB "/apis/caldera.io/v1/namespaces/default/jobs/docs"
#define DOC_CAL_JOB "/apis/caldera.io/v1/namespaces/{namespace}/jobs/{name}"

static const char *const queue_yaml =
    "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: docs}\n"
    "spec: {weight: 2, capability: {cpu: 4}, guarantee: {resource: {cpu: 1}}}\n";
static const char
    *const class_yaml = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: docs}\nvalue: 100\n";
static const char *const quota_yaml =
    "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: docs}\nspec: {hard: {cpu: \"8\", pods: \"20\"}}\n";
static const char *const command_yaml =
    "apiVersion: bus.volcano.sh/v1alpha1\nkind: Command\nmetadata: {name: docs-restart}\naction: RestartJob\n"
    "target: {apiVersion: batch.volcano.sh/v1alpha1, kind: Job, name: docs}\n";

/* The reads of a running job's life and of the cluster, and two failures. */
static const struct {
    const char *path, *doc_path;
    long code;
} reads[] = {
    {JOB, DOC_JOB, 200},
    {"/apis/batch.volcano.sh/v1alpha1/jobs", "/apis/batch.volcano.sh/v1alpha1/jobs", 200},
    {"/api/v1/namespaces/default/pods/docs-work-0", "/api/v1/namespaces/{namespace}/pods/{name}", 200},
    {"/api/v1/pods?labelSelector=volcano.sh/job-name=docs", "/api/v1/pods", 200},
    {"/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups/docs",
     "/apis/scheduling.volcano.sh/v1beta1/namespaces/{namespace}/podgroups/{name}", 200},
    {"/apis/scheduling.volcano.sh/v1beta1/podgroups", "/apis/scheduling.volcano.sh/v1beta1/podgroups", 200},
    {"/api/v1/nodes", "/api/v1/nodes", 200},
    {"/api/v1/nodes/node-c", "/api/v1/nodes/{name}", 200},
    {"/apis/scheduling.volcano.sh/v1beta1/queues", "/apis/scheduling.volcano.sh/v1beta1/queues", 200},
    {"/apis/scheduling.k8s.io/v1/priorityclasses", "/apis/scheduling.k8s.io/v1/priorityclasses", 200},
    {"/api/v1/resourcequotas", "/api/v1/resourcequotas", 200},
    {"/apis/bus.volcano.sh/v1alpha1/namespaces/default/commands",
     "/apis/bus.volcano.sh/v1alpha1/namespaces/{namespace}/commands", 200},
    {CAL_JOB "/history", DOC_CAL_JOB "/history", 200},
    {CAL_JOB "/history/tasks/work", DOC_CAL_JOB "/history/tasks/{task}", 200},
    {CAL_JOB "/history/pods/docs-work-1/attempts/1", DOC_CAL_JOB "/history/pods/{pod}/attempts/{attempt}", 200},
    {CAL_JOB "/manifest", DOC_CAL_JOB "/manifest", 200},
    {"/apis/caldera.io/v1/jobhistories?limit=1", "/apis/caldera.io/v1/jobhistories", 200},
    {"/apis/caldera.io/v1/stream", "/apis/caldera.io/v1/stream", 200},
    {"/api", "/api", 200},
    {"/api/v1", "/api/v1", 200},
    {"/apis", "/apis", 200},
    {"/apis/batch.volcano.sh", "/apis/{group}", 200},
    {"/apis/caldera.io/v1", "/apis/{group}/{version}", 200},
    {"/apis/kubeflow.org/v1/pytorchjobs", "/apis/kubeflow.org/v1/pytorchjobs", 200},
    {JOB "x", DOC_JOB, 404},
    {"/api/v1/namespaces/default/pods?labelSelector=a!=b", "/api/v1/namespaces/{namespace}/pods", 200},
    {"/api/v1/namespaces/default/pods?labelSelector=a%20in%20(b", "/api/v1/namespaces/{namespace}/pods", 400},
};

static void follow_a_job(json_t *doc)
{
    struct test_server *s = &server;
    check_answer(doc, "POST", "/apis/scheduling.volcano.sh/v1beta1/queues", queue_yaml,
                 "/apis/scheduling.volcano.sh/v1beta1/queues", 201);
    check_answer(doc, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", class_yaml,
                 "/apis/scheduling.k8s.io/v1/priorityclasses", 201);
    check_answer(doc, "POST", "/api/v1/namespaces/default/resourcequotas", quota_yaml,
                 "/api/v1/namespaces/{namespace}/resourcequotas", 201);
    check_answer(doc, "POST", "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs",
                 job_yaml("docs",
                          "  queue: docs\n  priorityClassName: docs\n  policies: [{event: PodEvicted, "
                          "action: RestartJob}]\n  plugins: {env: []}\n",
                          TASK("work", 2, "", "'sleep 60'", "          resources: {requests: {cpu: 500m}}\n")),
                 "/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs", 201);
    if (job_wait(s, "docs", "status.state.phase", "Running", 30000) != 0 ||
        history_wait(s, "docs", "attempts.1.attempt", "1", 30000) != 0) {
        test_fail(__FILE__, __LINE__, "job docs did not run");
        return;
    }
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++)
        check_answer(doc, "GET", reads[i].path, NULL, reads[i].doc_path, reads[i].code);
    check_answer(doc, "POST", "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs",
                 "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: bad}\nspec:\n  tasks:\n"
                 "  - {name: w, replicas: -1}\n",
                 "/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs", 422);
    check_answer(doc, "POST", "/apis/bus.volcano.sh/v1alpha1/namespaces/default/commands", command_yaml,
                 "/apis/bus.volcano.sh/v1alpha1/namespaces/{namespace}/commands", 201);
    check_answer(doc, "POST", CAL_JOB "/suspend", NULL, DOC_CAL_JOB "/{action}", 200);
    check_answer(doc, "DELETE", JOB, NULL, DOC_JOB, 200);
}

/* Every field of what a job's life shows is documented, of the documented type. */
static void answers_follow_the_document(void)
{
    long code = 0;
    json_t *doc = served_document(&code);
    REQUIRE(doc);
    follow_a_job(doc);
    json_decref(doc);
}

/* The shell's answer to cmd, 0 when it succeeded. */
static int run(const char *cmd) { return system(cmd); }

/* @apidevtools/swagger-parser, installed under build/npm when node and npm are here, validates the
 * document against the OpenAPI 3.0 schema and its rules (unique operationIds, declared path
 * parameters, resolvable references). */
static void swagger_parser_validates(void)
{
    SKIP_IF(run("command -v node >/dev/null 2>&1") != 0, "node is not installed");
    struct stat st;
    if (stat(VALIDATOR, &st) != 0) {
        SKIP_IF(run("command -v npm >/dev/null 2>&1") != 0, "npm is not installed to fetch the validator");
        SKIP_IF(run("timeout 180 npm install --no-audit --no-fund --silent --prefix " NPM_PREFIX
                    " @apidevtools/swagger-parser >/dev/null 2>&1") != 0,
                "npm could not install @apidevtools/swagger-parser");
    }
    long code = 0;
    json_t *doc = served_document(&code);
    REQUIRE(doc);
    char dir[] = "/tmp/caldera-openapi-XXXXXX";
    REQUIRE(mkdtemp(dir));
    char path[128], script[128], cmd[1024];
    snprintf(path, sizeof path, "%s/openapi.json", dir);
    snprintf(script, sizeof script, "%s/validate.js", dir);
    REQUIRE(json_dump_file(doc, path, JSON_INDENT(1)) == 0);
    json_decref(doc);
    FILE *f = fopen(script, "w");
    REQUIRE(f);
    fputs(
        "const parser = require('@apidevtools/swagger-parser');\n"
        "parser.validate(process.argv[2]).then(() => console.log('valid'))\n"
        "  .catch(e => { console.error(String(e.message || e).slice(0, 3000)); process.exit(1); });\n",
        f);
    fclose(f);
    char cwd[512];
    REQUIRE(getcwd(cwd, sizeof cwd));
    snprintf(cmd, sizeof cmd, "NODE_PATH='%s/" NPM_PREFIX "/node_modules' timeout 120 node %s %s >%s/out 2>&1", cwd,
             script, path, dir);
    int rc = run(cmd);
    if (rc != 0) {
        char out[256];
        snprintf(out, sizeof out, "%s/out", dir);
        char line[3200] = "";
        FILE *o = fopen(out, "r");
        if (o) {
            size_t n = fread(line, 1, sizeof line - 1, o);
            line[n] = '\0';
            fclose(o);
        }
        test_fail(__FILE__, __LINE__, "swagger-parser finds the document invalid: %s", line);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
}

static void stop_server(void)
{
    if (server.pid)
        server_stop(&server);
    server_cleanup(&server);
}

TEST_MAIN(TEST_CASE(the_document_is_served), TEST_CASE(answers_follow_the_document),
          TEST_CASE(swagger_parser_validates), TEST_CASE(stop_server))
