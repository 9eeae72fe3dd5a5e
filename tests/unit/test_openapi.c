/* The OpenAPI document held against the server: every route of gateway_routes[] (the generic
 * dialect routes once per dialect) is documented with its method, every documented operation is a
 * route, every $ref resolves, every path parameter is declared, and the objects are described. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "gateway/openapi/openapi.h"
#include "gateway/routes.h"
#include "tests/lib/openapi_check.h"
#include "tests/lib/test.h"

static const char *const http_methods[] = {"get", "put", "post", "delete", "options", "head", "patch", "trace"};

static json_t *document(void)
{
    static json_t *doc;
    if (!doc)
        doc = openapi_document(gateway_routes);
    return doc;
}

static json_t *paths(void) { return json_object_get(document(), "paths"); }

static json_t *resolve(const char *ref) { return openapi_resolve(document(), ref); }
static json_t *deref(json_t *v) { return openapi_deref(document(), v); }

static json_t *schema(const char *name)
{
    return json_object_get(json_object_get(json_object_get(document(), "components"), "schemas"), name);
}

static json_t *property(const char *schema_name, const char *field)
{
    return json_object_get(json_object_get(schema(schema_name), "properties"), field);
}

static json_t *operation(const char *path, const char *method)
{
    return json_object_get(json_object_get(paths(), path), method);
}

static void lower(const char *in, char *out, size_t len)
{
    size_t i;
    for (i = 0; in[i] && i + 1 < len; i++)
        out[i] = (char)(in[i] >= 'A' && in[i] <= 'Z' ? in[i] + 32 : in[i]);
    out[i] = '\0';
}

static void upper(const char *in, char *out, size_t len)
{
    size_t i;
    for (i = 0; in[i] && i + 1 < len; i++)
        out[i] = (char)(in[i] >= 'a' && in[i] <= 'z' ? in[i] - 32 : in[i]);
    out[i] = '\0';
}

static void check_documented(const struct route *r, const struct dialect *d)
{
    char path[512], method[16];
    REQUIRE(openapi_path(r->pattern, d, path, sizeof path) == 0);
    lower(r->method, method, sizeof method);
    if (!json_object_get(paths(), path))
        test_fail(__FILE__, __LINE__, "route %s %s: no path %s in the document", r->method, r->pattern, path);
    else if (!operation(path, method))
        test_fail(__FILE__, __LINE__, "route %s %s: path %s has no %s operation", r->method, r->pattern, path, method);
}

/* Every route, the generic dialect routes once per dialect, is in the document with its method. */
static void every_route_is_documented(void)
{
    int routes = 0;
    for (const struct route *r = gateway_routes; r->pattern; r++, routes++) {
        if (!route_is_dialect(r->pattern)) {
            check_documented(r, NULL);
            continue;
        }
        for (const struct dialect *const *d = dialects; *d; d++) {
            bool changes = strcmp(r->method, "PUT") == 0 || strcmp(r->method, "PATCH") == 0;
            if (!changes || (*d)->update) /* PUT and PATCH only where the dialect lets something change */
                check_documented(r, *d);
        }
    }
    CHECK(routes > 40);
}

/* The placeholders are renamed the same way everywhere, and dialect paths are the dialects' own. */
static void paths_read_like_kubernetes(void)
{
    static const char *const expected[] = {
        "/api/v1/namespaces/{namespace}/pods/{name}/log",
        "/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs/{name}",
        "/apis/caldera.io/v1/namespaces/{namespace}/jobs/{name}/history/pods/{pod}/attempts/{attempt}/log",
        "/apis/kubeflow.org/v1/namespaces/{namespace}/pytorchjobs",
        "/apis/kubeflow.org/v1/namespaces/{namespace}/pytorchjobs/{name}",
        "/apis/ray.io/v1/rayjobs",
        "/apis/sparkoperator.k8s.io/v1beta2/namespaces/{namespace}/sparkapplications",
        "/openapi/v3",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        if (!json_object_get(paths(), expected[i]))
            test_fail(__FILE__, __LINE__, "no path %s", expected[i]);
    const char *key;
    json_t *item;
    json_object_foreach(paths(), key, item)
    {
        if (strstr(key, "{ns}") || strstr(key, "{n}") || strstr(key, "{plural}"))
            test_fail(__FILE__, __LINE__, "path %s keeps a route's placeholder name", key);
    }
    char *text = json_dumps(document(), JSON_COMPACT);
    REQUIRE(text);
    CHECK(!strstr(text, "{kind}")); /* every dialect template filled in */
    free(text);
}

/* Path with each {placeholder} replaced by a sample segment. */
static void sample_path(const char *path, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = path; *p && n + 8 < len; p++) {
        if (*p != '{') {
            out[n++] = *p;
            continue;
        }
        const char *close = strchr(p, '}');
        if (!close)
            break;
        memcpy(out + n, "s1", 2);
        n += 2;
        p = close;
    }
    out[n] = '\0';
}

