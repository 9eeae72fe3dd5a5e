/* The route table: path matching with placeholders, 404 versus 405, every route with its OpenAPI
 * data, and discovery as derived from it (the resources it reads, and every verb a route answers). */
#include <stdio.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "gateway/openapi/discovery_resources.h"
#include "gateway/routes.h"
#include "tests/lib/test.h"

static enum route_match find(const char *method, const char *path, const char **params, int *n)
{
    static char scratch[1024];
    const struct route *r;
    return route_find(gateway_routes, method, path, scratch, params, n, &r);
}

static void placeholders_are_captured(void)
{
    const char *p[HTTP_MAX_PARAMS];
    int n;
    CHECK_INT(find("GET", "/api/v1/namespaces/team-a/pods/job-worker-3/log", p, &n), ROUTE_FOUND);
    REQUIRE(n == 2);
    CHECK_STR(p[0], "team-a");
    CHECK_STR(p[1], "job-worker-3");
    CHECK_INT(find("GET", "/apis/batch.volcano.sh/v1alpha1/namespaces/x/jobs/", p, &n), ROUTE_FOUND);
    CHECK_INT(n, 1);
}

static void unknown_paths_and_methods(void)
{
    const char *p[HTTP_MAX_PARAMS];
    int n;
    CHECK_INT(find("GET", "/api/v1/namespaces/x/serviceaccounts", p, &n), ROUTE_NO_PATH);
    CHECK_INT(find("PATCH", "/api/v1/namespaces/x/pods/y", p, &n), ROUTE_WRONG_METHOD);
    CHECK_INT(find("GET", "/api/v1/namespaces//pods", p, &n), ROUTE_NO_PATH); /* empty segment */
    CHECK_INT(find("HEAD", "/healthz", p, &n), ROUTE_FOUND);
}

static const char *method_of(const char *verb)
{
    if (strcmp(verb, "create") == 0)
        return "POST";
    if (strcmp(verb, "delete") == 0)
        return "DELETE";
    if (strcmp(verb, "update") == 0)
        return "PUT";
    if (strcmp(verb, "patch") == 0)
        return "PATCH";
    return "GET";
}

/* Every route says what the OpenAPI document and discovery need of it: an operationId, a summary
 * and its success code (a route without them is a path the document cannot show). */
static void every_route_has_its_document(void)
{
    for (const struct route *r = gateway_routes; r->pattern; r++)
        if (!r->doc.id || !r->doc.summary || r->doc.code < 200 || r->doc.code > 399)
            test_fail(__FILE__, __LINE__, "route %s %s lacks its OpenAPI data (operationId, summary, code)", r->method,
                      r->pattern);
}

static int derived(struct api_resource *out)
{
    int n = discovery_resources(gateway_routes, out, DISCOVERY_MAX_RESOURCES);
    CHECK(n > 0);
    return n > 0 ? n : 0;
}

static void verb_list(unsigned verbs, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < API_VERB_COUNT; i++)
        if (verbs & 1u << i)
            at += (size_t)snprintf(out + at, len - at, "%s%s", at ? " " : "", api_verb_word(1u << i));
}

/* What discovery reads from the route table: each resource with its kind, scope, verbs (create and
 * list on the collection, watch where the list takes ?watch, get, update and delete on one object, a
 * subresource by its GET) and short names, the dialects' once each, in the table's order. */
