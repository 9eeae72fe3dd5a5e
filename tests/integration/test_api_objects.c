/* The objects that configure the scheduler, against a real jobserver: Queues (CRUD, Volcano's close
 * -> Closing -> Closed -> delete, `default` kept), PriorityClasses (built-ins, globalDefault, job
 * admission), ResourceQuotas (usage), all refused field by field, listed in discovery, driven by
 * jobctl and found again after a restart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define NODES_FILE "examples/nodes.yaml"
#define QUEUES "/apis/scheduling.volcano.sh/v1beta1/queues"
#define PCS "/apis/scheduling.k8s.io/v1/priorityclasses"
#define QUOTAS "/api/v1/namespaces/team-a/resourcequotas"
#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define CALDERA_QUEUES "/apis/caldera.io/v1/queues"

static const char *const node_args[] = {"--nodes", NODES_FILE, NULL};

/* --- helpers ---------------------------------------------------------------------------------- */

/* The value at a dotted path ("status.state", "items.0.metadata.name"). */
static json_t *at(json_t *v, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *seg = strtok_r(buf, ".", &save); v && seg; seg = strtok_r(NULL, ".", &save)) {
        char *end;
        long i = strtol(seg, &end, 10);
        v = json_is_array(v) && !*end ? json_array_get(v, (size_t)i) : json_object_get(v, seg);
    }
    return v;
}

static const char *str(json_t *v, const char *path) { return json_string_value(at(v, path)); }

/* Sends a YAML body and checks the answer's code; returns the answer (caller frees). */
static json_t *send_yaml(const struct test_server *s, const char *method, const char *path, const char *yaml, long want)
{
    long code;
    json_t *r = server_request(s, method, path, yaml, "application/yaml", &code);
    if (code != want)
        test_fail(__FILE__, __LINE__, "%s %s answered %ld, expected %ld: %s", method, path, code, want,
                  r ? str(r, "message") : "(no JSON)");
    return r;
}

static void expect(const struct test_server *s, const char *method, const char *path, const char *yaml, long want)
{
    json_decref(send_yaml(s, method, path, yaml, want));
}

/* The message of the cause on field in a Status, or NULL. */
static const char *cause_message(json_t *status, const char *field)
{
    size_t i;
    json_t *c;
    json_array_foreach(at(status, "details.causes"), i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "field")), field) == 0)
            return json_string_value(json_object_get(c, "message"));
    }
    return NULL;
}

static bool list_has(json_t *list, const char *name)
{
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(list, "items"), i, item)
    {
        if (strcmp(str(item, "metadata.name"), name) == 0)
            return true;
    }
    return false;
}

static char *job_yaml(const char *name, const char *queue, const char *pclass, int replicas, const char *cpu,
                      const char *command)
{
    char *yaml;
    if (asprintf(&yaml,
                 "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s}\nspec:\n  queue: %s\n"
                 "%s%s%s  tasks:\n  - name: t\n    replicas: %d\n    template:\n      spec:\n"
                 "        terminationGracePeriodSeconds: 1\n        containers:\n        - name: c\n"
                 "          command: [sh, -c, \"%s\"]\n          resources: {requests: {cpu: \"%s\"}}\n",
                 name, queue, pclass ? "  priorityClassName: " : "", pclass ? pclass : "", pclass ? "\n" : "", replicas,
                 command, cpu) < 0)
        return NULL;
    return yaml;
}

static long submit_job(const struct test_server *s, const char *ns_jobs, const char *name, const char *queue,
                       const char *pclass, int replicas, const char *cpu, const char *command, json_t **answer)
{
    char *yaml = job_yaml(name, queue, pclass, replicas, cpu, command);
    long code = 0;
    json_t *r = yaml ? server_request(s, "POST", ns_jobs, yaml, "application/yaml", &code) : NULL;
    free(yaml);
    if (answer)
        *answer = r;
    else
        json_decref(r);
    return code;
}