/* The route path reaches is that documented path (once per dialect for the generic ones). */
static bool route_documents(const struct route *r, const char *path)
{
    char mine[512];
    if (!route_is_dialect(r->pattern))
        return openapi_path(r->pattern, NULL, mine, sizeof mine) == 0 && strcmp(mine, path) == 0;
    for (const struct dialect *const *d = dialects; *d; d++)
        if (openapi_path(r->pattern, *d, mine, sizeof mine) == 0 && strcmp(mine, path) == 0)
            return true;
    return false;
}

/* Conversely, every documented operation is answered by the route it documents. */
static void every_operation_is_a_route(void)
{
    const char *path;
    json_t *item;
    int operations = 0;
    json_object_foreach(paths(), path, item)
    {
        for (size_t m = 0; m < sizeof http_methods / sizeof http_methods[0]; m++) {
            if (!json_object_get(item, http_methods[m]))
                continue;
            operations++;
            char sample[512], method[16], scratch[512];
            sample_path(path, sample, sizeof sample);
            upper(http_methods[m], method, sizeof method);
            const char *params[HTTP_MAX_PARAMS];
            int n;
            const struct route *found = NULL;
            enum route_match match = route_find(gateway_routes, method, sample, scratch, params, &n, &found);
            if (match != ROUTE_FOUND)
                test_fail(__FILE__, __LINE__, "documented %s %s: %s %s has no route (%d)", method, path, method, sample,
                          (int)match);
            else if (!route_documents(found, path))
                test_fail(__FILE__, __LINE__, "documented %s %s is answered by route %s %s", method, path,
                          found->method, found->pattern);
        }
    }
    CHECK(operations > 60);
}

static int check_refs(json_t *v, const char *where)
{
    int refs = 0;
    if (json_is_object(v)) {
        const char *ref = json_string_value(json_object_get(v, "$ref"));
        if (ref) {
            refs++;
            if (!resolve(ref))
                test_fail(__FILE__, __LINE__, "%s: $ref %s does not resolve", where, ref);
        }
        const char *key;
        json_t *child;
        json_object_foreach(v, key, child) refs += check_refs(child, key);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *child;
        json_array_foreach(v, i, child) refs += check_refs(child, where);
    }
    return refs;
}

static void every_ref_resolves(void) { CHECK(check_refs(document(), "document") > 100); }

/* Adds the in:path parameters of params (resolved) to names, one per line. */
static void collect_path_params(json_t *params, char *names, size_t len, const char *path)
{
    size_t i;
    json_t *p;
    json_array_foreach(params, i, p)
    {
        json_t *param = deref(p);
        const char *in = json_string_value(json_object_get(param, "in"));
        const char *name = json_string_value(json_object_get(param, "name"));
        if (!in || !name) {
            test_fail(__FILE__, __LINE__, "%s: a parameter without name or in", path);
            continue;
        }
        if (strcmp(in, "path") != 0)
            continue;
        if (!json_is_true(json_object_get(param, "required")))
            test_fail(__FILE__, __LINE__, "%s: path parameter %s is not required", path, name);
        strncat(names, "\n", len - strlen(names) - 1);
        strncat(names, name, len - strlen(names) - 1);
        strncat(names, "\n", len - strlen(names) - 1);
    }
}

/* Every {placeholder} of a path is a declared path parameter, and every declared one is in the path. */
static void path_params_are_declared(void)
{
    const char *path;
    json_t *item;
    json_object_foreach(paths(), path, item)
    {
        char declared[1024] = "";
        collect_path_params(json_object_get(item, "parameters"), declared, sizeof declared, path);
        const char *key;
        json_t *op;
        json_object_foreach(item, key, op)
        {
            if (strcmp(key, "parameters") != 0)
                collect_path_params(json_object_get(op, "parameters"), declared, sizeof declared, path);
        }
        int placeholders = 0;
        for (const char *p = strchr(path, '{'); p; p = strchr(p + 1, '{')) {
            const char *close = strchr(p, '}');
            REQUIRE(close);
            char want[80];
            snprintf(want, sizeof want, "\n%.*s\n", (int)(close - p - 1), p + 1);
            placeholders++;
            if (!strstr(declared, want))
                test_fail(__FILE__, __LINE__, "%s: path parameter %.*s is not declared", path, (int)(close - p - 1),
                          p + 1);
        }
        int count = 0; /* each entry is "\nname\n" */
        for (const char *c = declared; *c; c++)
            count += *c == '\n';
        count /= 2;
        if (count != placeholders)
            test_fail(__FILE__, __LINE__, "%s: %d path parameters declared for %d placeholders", path, count,
                      placeholders);
    }
}

