/* A RayJob's rayClusterSpec as Volcano tasks for the ray plugin: the head group becomes the "head"
 * task, the worker group a task named by its groupName; rayStartParams become the plugin's ports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/fields.h"
#include "adapters/dialects/ray/rayjob.h"

#define CLUSTER_PATH "spec.rayClusterSpec"
#define HEAD_PATH CLUSTER_PATH ".headGroupSpec"
#define WORKERS_PATH CLUSTER_PATH ".workerGroupSpecs"
#define DEFAULT_CONTAINER "main" /* what the pod template calls an unnamed container */

static const char *const cluster_fields[] = {"headGroupSpec",           "workerGroupSpecs", "rayVersion",
                                             "enableInTreeAutoscaling", "suspend",          NULL};
static const char *const head_fields[] = {"rayStartParams", "template", "serviceType", "enableIngress", NULL};
static const char *const worker_fields[] = {"groupName",      "replicas", "minReplicas",   "maxReplicas", "numOfHosts",
                                            "rayStartParams", "template", "scaleStrategy", NULL};
static const char *const scale_fields[] = {"workersToDelete", NULL};
static const struct field_refusal cluster_refusals[] = {
    {"autoscalerOptions", "no Ray autoscaler runs: the worker task keeps its replicas"},
    {"headServiceAnnotations", "no Service is created: the head is reached as <job>-head-0.<job> (svc plugin)"},
    {"gcsFaultToleranceOptions", "GCS fault tolerance (an external Redis) is not supported"},
    {NULL, NULL}};
static const struct field_refusal group_refusals[] = {
    {"headService", "no Service is created: the head is reached as <job>-head-0.<job> (svc plugin)"},
    {"suspend", "a worker group runs while the job does"},
    {"idleTimeoutSeconds", "no Ray autoscaler runs: the worker task keeps its replicas"},
    {NULL, NULL}};

/* The first container's name, as the plugin matches it (--headContainer, --workerContainer). */
static const char *container_name(const json_t *template)
{
    const json_t *c0 = json_array_get(json_object_get(json_object_get(template, "spec"), "containers"), 0);
    const char *name = json_string_value(json_object_get(c0, "name"));
    return name && *name ? name : DEFAULT_CONTAINER;
}

static bool port_param(struct fields *f, json_t *params, const char *key, const char *path, int32_t *port)
{
    const char *text = json_string_value(json_object_get(params, key));
    char *end = NULL;
    long v = text ? strtol(text, &end, 10) : 0;
    if (!text || end == text || *end || v < 1 || v > 65535) {
        field_invalid(f, params, key, path, "must be a port number between 1 and 65535");
        return false;
    }
    *port = (int32_t)v;
    return true;
}

/* KubeRay passes rayStartParams to `ray start` as --key=value. The Volcano ray plugin writes the
 * command itself: the head takes its three ports from here, and the values the plugin already uses
 * (dashboard-host 0.0.0.0, block true) are accepted; anything else is refused by name. */
static void start_params(struct fields *f, json_t *group, const char *group_path, bool head, struct rayjob_cluster *out)
{
    json_t *params;
    char path[FIELD_PATH_MAX], sub[FIELD_PATH_MAX];
    field_path(path, group_path, "rayStartParams");
    if (!field_string_map(f, group, "rayStartParams", path, &params) || !params)
        return;
    const char *key;
    json_t *v;
    json_object_foreach(params, key, v)
    {
        const char *value = json_string_value(v);
        snprintf(sub, sizeof sub, "%s[%s]", path, key);
        if (head && strcmp(key, "port") == 0)
            port_param(f, params, key, sub, &out->gcs_port);
        else if (head && strcmp(key, "dashboard-port") == 0)
            port_param(f, params, key, sub, &out->dashboard_port);
        else if (head && strcmp(key, "ray-client-server-port") == 0)
            port_param(f, params, key, sub, &out->client_port);
        else if (head && strcmp(key, "dashboard-host") == 0) {
            if (strcmp(value, "0.0.0.0") != 0)
                field_unsupported(f, params, key, sub, "supported values: \"0.0.0.0\" (the ray plugin's)");
        } else if (strcmp(key, "block") == 0) {
            if (strcmp(value, "true") != 0)
                field_unsupported(f, params, key, sub, "supported values: \"true\" (the ray plugin's)");
        } else {
            field_error(f, params, key, sub, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": the Volcano ray plugin writes the `ray start` command; it takes "
                        "%s",
                        key,
                        head ? "port, dashboard-port and ray-client-server-port (dashboard-host \"0.0.0.0\" and block "
                               "\"true\" are its own)"
                             : "no parameter for a worker (the address is the head's; block \"true\" is its own)");
        }
    }
}

/* The group's template, copied when the RayJob's deadline must be written into it. */
static json_t *group_template(struct fields *f, json_t *group, const char *group_path, int64_t deadline)
{
    json_t *template;
    char path[FIELD_PATH_MAX];
    field_path(path, group_path, "template");
    if (!field_object(f, group, "template", path, true, &template) || !template)
        return NULL;
    if (deadline <= 0)
        return json_incref(template);
    json_t *copy = dialect_template_cow(template);
    dialect_template_deadline(copy, deadline);
    return copy;
}