static void discovery_is_derived_from_the_routes(void)
{
    static const struct {
        const char *group, *version, *name, *singular, *kind;
        bool namespaced;
        const char *verbs, *short_names;
    } expected[] = {
        {"", "v1", "nodes", "node", "Node", false, "get list watch", "no"},
        {"", "v1", "pods", "pod", "Pod", true, "delete get list watch", "po"},
        {"", "v1", "pods/log", "", "Pod", true, "get", NULL},
        {"", "v1", "events", "event", "Event", true, "list watch", "ev"},
        {"", "v1", "resourcequotas", "resourcequota", "ResourceQuota", true,
         "create delete get list watch update patch", "quota"},
        {"", "v1", "configmaps", "configmap", "ConfigMap", true, "create delete get list watch update patch", "cm"},
        {"", "v1", "secrets", "secret", "Secret", true, "create delete get list watch update patch", NULL},
        {"batch.volcano.sh", "v1alpha1", "jobs", "job", "Job", true, "create delete get list watch update patch",
         "vcjob vj"},
        {"batch.volcano.sh", "v1alpha1", "cronjobs", "cronjob", "CronJob", true, "create delete get list watch update",
         "cronvcjob cronvj"},
        {"flow.volcano.sh", "v1alpha1", "jobtemplates", "jobtemplate", "JobTemplate", true,
         "create delete get list watch", "jt"},
        {"flow.volcano.sh", "v1alpha1", "jobflows", "jobflow", "JobFlow", true, "create delete get list watch", "jf"},
        {"bus.volcano.sh", "v1alpha1", "commands", "command", "Command", true, "create list watch", NULL},
        {"scheduling.volcano.sh", "v1beta1", "queues", "queue", "Queue", false,
         "create delete get list watch update patch", "q queue-v1beta1"},
        {"scheduling.volcano.sh", "v1beta1", "podgroups", "podgroup", "PodGroup", true, "create delete get list watch",
         "pg podgroup-v1beta1"},
        {"scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", false,
         "create delete get list watch update patch", "pc"},
        {"caldera.io", "v1", "companions", "companion", "Companion", true, "create delete get list watch", NULL},
        {"caldera.io", "v1", "jobhistories", "jobhistory", "JobHistory", true, "get list watch", NULL},
        {"caldera.io", "v1", "jobs/history", "", "JobHistory", true, "get", NULL},
        {"caldera.io", "v1", "jobs/manifest", "", "Job", true, "get", NULL},
        /* GET at the collection path says where the WebSocket stream listens: no list, no verbs */
        {"caldera.io", "v1", "stream", "", "StreamInfo", false, "", NULL},
        {"caldera.io", "v1", "tokens", "token", "Token", false, "create delete get list", NULL},
        {"", "v1", "namespaces", "namespace", "Namespace", false, "create get list", "ns"},
        {"", "v1", "nodes/status", "", "Node", false, "get", NULL},
        {"", "v1", "pods/status", "", "Pod", true, "get", NULL},
        {"batch.volcano.sh", "v1alpha1", "jobs/status", "", "Job", true, "get", NULL},
        {"scheduling.volcano.sh", "v1beta1", "queues/status", "", "Queue", false, "get", NULL},
        {"scheduling.volcano.sh", "v1beta1", "podgroups/status", "", "PodGroup", true, "get", NULL},
        {"events.k8s.io", "v1", "events", "event", "Event", true, "list watch", "ev"},
        {"kubeflow.org", "v1", "pytorchjobs", "pytorchjob", "PyTorchJob", true, "create delete get list watch", NULL},
        {"kubeflow.org", "v1", "tfjobs", "tfjob", "TFJob", true, "create delete get list watch", NULL},
        {"kubeflow.org", "v1", "mpijobs", "mpijob", "MPIJob", true, "create delete get list watch", NULL},
        {"ray.io", "v1", "rayjobs", "rayjob", "RayJob", true, "create delete get list watch", NULL},
        {"sparkoperator.k8s.io", "v1beta2", "sparkapplications", "sparkapplication", "SparkApplication", true,
         "create delete get list watch", "sparkapp"},
        {"caldera.io", "v1", "trainings", "training", "Training", true, "create delete get list watch", NULL},
        {"caldera.io", "v1", "debugsessions", "debugsession", "DebugSession", true,
         "create delete get list watch update patch", "ds"},
    };
    struct api_resource got[DISCOVERY_MAX_RESOURCES];
    int n = derived(got);
    CHECK_INT(n, (int)(sizeof expected / sizeof expected[0]));
    for (int i = 0; i < n && i < (int)(sizeof expected / sizeof expected[0]); i++) {
        char verbs[128];
        verb_list(got[i].verbs, verbs, sizeof verbs);
        CHECK_STR(got[i].group, expected[i].group);
        CHECK_STR(got[i].version, expected[i].version);
        CHECK_STR(got[i].name, expected[i].name);
        CHECK_STR(got[i].singular, expected[i].singular);
        CHECK_STR(got[i].kind, expected[i].kind);
        CHECK(got[i].namespaced == expected[i].namespaced);
        CHECK_STR(verbs, expected[i].verbs);
        CHECK_STR(got[i].short_names ? got[i].short_names : "", expected[i].short_names ? expected[i].short_names : "");
    }
}

/* create, list and watch (?watch=true) go to the collection; get, update, delete to one object; a subresource
 * ("pods/log") hangs below its object. */
static void discovery_verbs_have_routes(void)
{
    struct api_resource all[DISCOVERY_MAX_RESOURCES];
    int count = derived(all);
    for (int i = 0; i < count; i++) {
        const struct api_resource *r = &all[i];
        char base[256], resource[64], sub[64] = "";
        snprintf(base, sizeof base, r->group[0] ? "/apis/%s/%s" : "/api/%s%s", r->group[0] ? r->group : r->version,
                 r->group[0] ? r->version : "");
        snprintf(resource, sizeof resource, "%s", r->name);
        char *slash = strchr(resource, '/');
        if (slash) {
            *slash = '\0';
            snprintf(sub, sizeof sub, "/%s", slash + 1);
        }
        for (unsigned v = 1; v < 1u << API_VERB_COUNT; v <<= 1) {
            if (!(r->verbs & v))
                continue;
            const char *verb = api_verb_word(v);
            bool collection = strcmp(verb, "create") == 0 || strcmp(verb, "list") == 0 || strcmp(verb, "watch") == 0;
            char path[512];
            snprintf(path, sizeof path, "%s%s/%s%s%s", base, r->namespaced ? "/namespaces/ns1" : "", resource,
                     collection ? "" : "/obj1", collection ? "" : sub);
            const char *p[HTTP_MAX_PARAMS];
            int n;
            enum route_match m = find(method_of(verb), path, p, &n);
            if (m != ROUTE_FOUND)
                test_fail(__FILE__, __LINE__, "discovery says %s %s, but %s %s has no route", verb, r->name,
                          method_of(verb), path);
        }
    }
}

/* Every dialect the gateway serves is announced by discovery, under its group and version. */
static void dialects_are_discovered(void)
{
    struct api_resource all[DISCOVERY_MAX_RESOURCES];
    int count = derived(all);
    for (const struct dialect *const *d = dialects; *d; d++) {
        bool found = false;
        for (int i = 0; i < count; i++) {
            const struct api_resource *r = &all[i];
            found = found || (strcmp(r->group, (*d)->group) == 0 && strcmp(r->version, (*d)->version) == 0 &&
                              strcmp(r->name, (*d)->plural) == 0 && strcmp(r->kind, (*d)->kind) == 0);
        }
        if (!found)
            test_fail(__FILE__, __LINE__, "dialect %s (%s/%s %s) is missing from discovery", (*d)->kind, (*d)->group,
                      (*d)->version, (*d)->plural);
    }
}

TEST_MAIN(TEST_CASE(placeholders_are_captured), TEST_CASE(unknown_paths_and_methods),
          TEST_CASE(every_route_has_its_document), TEST_CASE(discovery_is_derived_from_the_routes),
          TEST_CASE(discovery_verbs_have_routes), TEST_CASE(dialects_are_discovered))