static bool has_query_param(json_t *op, const char *name)
{
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(op, "parameters"), i, p)
    {
        json_t *param = deref(p);
        const char *in = json_string_value(json_object_get(param, "in"));
        const char *param_name = json_string_value(json_object_get(param, "name"));
        if (in && param_name && strcmp(in, "query") == 0 && strcmp(param_name, name) == 0)
            return true;
    }
    return false;
}

/* The query parameters the handlers read are documented where they read them. */
static void query_params_are_documented(void)
{
    static const struct {
        const char *path, *method, *param;
    } expected[] = {
        {"/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs", "get", "labelSelector"},
        {"/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs", "get", "pretty"},
        {"/api/v1/pods", "get", "labelSelector"},
        {"/api/v1/namespaces/{namespace}/pods/{name}/log", "get", "previous"},
        {"/api/v1/namespaces/{namespace}/pods/{name}/log", "get", "attempt"},
        {"/apis/kubeflow.org/v1/namespaces/{namespace}/pytorchjobs/{name}", "get", "as"},
        {"/apis/ray.io/v1/namespaces/{namespace}/rayjobs", "post", "as"},
        {"/apis/caldera.io/v1/jobhistories", "get", "phase"},
        {"/apis/caldera.io/v1/namespaces/{namespace}/jobhistories", "get", "since"},
        {"/apis/caldera.io/v1/namespaces/{namespace}/jobhistories", "get", "until"},
        {"/apis/caldera.io/v1/namespaces/{namespace}/jobhistories", "get", "limit"},
        {"/apis/caldera.io/v1/namespaces/{namespace}/jobhistories", "get", "continue"},
        {"/apis/caldera.io/v1/namespaces/{namespace}/jobs/{name}/history", "get", "uid"},
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        json_t *op = operation(expected[i].path, expected[i].method);
        if (!op || !has_query_param(op, expected[i].param))
            test_fail(__FILE__, __LINE__, "%s %s does not document ?%s", expected[i].method, expected[i].path,
                      expected[i].param);
    }
    CHECK(!has_query_param(operation("/healthz", "get"), "labelSelector"));
}

/* operationIds are unique; bodies come as JSON or YAML; answers have a success and a Status default. */
static void operations_are_complete(void)
{
    json_t *ids = json_object();
    const char *path;
    json_t *item;
    json_object_foreach(paths(), path, item)
    {
        const char *method;
        json_t *op;
        json_object_foreach(item, method, op)
        {
            if (strcmp(method, "parameters") == 0)
                continue;
            const char *id = json_string_value(json_object_get(op, "operationId"));
            if (!id || json_object_get(ids, id))
                test_fail(__FILE__, __LINE__, "%s %s: operationId %s missing or repeated", method, path,
                          id ? id : "(none)");
            else
                json_object_set_new(ids, id, json_true());
            CHECK(json_string_value(json_object_get(op, "summary")) != NULL);
            json_t *responses = json_object_get(op, "responses");
            json_t *fallback = deref(json_object_get(responses, "default"));
            json_t *status = json_object_get(json_object_get(json_object_get(fallback, "content"), "application/json"),
                                             "schema");
            const char *status_ref = json_string_value(json_object_get(status, "$ref"));
            if (!status_ref || strcmp(status_ref, "#/components/schemas/Status") != 0)
                test_fail(__FILE__, __LINE__, "%s %s: the default answer is not a Status", method, path);
            bool success = false;
            const char *code;
            json_t *r;
            json_object_foreach(responses, code, r) success = success || code[0] == '2' || code[0] == '3';
            if (!success)
                test_fail(__FILE__, __LINE__, "%s %s: no success answer", method, path);
            json_t *body = json_object_get(json_object_get(op, "requestBody"), "content");
            if (strcmp(method, "put") == 0 && !body)
                test_fail(__FILE__, __LINE__, "put %s: no request body", path);
            if (strcmp(method, "patch") == 0 && !json_object_get(body, "application/merge-patch+json"))
                test_fail(__FILE__, __LINE__, "patch %s: the body is not a JSON merge patch", path);
            else if (strcmp(method, "patch") != 0 && body &&
                     !(json_object_get(body, "application/json") && json_object_get(body, "application/yaml")))
                test_fail(__FILE__, __LINE__, "%s %s: the body is not both JSON and YAML", method, path);
        }
    }
    json_decref(ids);
    CHECK(json_object_get(
              json_object_get(operation("/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs", "post"),
                              "responses"),
              "201") != NULL);
    CHECK(json_object_get(
              json_object_get(operation("/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs", "post"),
                              "responses"),
              "422") != NULL);
    CHECK(json_object_get(operation("/apis/kubeflow.org/v1/namespaces/{namespace}/tfjobs", "post"), "requestBody"));
}

