/* Kubernetes API discovery documents (APIVersions, APIGroupList, APIGroup, APIResourceList), all
 * rendered from the resources the route table serves (discovery_resources.c). */
#include "gateway/openapi/discovery_resources.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gateway/http/http.h"
#include "gateway/openapi/openapi.h"

/* The resources, derived once from the route table (discovery_resources.c). */
static struct api_resource resources[DISCOVERY_MAX_RESOURCES];
static int resources_count = -1;
static bool resources_derived;
static pthread_mutex_t resources_lock = PTHREAD_MUTEX_INITIALIZER;

/* The resources of the request's route table, or NULL (more than DISCOVERY_MAX_RESOURCES: a table
 * too big to show). Derived at the first call; the table never changes while the server runs. */
static const struct api_resource *all_resources(const struct http_req *req, int *count)
{
    pthread_mutex_lock(&resources_lock);
    if (!resources_derived) {
        resources_count = discovery_resources(req->gw->routes, resources, DISCOVERY_MAX_RESOURCES);
        resources_derived = true;
    }
    *count = resources_count;
    pthread_mutex_unlock(&resources_lock);
    return *count >= 0 ? resources : NULL;
}

static json_t *verb_words(unsigned verbs)
{
    json_t *arr = json_array();
    for (int i = 0; i < API_VERB_COUNT; i++)
        if (verbs & 1u << i)
            json_array_append_new(arr, json_string(api_verb_word(1u << i)));
    return arr;
}

static json_t *words(const char *list)
{
    json_t *arr = json_array();
    char buf[128];
    strncpy(buf, list, sizeof buf - 1);
    buf[sizeof buf - 1] = '\0';
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
        json_array_append_new(arr, json_string(w));
    return arr;
}

static json_t *group_version(const char *group, const char *version)
{
    char gv[128];
    snprintf(gv, sizeof gv, "%s/%s", group, version);
    return json_pack("{s:s, s:s}", "groupVersion", gv, "version", version);
}

/* Each named group has exactly one version here. */
static json_t *api_group(const char *group, const char *version)
{
    return json_pack("{s:s, s:s, s:s, s:[o], s:o}", "kind", "APIGroup", "apiVersion", "v1", "name", group, "versions",
                     group_version(group, version), "preferredVersion", group_version(group, version));
}

static const struct api_resource *find_group(const struct http_req *req, const char *group)
{
    int n;
    const struct api_resource *all = all_resources(req, &n);
    for (int i = 0; i < n; i++)
        if (all[i].group[0] && strcmp(all[i].group, group) == 0)
            return &all[i];
    return NULL;
}

static json_t *resource_list(const struct http_req *req, const char *group, const char *version)
{
    char gv[128];
    snprintf(gv, sizeof gv, "%s%s%s", group, *group ? "/" : "", version);
    json_t *list = json_array();
    int n;
    const struct api_resource *all = all_resources(req, &n);
    for (int i = 0; i < n; i++) {
        const struct api_resource *r = &all[i];
        if (strcmp(r->group, group) != 0 || strcmp(r->version, version) != 0)
            continue;
        json_t *res = json_pack("{s:s, s:s, s:b, s:s, s:o}", "name", r->name, "singularName", r->singular, "namespaced",
                                r->namespaced, "kind", r->kind, "verbs", verb_words(r->verbs));
        if (r->short_names)
            json_object_set_new(res, "shortNames", words(r->short_names));
        json_array_append_new(list, res);
    }
    return json_pack("{s:s, s:s, s:s, s:o}", "kind", "APIResourceList", "apiVersion", "v1", "groupVersion", gv,
                     "resources", list);
}

void handle_api_versions(struct http_req *req)
{
    const char *host = strstr(req->gw->url, "//");
    http_respond_json(req, 200,
                      json_pack("{s:s, s:[s], s:[{s:s, s:s}]}", "kind", "APIVersions", "versions", "v1",
                                "serverAddressByClientCIDRs", "clientCIDR", "0.0.0.0/0", "serverAddress",
                                host ? host + 2 : req->gw->url));
}

void handle_api_core_resources(struct http_req *req) { http_respond_json(req, 200, resource_list(req, "", "v1")); }

void handle_api_groups(struct http_req *req)
{
    json_t *groups = json_array();
    int n;
    const struct api_resource *all = all_resources(req, &n);
    for (int i = 0; i < n; i++) {
        const struct api_resource *r = &all[i];
        if (r->group[0] && find_group(req, r->group) == r) /* first resource of each group */
            json_array_append_new(groups, api_group(r->group, r->version));
    }
    json_t *list = json_pack("{s:s, s:s, s:o}", "kind", "APIGroupList", "apiVersion", "v1", "groups", groups);
    /* APIGroup items in a list carry no kind/apiVersion */
    size_t i;
    json_t *g;
    json_array_foreach(groups, i, g)
    {
        json_object_del(g, "kind");
        json_object_del(g, "apiVersion");
    }
    http_respond_json(req, 200, list);
}

static void not_found(struct http_req *req)
{
    struct api_status st = {0};
    api_fail(&st, 404, "NotFound", "the server could not find the requested resource");
    http_respond_status(req, &st);
}

void handle_api_group(struct http_req *req)
{
    const struct api_resource *r = find_group(req, req->params[0]);
    if (!r)
        return not_found(req);
    http_respond_json(req, 200, api_group(r->group, r->version));
}

void handle_api_group_resources(struct http_req *req)
{
    const struct api_resource *r = find_group(req, req->params[0]);
    if (!r || strcmp(r->version, req->params[1]) != 0)
        return not_found(req);
    http_respond_json(req, 200, resource_list(req, r->group, r->version));
}