static void head_group(struct fields *f, json_t *cluster, int64_t deadline, json_t *tasks, json_t *plugin_args,
                       struct rayjob_cluster *out, struct dialect_translation *t)
{
    json_t *head;
    if (!field_object(f, cluster, "headGroupSpec", HEAD_PATH, true, &head) || !head)
        return;
    dialect_refuse_fields(f, head, HEAD_PATH, head_fields, group_refusals);
    const char *service_type = NULL;
    bool ingress = false;
    if (field_string(f, head, "serviceType", HEAD_PATH ".serviceType", false, &service_type) && service_type &&
        strcmp(service_type, "ClusterIP") != 0)
        field_unsupported(f, head, "serviceType", HEAD_PATH ".serviceType",
                          "supported values: \"ClusterIP\" (the head is reached as <job>-head-0.<job> through the "
                          "svc plugin)");
    if (field_bool(f, head, "enableIngress", HEAD_PATH ".enableIngress", &ingress) && ingress)
        field_unsupported(f, head, "enableIngress", HEAD_PATH ".enableIngress", "Caldera creates no Ingress");
    start_params(f, head, HEAD_PATH, true, out);
    json_t *template = group_template(f, head, HEAD_PATH, deadline);
    if (!template)
        return;
    out->head_image = json_string_value(
        json_object_get(json_array_get(json_object_get(json_object_get(template, "spec"), "containers"), 0), "image"));
    char arg[FIELD_PATH_MAX + 32];
    snprintf(arg, sizeof arg, "--headContainer=%s", container_name(template));
    json_array_append_new(plugin_args, json_string("--head=" RAY_HEAD_TASK));
    json_array_append_new(plugin_args, json_string(arg));
    /* The cluster is the job: losing the head loses it, and a retry is a new cluster (backoffLimit). */
    json_array_append_new(tasks, json_pack("{s:s, s:i, s:i, s:o, s:[{s:[s,s], s:s}]}", "name", RAY_HEAD_TASK,
                                           "replicas", 1, "minAvailable", 1, "template", template, "policies", "events",
                                           "PodFailed", "PodEvicted", "action", "RestartJob"));
    char vpath[32];
    snprintf(vpath, sizeof vpath, "spec.tasks[%zu]", json_array_size(tasks) - 1);
    dialect_map_path(t, vpath, HEAD_PATH);
}

/* replicas, minReplicas, maxReplicas and numOfHosts as KubeRay reads them: replicas kept between the
 * bounds, every replica numOfHosts pods. */
static bool worker_counts(struct fields *f, json_t *group, const char *path, int64_t *replicas, int64_t *min)
{
    int64_t max = INT32_MAX, hosts = 1;
    char p[FIELD_PATH_MAX];
    *replicas = *min = 0;
    bool ok = true;
    field_path(p, path, "replicas");
    ok = field_int(f, group, "replicas", p, false, 0, INT32_MAX, replicas) && ok;
    field_path(p, path, "minReplicas");
    ok = field_int(f, group, "minReplicas", p, false, 0, INT32_MAX, min) && ok;
    field_path(p, path, "maxReplicas");
    ok = field_int(f, group, "maxReplicas", p, false, 0, INT32_MAX, &max) && ok;
    field_path(p, path, "numOfHosts");
    ok = field_int(f, group, "numOfHosts", p, false, 1, INT32_MAX, &hosts) && ok;
    if (ok && *min > max) {
        char detail[96];
        snprintf(detail, sizeof detail, "must be less than or equal to maxReplicas (%lld)", (long long)max);
        field_path(p, path, "minReplicas");
        field_invalid(f, group, "minReplicas", p, detail);
        ok = false;
    }
    if (*replicas < *min)
        *replicas = *min;
    if (*replicas > max)
        *replicas = max;
    *replicas *= hosts;
    *min *= hosts;
    return ok;
}

static void scale_strategy(struct fields *f, json_t *group, const char *path)
{
    json_t *strategy, *to_delete;
    char p[FIELD_PATH_MAX], q[FIELD_PATH_MAX];
    field_path(p, path, "scaleStrategy");
    if (!field_object(f, group, "scaleStrategy", p, false, &strategy) || !strategy)
        return;
    dialect_refuse_fields(f, strategy, p, scale_fields, NULL);
    field_path(q, p, "workersToDelete");
    if (field_array(f, strategy, "workersToDelete", q, false, &to_delete) && json_array_size(to_delete) > 0)
        field_unsupported(f, strategy, "workersToDelete", q, "the worker task's pods are not deleted one by one");
}