static const char *answer_ref(const char *path, const char *method, const char *code)
{
    json_t *r = json_object_get(json_object_get(operation(path, method), "responses"), code);
    return json_string_value(json_object_get(
        json_object_get(json_object_get(json_object_get(r, "content"), "application/json"), "schema"), "$ref"));
}

/* Each operation answers with its own object. */
static void answers_name_their_objects(void)
{
    static const struct {
        const char *path, *method, *code, *schema;
    } expected[] = {
        {"/api", "get", "200", "APIVersions"},
        {"/apis/{group}/{version}", "get", "200", "APIResourceList"},
        {"/api/v1/nodes", "get", "200", "NodeList"},
        {"/api/v1/namespaces/{namespace}/pods/{name}", "get", "200", "Pod"},
        {"/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs", "post", "201", "Job"},
        {"/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs/{name}", "delete", "200", "Status"},
        {"/apis/scheduling.volcano.sh/v1beta1/queues/{name}", "put", "200", "Queue"},
        {"/apis/caldera.io/v1/jobhistories", "get", "200", "JobHistoryList"},
        {"/apis/caldera.io/v1/namespaces/{namespace}/trainings", "post", "201", "Job"}, /* answered as Volcano */
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "#/components/schemas/%s", expected[i].schema);
        const char *got = answer_ref(expected[i].path, expected[i].method, expected[i].code);
        if (!got || strcmp(got, want) != 0)
            test_fail(__FILE__, __LINE__, "%s %s answers %s with %s, expected %s", expected[i].method, expected[i].path,
                      expected[i].code, got ? got : "(nothing)", want);
    }
    json_t *healthz = json_object_get(json_object_get(operation("/healthz", "get"), "responses"), "200");
    CHECK(json_object_get(json_object_get(healthz, "content"), "text/plain") != NULL);
}

static const char *ref_of(json_t *v)
{
    json_t *all = json_object_get(v, "allOf"); /* a described reference */
    return json_string_value(json_object_get(all ? json_array_get(all, 0) : v, "$ref"));
}

static bool enum_has(json_t *prop, const char *value)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(prop, "enum"), i, v) if (strcmp(json_string_value(v), value) == 0) return true;
    return false;
}

