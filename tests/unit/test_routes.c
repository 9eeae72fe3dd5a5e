/* The route table: path matching with placeholders, 404 versus 405, and discovery's promises
 * held against it (every verb a resource advertises has a route that answers it). */
#include <stdio.h>
#include <string.h>

#include "adapters/dialect.h"
#include "gateway/discovery.h"
#include "gateway/router.h"
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
    CHECK_INT(find("GET", "/api/v1/namespaces/x/secrets", p, &n), ROUTE_NO_PATH);
    CHECK_INT(find("PATCH", "/apis/batch.volcano.sh/v1alpha1/namespaces/x/jobs/y", p, &n), ROUTE_WRONG_METHOD);
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

/* create, list and watch (?watch=true) go to the collection; get, update, delete to one object; a subresource
 * ("pods/log") hangs below its object. */
static void discovery_verbs_have_routes(void)
{
    for (int i = 0; i < api_resources_count; i++) {
        const struct api_resource *r = &api_resources[i];
        char base[256], resource[64], sub[64] = "";
        snprintf(base, sizeof base, r->group[0] ? "/apis/%s/%s" : "/api/%s%s", r->group[0] ? r->group : r->version,
                 r->group[0] ? r->version : "");
        snprintf(resource, sizeof resource, "%s", r->name);
        char *slash = strchr(resource, '/');
        if (slash) {
            *slash = '\0';
            snprintf(sub, sizeof sub, "/%s", slash + 1);
        }
        char verbs[128];
        snprintf(verbs, sizeof verbs, "%s", r->verbs);
        for (char *save = NULL, *verb = strtok_r(verbs, " ", &save); verb; verb = strtok_r(NULL, " ", &save)) {
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
    for (const struct dialect *const *d = dialects; *d; d++) {
        bool found = false;
        for (int i = 0; i < api_resources_count; i++) {
            const struct api_resource *r = &api_resources[i];
            found = found || (strcmp(r->group, (*d)->group) == 0 && strcmp(r->version, (*d)->version) == 0 &&
                              strcmp(r->name, (*d)->plural) == 0 && strcmp(r->kind, (*d)->kind) == 0);
        }
        if (!found)
            test_fail(__FILE__, __LINE__, "dialect %s (%s/%s %s) is missing from discovery", (*d)->kind, (*d)->group,
                      (*d)->version, (*d)->plural);
    }
}

TEST_MAIN(TEST_CASE(placeholders_are_captured), TEST_CASE(unknown_paths_and_methods),
          TEST_CASE(discovery_verbs_have_routes), TEST_CASE(dialects_are_discovered))
