/* Kubernetes API discovery documents (APIVersions, APIGroupList, APIGroup, APIResourceList), all
 * rendered from one table of resources; a unit test holds that table against the route table. */
#include "gateway/discovery.h"

#include <stdio.h>
#include <string.h>

#include "gateway/handlers.h"

const struct api_resource api_resources[] = {
    {"", "v1", "pods", "pod", "Pod", true, "delete get list watch", "po"},
    {"", "v1", "pods/log", "", "Pod", true, "get", ""},
    {"", "v1", "nodes", "node", "Node", false, "get list watch", "no"},
    {"", "v1", "events", "event", "Event", true, "list watch", "ev"},
    {"", "v1", "resourcequotas", "resourcequota", "ResourceQuota", true, "create delete get list watch update",
     "quota"},
    {"batch.volcano.sh", "v1alpha1", "jobs", "job", "Job", true, "create delete get list watch update", "vcjob vj"},
    {"bus.volcano.sh", "v1alpha1", "commands", "command", "Command", true, "create list watch", ""},
    {"scheduling.volcano.sh", "v1beta1", "queues", "queue", "Queue", false, "create delete get list watch update",
     "q queue-v1beta1"},
    {"scheduling.volcano.sh", "v1beta1", "podgroups", "podgroup", "PodGroup", true, "get list watch",
     "pg podgroup-v1beta1"},
    {"scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", false,
     "create delete get list watch update", "pc"},
    {"caldera.io", "v1", "jobhistories", "jobhistory", "JobHistory", true, "get list watch", ""},
    {"caldera.io", "v1", "jobs/history", "", "JobHistory", true, "get", ""},
    {"caldera.io", "v1", "jobs/manifest", "", "Job", true, "get", ""},
    /* Not an object with Kubernetes verbs: GET at the collection path says where the WebSocket
     * stream listens, so discovery names it with no verbs. */
    {"caldera.io", "v1", "stream", "", "StreamInfo", false, "", ""},
    {"caldera.io", "v1", "trainings", "training", "Training", true, "create delete get list watch", ""},
    {"kubeflow.org", "v1", "pytorchjobs", "pytorchjob", "PyTorchJob", true, "create delete get list watch", ""},
    {"kubeflow.org", "v1", "tfjobs", "tfjob", "TFJob", true, "create delete get list watch", ""},
    {"kubeflow.org", "v1", "mpijobs", "mpijob", "MPIJob", true, "create delete get list watch", ""},
    {"ray.io", "v1", "rayjobs", "rayjob", "RayJob", true, "create delete get list watch", ""},
    {"caldera.io", "v1", "tokens", "token", "Token", false, "create delete get list", ""},
    {"sparkoperator.k8s.io", "v1beta2", "sparkapplications", "sparkapplication", "SparkApplication", true,
     "create delete get list watch", "sparkapp"},
};
const int api_resources_count = (int)(sizeof api_resources / sizeof api_resources[0]);

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

static const struct api_resource *find_group(const char *group)
{
    for (int i = 0; i < api_resources_count; i++)
        if (api_resources[i].group[0] && strcmp(api_resources[i].group, group) == 0)
            return &api_resources[i];
    return NULL;
}

static json_t *resource_list(const char *group, const char *version)
{
    char gv[128];
    snprintf(gv, sizeof gv, "%s%s%s", group, *group ? "/" : "", version);
    json_t *list = json_array();
    for (int i = 0; i < api_resources_count; i++) {
        const struct api_resource *r = &api_resources[i];
        if (strcmp(r->group, group) != 0 || strcmp(r->version, version) != 0)
            continue;
        json_t *res = json_pack("{s:s, s:s, s:b, s:s, s:o}", "name", r->name, "singularName", r->singular, "namespaced",
                                r->namespaced, "kind", r->kind, "verbs", words(r->verbs));
        if (r->short_names[0])
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

void handle_api_core_resources(struct http_req *req) { http_respond_json(req, 200, resource_list("", "v1")); }

void handle_api_groups(struct http_req *req)
{
    json_t *groups = json_array();
    for (int i = 0; i < api_resources_count; i++) {
        const struct api_resource *r = &api_resources[i];
        if (r->group[0] && find_group(r->group) == r) /* first resource of each group */
            json_array_append_new(groups, api_group(r->group, r->version));
    }
    json_t *list = json_pack("{s:s, s:s, s:o}", "kind", "APIGroupList", "apiVersion", "v1", "groups", groups);
    /* APIGroup items in a list carry no kind/apiVersion */
    size_t i;
    json_t *g;
    json_array_foreach(groups, i, g) {
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
    const struct api_resource *r = find_group(req->params[0]);
    if (!r)
        return not_found(req);
    http_respond_json(req, 200, api_group(r->group, r->version));
}

void handle_api_group_resources(struct http_req *req)
{
    const struct api_resource *r = find_group(req->params[0]);
    if (!r || strcmp(r->version, req->params[1]) != 0)
        return not_found(req);
    http_respond_json(req, 200, resource_list(r->group, r->version));
}