/* The objects: Status as Kubernetes has it, the main kinds with their fields, the dialects loose. */
static void schemas_describe_the_objects(void)
{
    CHECK_STR(json_string_value(json_object_get(document(), "openapi")), "3.0.3");
    CHECK_STR(json_string_value(json_object_get(json_object_get(document(), "info"), "title")), "Caldera");
    CHECK(json_string_value(json_object_get(json_object_get(document(), "info"), "version")) != NULL);
    static const char *const kinds[] = {"Status",        "ObjectMeta",    "ListMeta", "Job",  "JobList",
                                        "Queue",         "PodGroup",      "Pod",      "Node", "JobHistory",
                                        "PriorityClass", "ResourceQuota", "Command"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!schema(kinds[i]))
            test_fail(__FILE__, __LINE__, "no schema %s", kinds[i]);
    CHECK(json_object_get(schema("Status"), "x-kubernetes-group-version-kind") != NULL);
    CHECK_STR(ref_of(property("Status", "details")), "#/components/schemas/StatusDetails");
    json_t *causes = property("StatusDetails", "causes");
    CHECK_STR(ref_of(json_object_get(causes, "items")), "#/components/schemas/StatusCause");
    CHECK(property("StatusCause", "field") && property("StatusCause", "reason") && property("StatusCause", "message"));
    CHECK(property("Status", "code") && property("Status", "reason") && property("Status", "message"));
    CHECK_STR(ref_of(property("Job", "spec")), "#/components/schemas/JobSpec");
    CHECK_STR(ref_of(json_object_get(property("JobSpec", "tasks"), "items")), "#/components/schemas/TaskSpec");
    CHECK(property("JobSpec", "minAvailable") && property("JobSpec", "queue") && property("JobSpec", "policies"));
    CHECK_STR(ref_of(json_object_get(property("JobList", "items"), "items")), "#/components/schemas/Job");
    /* value lists taken from the code */
    CHECK(enum_has(property("JobState", "phase"), "Running"));
    CHECK(enum_has(property("JobState", "phase"), "Terminated"));
    CHECK(enum_has(property("LifecyclePolicy", "action"), "RestartTask"));
    CHECK(!enum_has(property("LifecyclePolicy", "action"), "OpenQueue"));
    CHECK(enum_has(property("Command", "action"), "OpenQueue"));
    CHECK(enum_has(property("LifecyclePolicy", "event"), "PodEvicted"));
    CHECK(!enum_has(property("LifecyclePolicy", "event"), "OutOfSync"));
    CHECK(enum_has(property("QueueStatus", "state"), "Closed"));
    for (const struct dialect *const *d = dialects; *d; d++) {
        json_t *gvk = json_array_get(json_object_get(schema((*d)->kind), "x-kubernetes-group-version-kind"), 0);
        if (!gvk || strcmp(json_string_value(json_object_get(gvk, "group")), (*d)->group) != 0)
            test_fail(__FILE__, __LINE__, "dialect %s has no schema with its group", (*d)->kind);
    }
    /* ?as=volcano shows the Volcano Job: both shapes are documented */
    json_t *get = operation("/apis/kubeflow.org/v1/namespaces/{namespace}/pytorchjobs/{name}", "get");
    json_t *one_of = json_object_get(
        json_object_get(
            json_object_get(json_object_get(json_object_get(json_object_get(get, "responses"), "200"), "content"),
                            "application/json"),
            "schema"),
        "oneOf");
    CHECK_INT(json_array_size(one_of), 2);
}

/* A group version's document, as kubectl reads it: only that group version's paths, the PATCH of a
 * Job marked with its group, version and kind and carrying fieldValidation written out (kubectl's
 * check for server-side field validation reads exactly that), the schemas kubectl explain walks. */
static void group_documents_serve_kubectl(void)
{
    json_t *doc = openapi_group_document(document(), "/apis/batch.volcano.sh/v1alpha1/");
    REQUIRE(doc);
    const char *path;
    json_t *item;
    json_object_foreach(json_object_get(doc, "paths"), path, item)
    {
        if (strncmp(path, "/apis/batch.volcano.sh/v1alpha1/", 32) != 0)
            test_fail(__FILE__, __LINE__, "path %s is not of the group version", path);
    }
    json_t *patch = json_object_get(
        json_object_get(json_object_get(doc, "paths"),
                        "/apis/batch.volcano.sh/v1alpha1/namespaces/{namespace}/jobs/{name}"),
        "patch");
    REQUIRE(patch);
    json_t *gvk = json_object_get(patch, "x-kubernetes-group-version-kind");
    CHECK_STR(json_string_value(json_object_get(gvk, "group")), "batch.volcano.sh");
    CHECK_STR(json_string_value(json_object_get(gvk, "version")), "v1alpha1");
    CHECK_STR(json_string_value(json_object_get(gvk, "kind")), "Job");
    bool field_validation = false;
    size_t i;
    json_t *param;
    json_array_foreach(json_object_get(patch, "parameters"), i, param)
    {
        CHECK(json_object_get(param, "$ref") == NULL); /* written out */
        const char *name = json_string_value(json_object_get(param, "name"));
        field_validation = field_validation || (name && strcmp(name, "fieldValidation") == 0 &&
                                                strcmp(json_string_value(json_object_get(param, "in")), "query") == 0);
    }
    CHECK(field_validation);
    CHECK(json_object_get(json_object_get(json_object_get(patch, "requestBody"), "content"),
                          "application/apply-patch+yaml"));
    CHECK(json_object_get(json_object_get(json_object_get(doc, "components"), "schemas"), "TaskSpec"));
    json_decref(doc);
    CHECK(openapi_group_document(document(), "/apis/nothing.example/v1/") == NULL);
}

TEST_MAIN(TEST_CASE(every_route_is_documented), TEST_CASE(paths_read_like_kubernetes),
          TEST_CASE(every_operation_is_a_route), TEST_CASE(every_ref_resolves), TEST_CASE(path_params_are_declared),
          TEST_CASE(query_params_are_documented), TEST_CASE(operations_are_complete),
          TEST_CASE(answers_name_their_objects), TEST_CASE(schemas_describe_the_objects),
          TEST_CASE(group_documents_serve_kubectl))