static void worker_group(struct fields *f, json_t *groups, int64_t deadline, json_t *tasks, json_t *plugin_args,
                         struct rayjob_cluster *out, struct dialect_translation *t)
{
    char path[FIELD_PATH_MAX], p[FIELD_PATH_MAX];
    json_t *group = field_each_object(f, groups, 0, WORKERS_PATH, path, "must be an object");
    if (!group)
        return;
    dialect_refuse_fields(f, group, path, worker_fields, group_refusals);
    const char *name = NULL;
    field_path(p, path, "groupName");
    if (field_string(f, group, "groupName", p, true, &name) && name) {
        if (!dns1123_label(name))
            field_invalid(f, group, "groupName", p,
                          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                          "and must start and end with an alphanumeric character (it names the worker task)");
        else if (strcmp(name, RAY_HEAD_TASK) == 0 || strcmp(name, RAY_SUBMITTER_TASK) == 0)
            field_invalid(f, group, "groupName", p, "\"head\" and \"submitter\" name the RayJob's other tasks");
    }
    int64_t replicas, min;
    bool counts_ok = worker_counts(f, group, path, &replicas, &min);
    start_params(f, group, path, false, out);
    scale_strategy(f, group, path);
    json_t *template = group_template(f, group, path, deadline);
    if (!template || !name || !counts_ok) {
        json_decref(template);
        return;
    }
    char arg[FIELD_PATH_MAX + 32];
    snprintf(arg, sizeof arg, "--worker=%s", name);
    json_array_append_new(plugin_args, json_string(arg));
    snprintf(arg, sizeof arg, "--workerContainer=%s", container_name(template));
    json_array_append_new(plugin_args, json_string(arg));
    json_array_append_new(tasks, json_pack("{s:s, s:I, s:I, s:o}", "name", name, "replicas", (json_int_t)replicas,
                                           "minAvailable", (json_int_t)min, "template", template));
    out->min_members += (int32_t)min;
    char vpath[32], vsub[48], ssub[FIELD_PATH_MAX];
    snprintf(vpath, sizeof vpath, "spec.tasks[%zu]", json_array_size(tasks) - 1);
    dialect_map_path(t, vpath, path);
    snprintf(vsub, sizeof vsub, "%s.name", vpath);
    field_path(ssub, path, "groupName");
    dialect_map_path(t, vsub, ssub);
    snprintf(vsub, sizeof vsub, "%s.minAvailable", vpath);
    field_path(ssub, path, "minReplicas");
    dialect_map_path(t, vsub, ssub);
}

static void cluster_switches(struct fields *f, json_t *cluster)
{
    bool autoscaling = false, suspend = false;
    const char *version = NULL;
    field_string(f, cluster, "rayVersion", CLUSTER_PATH ".rayVersion", false, &version);
    if (field_bool(f, cluster, "enableInTreeAutoscaling", CLUSTER_PATH ".enableInTreeAutoscaling", &autoscaling) &&
        autoscaling)
        field_unsupported(f, cluster, "enableInTreeAutoscaling", CLUSTER_PATH ".enableInTreeAutoscaling",
                          "no Ray autoscaler runs: the worker task keeps its replicas");
    if (field_bool(f, cluster, "suspend", CLUSTER_PATH ".suspend", &suspend) && suspend)
        field_unsupported(f, cluster, "suspend", CLUSTER_PATH ".suspend",
                          "the RayJob's cluster runs while the job does");
}

bool rayjob_cluster(struct fields *f, json_t *spec, int64_t deadline, json_t *tasks, json_t *plugin_args,
                    struct rayjob_cluster *out, struct dialect_translation *t)
{
    json_t *cluster, *groups;
    int before = f->st->ncauses;
    *out = (struct rayjob_cluster){RAY_GCS_PORT, RAY_DASHBOARD_PORT, RAY_CLIENT_PORT, NULL, 1};
    if (!field_object(f, spec, "rayClusterSpec", CLUSTER_PATH, true, &cluster) || !cluster)
        return false;
    dialect_refuse_fields(f, cluster, CLUSTER_PATH, cluster_fields, cluster_refusals);
    cluster_switches(f, cluster);
    head_group(f, cluster, deadline, tasks, plugin_args, out, t);
    if (field_array(f, cluster, "workerGroupSpecs", WORKERS_PATH, false, &groups) && json_array_size(groups) > 1) {
        char path[FIELD_PATH_MAX];
        field_path_index(path, WORKERS_PATH, 1);
        field_error_at_index(f, groups, 1, path, "FieldValueTooMany",
                             "Too many: %zu: must have at most 1 items: the Volcano ray plugin starts one worker "
                             "task (--worker); give one group the replicas, or run a RayJob per group",
                             json_array_size(groups));
    } else if (json_array_size(groups) == 1) {
        worker_group(f, groups, deadline, tasks, plugin_args, out, t);
    }
    char port[32];
    snprintf(port, sizeof port, "--port=%d", out->gcs_port);
    json_array_append_new(plugin_args, json_string(port));
    snprintf(port, sizeof port, "--dashboardPort=%d", out->dashboard_port);
    json_array_append_new(plugin_args, json_string(port));
    snprintf(port, sizeof port, "--clientPort=%d", out->client_port);
    json_array_append_new(plugin_args, json_string(port));
    return f->st->ncauses == before && f->st->code == 0;
}