static int jobctl(const struct test_server *s, const char *const *args, char **out, char **err)
{
    free(*out);
    free(*err);
    *out = *err = NULL;
    return server_jobctl(s, args, out, err);
}

/* --- queues ------------------------------------------------------------------------------------ */

static void queue_crud_and_validation(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    json_t *r = send_yaml(&s, "POST", QUEUES,
                          "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata:\n  name: research\n"
                          "spec:\n  weight: 4\n  capability: {cpu: 6, memory: 12Gi}\n",
                          201);
    CHECK_STR(str(r, "status.state"), "Open");
    CHECK_INT(json_integer_value(at(r, "spec.weight")), 4);
    CHECK(json_is_true(at(r, "spec.reclaimable"))); /* Volcano's default, written back */
    const char *rv = str(r, "metadata.resourceVersion");
    char first_rv[24], uid[64];
    snprintf(first_rv, sizeof first_rv, "%s", rv ? rv : "");
    snprintf(uid, sizeof uid, "%s", str(r, "metadata.uid") ? str(r, "metadata.uid") : "");
    json_decref(r);
    expect(&s, "POST", QUEUES, "metadata: {name: research}\n", 409);

    long code;
    r = server_request(&s, "GET", QUEUES, NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK(list_has(r, "default") && list_has(r, "research"));
    json_decref(r);

    /* PUT: the spec changes, uid stays, the version moves; a stale version is a Conflict. */
    char body[256];
    snprintf(body, sizeof body, "metadata: {name: research, resourceVersion: \"%s\"}\nspec: {weight: 9}\n", first_rv);
    r = send_yaml(&s, "PUT", QUEUES "/research", body, 200);
    CHECK_INT(json_integer_value(at(r, "spec.weight")), 9);
    CHECK_STR(str(r, "metadata.uid"), uid);
    CHECK(strcmp(str(r, "metadata.resourceVersion"), first_rv) != 0);
    CHECK(at(r, "spec.capability") == NULL); /* PUT replaces the spec */
    json_decref(r);
    r = send_yaml(&s, "PUT", QUEUES "/research", body, 409);
    CHECK_STR(str(r, "reason"), "Conflict");
    json_decref(r);
    expect(&s, "PUT", QUEUES "/research", "metadata: {name: other}\nspec: {weight: 2}\n", 400);
    expect(&s, "PUT", QUEUES "/nowhere", "metadata: {name: nowhere}\n", 404);
    r = server_request(&s, "GET", QUEUES "/research", NULL, NULL, &code);
    CHECK_INT(json_integer_value(at(r, "spec.weight")), 9);
    json_decref(r);

    /* Every problem at once, each with its field and line; unknown fields are named, not dropped. */
    r = send_yaml(&s, "POST", QUEUES,
                  "apiVersion: scheduling.volcano.sh/v1beta1\n" /* 1 */
                  "kind: Queue\n"                               /* 2 */
                  "metadata:\n"                                 /* 3 */
                  "  name: bad\n"                               /* 4 */
                  "spec:\n"                                     /* 5 */
                  "  weight: 70000\n"                           /* 6 */
                  "  affinity: {nodeGroupAffinity: {}}\n"       /* 7 */
                  "  parent: missing\n",                        /* 8 */
                  422);
    CHECK_STR(str(r, "reason"), "Invalid");
    CHECK_CONTAINS(cause_message(r, "spec.weight"), "must be between 1 and 65535 (line 6");
    CHECK_CONTAINS(cause_message(r, "spec.affinity"), "Forbidden: Caldera has no node groups");
    CHECK_CONTAINS(cause_message(r, "spec.affinity"), "(line 7");
    json_decref(r);
    /* A parent must exist (checked against live state), and a queue cannot end up below itself. */
    r = send_yaml(&s, "POST", QUEUES, "metadata: {name: bad}\nspec: {parent: missing}\n", 422);
    CHECK_CONTAINS(cause_message(r, "spec.parent"), "Not found: \"missing\"");
    json_decref(r);
    expect(&s, "POST", QUEUES, "metadata: {name: child}\nspec: {parent: research}\n", 201);
    r = send_yaml(&s, "PUT", QUEUES "/research", "metadata: {name: research}\nspec: {parent: child}\n", 422);
    CHECK_CONTAINS(cause_message(r, "spec.parent"), "its own ancestor");
    json_decref(r);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void default_queue_cannot_be_deleted(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    long code;
    json_t *r = server_request(&s, "POST", CALDERA_QUEUES "/default/close", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(str(r, "status.state"), "Closed");
    json_decref(r);
    r = server_request(&s, "DELETE", QUEUES "/default", NULL, NULL, &code);
    CHECK_INT(code, 403);
    CHECK_STR(str(r, "reason"), "Forbidden");
    CHECK_CONTAINS(str(r, "message"), "the default queue cannot be deleted");
    json_decref(r);
    r = server_request(&s, "POST", CALDERA_QUEUES "/default/open", NULL, NULL, &code);
    CHECK_STR(str(r, "status.state"), "Open");
    json_decref(r);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* Volcano: close -> Closing while its PodGroups run -> Closed -> only then delete; a closing or
 * closed queue refuses new jobs. */
static void close_then_delete(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    expect(&s, "POST", QUEUES, "metadata: {name: batch}\n", 201);
    /* long enough for the checks below to happen while it runs, even on a loaded machine */
    CHECK_INT(submit_job(&s, JOBS, "slow", "batch", NULL, 1, "1", "sleep 4", NULL), 201);
    CHECK(server_wait_field(&s, JOBS "/slow", "status.running", "1", 20000) == 0);

    long code;
    json_t *r = server_request(&s, "DELETE", QUEUES "/batch", NULL, NULL, &code);
    CHECK_INT(code, 409);
    CHECK_CONTAINS(str(r, "message"), "only a Closed queue can be deleted; close it first");
    CHECK_CONTAINS(str(r, "message"), "/apis/caldera.io/v1/queues/batch/close");
    json_decref(r);

    r = server_request(&s, "POST", CALDERA_QUEUES "/batch/close", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(str(r, "status.state"), "Closing");
    json_decref(r);
    json_t *refused;
    CHECK_INT(submit_job(&s, JOBS, "late", "batch", NULL, 1, "1", "true", &refused), 422);
    CHECK_CONTAINS(cause_message(refused, "spec.queue"), "is Closing and accepts no new jobs");
    json_decref(refused);
    r = server_request(&s, "DELETE", QUEUES "/batch", NULL, NULL, &code);
    CHECK_INT(code, 409); /* still Closing */
    json_decref(r);

    CHECK(server_wait_field(&s, QUEUES "/batch", "status.state", "Closed", 20000) == 0);
    CHECK(server_wait_field(&s, JOBS "/slow", "status.state.phase", "Completed", 10000) == 0);
    CHECK_INT(submit_job(&s, JOBS, "late", "batch", NULL, 1, "1", "true", &refused), 422);
    CHECK_CONTAINS(cause_message(refused, "spec.queue"), "is Closed and accepts no new jobs");
    json_decref(refused);

    /* Reopened, it takes jobs again; closed with nothing running, it is Closed at once. */
    r = server_request(&s, "POST", CALDERA_QUEUES "/batch/open", NULL, NULL, &code);
    CHECK_STR(str(r, "status.state"), "Open");
    json_decref(r);
    CHECK_INT(submit_job(&s, JOBS, "late", "batch", NULL, 1, "1", "true", NULL), 201);
    CHECK(server_wait_field(&s, JOBS "/late", "status.state.phase", "Completed", 20000) == 0);
    r = server_request(&s, "POST", CALDERA_QUEUES "/batch/close", NULL, NULL, &code);
    CHECK_STR(str(r, "status.state"), "Closed");
    CHECK_INT(json_integer_value(at(r, "status.completed")), 2);
    json_decref(r);

    r = server_request(&s, "DELETE", QUEUES "/batch", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(str(r, "status"), "Success");
    json_decref(r);
    r = server_request(&s, "GET", QUEUES "/batch", NULL, NULL, &code);
    CHECK_INT(code, 404);
    json_decref(r);
    r = server_request(&s, "POST", CALDERA_QUEUES "/batch/close", NULL, NULL, &code);
    CHECK_INT(code, 404);
    json_decref(r);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* --- priority classes --------------------------------------------------------------------------- */

static void priority_classes(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    long code;
    json_t *r = server_request(&s, "GET", PCS, NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK(list_has(r, "system-cluster-critical") && list_has(r, "system-node-critical"));
    json_decref(r);
    r = server_request(&s, "GET", PCS "/system-node-critical", NULL, NULL, &code);
    CHECK_INT(json_integer_value(at(r, "value")), 2000001000);
    json_decref(r);

    r = send_yaml(&s, "POST", PCS,
                  "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"
                  "globalDefault: true\ndescription: the default\n",
                  201);
    CHECK_STR(str(r, "preemptionPolicy"), "PreemptLowerPriority");
    json_decref(r);
    expect(&s, "POST", PCS, "metadata: {name: high}\nvalue: 5\n", 409);
    r = send_yaml(&s, "POST", PCS, "metadata: {name: other}\nvalue: 5\nglobalDefault: true\n", 422);
    CHECK_CONTAINS(cause_message(r, "globalDefault"), "PriorityClass \"high\" is already marked as default");
    json_decref(r);
    r = send_yaml(&s, "POST", PCS, "metadata: {name: huge}\nvalue: 1000000001\n", 422);
    CHECK_CONTAINS(cause_message(r, "value"), "(line 2");
    json_decref(r);
    r = send_yaml(&s, "PUT", PCS "/high", "metadata: {name: high}\nvalue: 7\npreemptionPolicy: Never\n", 422);
    CHECK_CONTAINS(cause_message(r, "value"), "field is immutable");
    CHECK_CONTAINS(cause_message(r, "preemptionPolicy"), "field is immutable");
    json_decref(r);
    r = send_yaml(&s, "PUT", PCS "/high",
                  "metadata: {name: high}\nvalue: 1000\nglobalDefault: true\n"
                  "description: changed\n",
                  200);
    CHECK_STR(str(r, "description"), "changed");
    json_decref(r);

    /* The built-ins cannot be created, changed or deleted. */
    expect(&s, "POST", PCS, "metadata: {name: system-node-critical}\nvalue: 2000001000\n", 403);
    expect(&s, "PUT", PCS "/system-node-critical", "metadata: {name: system-node-critical}\nvalue: 2000001000\n", 403);
    expect(&s, "DELETE", PCS "/system-cluster-critical", NULL, 403);

    /* Jobs: a class that does not exist is refused; a known one is accepted. */
    json_t *refused;
    CHECK_INT(submit_job(&s, JOBS, "ghost", "default", "nope", 1, "1", "true", &refused), 422);
    CHECK_CONTAINS(cause_message(refused, "spec.priorityClassName"), "Not found: \"nope\": no PriorityClass");
    json_decref(refused);
    CHECK_INT(submit_job(&s, JOBS, "critical", "default", "system-cluster-critical", 1, "1", "true", NULL), 201);

    expect(&s, "POST", PCS, "metadata: {name: gone}\nvalue: 1\n", 201);
    expect(&s, "DELETE", PCS "/gone", NULL, 200);
    expect(&s, "GET", PCS "/gone", NULL, 404);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* Two untainted nodes of 4 cpu: a blocker holds both, then a job of class "low" (1) arrives before
 * one naming no class. The globalDefault class (1000) applies to the second, so it runs first. */
static void global_default_orders_jobs(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    expect(&s, "POST", PCS, "metadata: {name: high}\nvalue: 1000\nglobalDefault: true\n", 201);
    expect(&s, "POST", PCS, "metadata: {name: low}\nvalue: 1\n", 201);
    CHECK_INT(submit_job(&s, JOBS, "blocker", "default", "low", 2, "4", "sleep 4", NULL), 201);
    CHECK(server_wait_field(&s, JOBS "/blocker", "status.running", "2", 20000) == 0);
    CHECK_INT(submit_job(&s, JOBS, "first-low", "default", "low", 2, "4", "sleep 2", NULL), 201);
    CHECK_INT(submit_job(&s, JOBS, "second-default", "default", NULL, 2, "4", "sleep 2", NULL), 201);
    CHECK(server_wait_field(&s, JOBS "/second-default", "status.running", "2", 20000) == 0);
    long code;
    json_t *r = server_request(&s, "GET", JOBS "/first-low", NULL, NULL, &code);
    CHECK_STR(str(r, "status.state.phase"), "Pending");
    json_decref(r);
    CHECK(server_wait_field(&s, JOBS "/first-low", "status.state.phase", "Completed", 30000) == 0);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* --- resource quotas ------------------------------------------------------------------------------ */

static void resource_quotas(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    json_t *r = send_yaml(&s, "POST", QUOTAS,
                          "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: compute}\n"
                          "spec:\n  hard:\n    requests.cpu: \"6\"\n    memory: 8Gi\n    pods: 10\n",
                          201);
    CHECK_STR(str(r, "metadata.namespace"), "team-a");
    /* keys with dots ("requests.cpu") are read through the map, not as a dotted path */
    CHECK_STR(json_string_value(json_object_get(at(r, "status.hard"), "requests.cpu")), "6");
    CHECK_STR(json_string_value(json_object_get(at(r, "status.used"), "requests.cpu")), "0");
    json_decref(r);
    expect(&s, "POST", QUOTAS, "metadata: {name: compute}\n", 409);

    r = send_yaml(&s, "POST", QUOTAS,
                  "metadata: {name: bad}\n"      /* 1 */
                  "spec:\n"                      /* 2 */
                  "  hard:\n"                    /* 3 */
                  "    limits.cpu: 4\n"          /* 4 */
                  "    count/pods: 3\n"          /* 5 */
                  "  scopes: [NotBestEffort]\n", /* 6 */
                  422);
    CHECK_CONTAINS(cause_message(r, "spec.hard[limits.cpu]"), "Unsupported value: \"limits.cpu\"");
    CHECK_CONTAINS(cause_message(r, "spec.hard[limits.cpu]"), "(line 4");
    CHECK_CONTAINS(cause_message(r, "spec.hard[count/pods]"), "(line 5");
    CHECK_CONTAINS(cause_message(r, "spec.scopes"), "(line 6");
    json_decref(r);
    expect(&s, "POST", QUOTAS, "metadata: {name: elsewhere, namespace: team-b}\n", 400);

    /* used: the namespace's running replicas' requests, and their number as pods. */
    CHECK_INT(submit_job(&s, "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs", "busy", "default", NULL, 2,
                         "1500m", "sleep 30", NULL),
              201);
    CHECK(server_wait_field(&s, "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs/busy", "status.running", "2",
                            20000) == 0);
    long code;
    r = server_request(&s, "GET", QUOTAS "/compute", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(json_string_value(json_object_get(at(r, "status.used"), "requests.cpu")), "3");
    CHECK_STR(json_string_value(json_object_get(at(r, "status.used"), "pods")), "2");
    json_decref(r);

    r = send_yaml(&s, "PUT", QUOTAS "/compute", "metadata: {name: compute}\nspec: {hard: {cpu: 2}}\n", 200);
    CHECK_STR(json_string_value(json_object_get(at(r, "status.hard"), "cpu")), "2");
    CHECK(json_object_get(at(r, "status.hard"), "pods") == NULL);
    json_decref(r);
    r = server_request(&s, "GET", "/api/v1/resourcequotas", NULL, NULL, &code);
    CHECK(list_has(r, "compute"));
    json_decref(r);
    r = server_request(&s, "GET", "/api/v1/namespaces/team-b/resourcequotas", NULL, NULL, &code);
    CHECK_INT(json_array_size(json_object_get(r, "items")), 0);
    json_decref(r);
    expect(&s, "DELETE", QUOTAS "/compute", NULL, 200);
    expect(&s, "GET", QUOTAS "/compute", NULL, 404);
    expect(&s, "DELETE", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs/busy", NULL, 200);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* --- restart, discovery, jobctl --------------------------------------------------------------------- */

static void everything_survives_a_restart(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    expect(&s, "POST", QUEUES, "metadata: {name: kept}\nspec: {weight: 5, capability: {cpu: 2}}\n", 201);
    expect(&s, "POST", QUEUES, "metadata: {name: shut}\n", 201);
    expect(&s, "POST", CALDERA_QUEUES "/shut/close", NULL, 200);
    expect(&s, "POST", QUEUES, "metadata: {name: gone}\n", 201);
    expect(&s, "POST", CALDERA_QUEUES "/gone/close", NULL, 200);
    expect(&s, "DELETE", QUEUES "/gone", NULL, 200);
    expect(&s, "POST", PCS, "metadata: {name: high}\nvalue: 1000\nglobalDefault: true\n", 201);
    expect(&s, "POST", QUOTAS, "metadata: {name: compute}\nspec: {hard: {pods: 4}}\n", 201);
    long code;
    json_t *before = server_request(&s, "GET", PCS "/system-node-critical", NULL, NULL, &code);
    json_t *quota_before = server_request(&s, "GET", QUOTAS "/compute", NULL, NULL, &code);
    CHECK_INT(server_stop(&s), 0);

    REQUIRE(server_start(&s, s.data_dir, node_args) == 0);
    json_t *r = server_request(&s, "GET", QUEUES "/kept", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_INT(json_integer_value(at(r, "spec.weight")), 5);
    CHECK_INT(json_integer_value(at(r, "spec.capability.cpu")), 2); /* a number, as it was given */
    json_decref(r);
    CHECK(server_wait_field(&s, QUEUES "/shut", "status.state", "Closed", 1000) == 0);
    expect(&s, "GET", QUEUES "/gone", NULL, 404);
    r = server_request(&s, "GET", PCS "/high", NULL, NULL, &code);
    CHECK(json_is_true(at(r, "globalDefault")));
    json_decref(r);
    r = server_request(&s, "GET", PCS, NULL, NULL, &code);
    CHECK_INT(json_array_size(json_object_get(r, "items")), 3); /* built-ins not created twice */
    json_decref(r);
    /* Built-ins keep their uid across restarts; the quota comes back as it was. */
    r = server_request(&s, "GET", PCS "/system-node-critical", NULL, NULL, &code);
    CHECK_STR(str(r, "metadata.uid"), str(before, "metadata.uid"));
    json_decref(r);
    r = server_request(&s, "GET", QUOTAS "/compute", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(str(r, "metadata.uid"), str(quota_before, "metadata.uid"));
    CHECK_STR(str(r, "metadata.resourceVersion"), str(quota_before, "metadata.resourceVersion"));
    json_decref(r);
    json_decref(before);
    json_decref(quota_before);
    /* The globalDefault still admits, a closed queue still refuses. */
    json_t *refused;
    CHECK_INT(submit_job(&s, JOBS, "late", "shut", NULL, 1, "1", "true", &refused), 422);
    json_decref(refused);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static bool resource_listed(json_t *list, const char *name, const char *short_name, const char *verb)
{
    size_t i, j;
    json_t *res, *v;
    json_array_foreach(json_object_get(list, "resources"), i, res)
    {
        if (strcmp(str(res, "name"), name) != 0)
            continue;
        bool has_short = false, has_verb = false;
        json_array_foreach(json_object_get(res, "shortNames"), j, v)
        {
            if (strcmp(json_string_value(v), short_name) == 0)
                has_short = true;
        }
        json_array_foreach(json_object_get(res, "verbs"), j, v)
        {
            if (strcmp(json_string_value(v), verb) == 0)
                has_verb = true;
        }
        return has_short && has_verb;
    }
    return false;
}

static void discovery_lists_them(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    long code;
    json_t *r = server_request(&s, "GET", "/apis", NULL, NULL, &code);
    char *text = json_dumps(r, 0);
    CHECK_CONTAINS(text, "\"scheduling.k8s.io/v1\"");
    free(text);
    json_decref(r);
    r = server_request(&s, "GET", "/apis/scheduling.k8s.io/v1", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK(resource_listed(r, "priorityclasses", "pc", "update"));
    json_decref(r);
    r = server_request(&s, "GET", "/api/v1", NULL, NULL, &code);
    CHECK(resource_listed(r, "resourcequotas", "quota", "create"));
    json_decref(r);
    r = server_request(&s, "GET", "/apis/scheduling.volcano.sh/v1beta1", NULL, NULL, &code);
    CHECK(resource_listed(r, "queues", "q", "create"));
    CHECK(resource_listed(r, "queues", "q", "update"));
    CHECK(resource_listed(r, "queues", "q", "delete"));
    json_decref(r);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void jobctl_queue_commands(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, node_args) == 0);
    char *out = NULL, *err = NULL;
    const char *create[] = {
        "queue", "create", "ml", "--weight", "3", "--capability=cpu=4,memory=8Gi", "--reclaimable=false", NULL};
    CHECK_INT(jobctl(&s, create, &out, &err), 0);
    CHECK_CONTAINS(out, "queue.scheduling.volcano.sh/ml created");
    long code;
    json_t *r = server_request(&s, "GET", QUEUES "/ml", NULL, NULL, &code);
    CHECK_INT(json_integer_value(at(r, "spec.weight")), 3);
    CHECK_STR(str(r, "spec.capability.memory"), "8Gi");
    CHECK(json_is_false(at(r, "spec.reclaimable")));
    json_decref(r);

    const char *list[] = {"queues", NULL};
    CHECK_INT(jobctl(&s, list, &out, &err), 0);
    CHECK_CONTAINS(out, "ml");
    const char *del[] = {"queue", "delete", "ml", NULL};
    CHECK_INT(jobctl(&s, del, &out, &err), 1);
    CHECK_CONTAINS(err, "close it first");
    const char *close[] = {"queue", "close", "ml", NULL};
    CHECK_INT(jobctl(&s, close, &out, &err), 0);
    CHECK_CONTAINS(out, "queue.scheduling.volcano.sh/ml closed");
    const char *open[] = {"queue", "open", "ml", NULL};
    CHECK_INT(jobctl(&s, open, &out, &err), 0);
    CHECK_CONTAINS(out, "queue.scheduling.volcano.sh/ml opened");
    CHECK_INT(jobctl(&s, close, &out, &err), 0);
    CHECK_INT(jobctl(&s, del, &out, &err), 0);
    CHECK_CONTAINS(out, "queue.scheduling.volcano.sh/ml deleted");
    const char *del_default[] = {"queue", "delete", "default", NULL};
    CHECK_INT(jobctl(&s, del_default, &out, &err), 1);
    CHECK_CONTAINS(err, "the default queue cannot be deleted (403 Forbidden)");
    const char *bad[] = {"queue", "create", "w", "--weight", "0", NULL};
    CHECK_INT(jobctl(&s, bad, &out, &err), 1);
    CHECK_CONTAINS(err, "spec.weight");
    const char *usage[] = {"queue", "rename", "x", NULL};
    CHECK_INT(jobctl(&s, usage, &out, &err), 2);
    CHECK_CONTAINS(err, "unknown queue action");
    free(out);
    free(err);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(queue_crud_and_validation), TEST_CASE(default_queue_cannot_be_deleted),
          TEST_CASE(close_then_delete), TEST_CASE(priority_classes), TEST_CASE(global_default_orders_jobs),
          TEST_CASE(resource_quotas), TEST_CASE(everything_survives_a_restart), TEST_CASE(discovery_lists_them),
          TEST_CASE(jobctl_queue_commands))
