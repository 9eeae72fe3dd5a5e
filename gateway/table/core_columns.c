/* kubectl's columns for Pods (NAME READY STATUS RESTARTS AGE; wide: IP NODE NOMINATED NODE
 * READINESS GATES) and Nodes (NAME STATUS ROLES AGE VERSION; wide: INTERNAL-IP EXTERNAL-IP OS-IMAGE
 * KERNEL-VERSION CONTAINER-RUNTIME), with their cells computed the way kubectl's printers do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sbuf.h"
#include "common/strv.h"
#include "gateway/table/table.h"

static json_t *none_if_empty(const json_t *v)
{
    const char *s = json_string_value(v);
    return json_string(s && *s ? s : "<none>");
}

/* "ready/containers". */
static json_t *pod_ready(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    const json_t *statuses = table_field(o, "status", "containerStatuses", NULL), *cs;
    size_t i, ready = 0;
    json_array_foreach(statuses, i, cs) ready += json_is_true(json_object_get(cs, "ready"));
    size_t total = json_array_size(table_field(o, "spec", "containers", NULL));
    char text[48];
    snprintf(text, sizeof text, "%zu/%zu", ready, total ? total : json_array_size(statuses));
    return json_string(text);
}

/* kubectl's STATUS: the phase, or the pod's reason, or the last container's waiting or terminated
 * reason (its exit code or signal when it gives none); a Completed container beside a running one
 * reads Running; a pod being deleted reads Terminating. */
static json_t *pod_status(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    const json_t *status = json_object_get(o, "status");
    const char *reason = json_string_value(json_object_get(status, "phase"));
    const char *pod_reason = json_string_value(json_object_get(status, "reason"));
    if (pod_reason && *pod_reason)
        reason = pod_reason;
    char buf[64];
    bool running = false;
    const json_t *statuses = json_object_get(status, "containerStatuses");
    for (size_t i = json_array_size(statuses); i-- > 0;) {
        const json_t *cs = json_array_get(statuses, i), *state = json_object_get(cs, "state");
        const json_t *waiting = json_object_get(state, "waiting"), *term = json_object_get(state, "terminated");
        const char *why = json_string_value(json_object_get(waiting ? waiting : term, "reason"));
        if ((waiting || term) && why && *why) {
            reason = why;
        } else if (term) {
            json_int_t signal = json_integer_value(json_object_get(term, "signal"));
            snprintf(buf, sizeof buf, signal ? "Signal:%lld" : "ExitCode:%lld",
                     signal ? (long long)signal : (long long)json_integer_value(json_object_get(term, "exitCode")));
            reason = buf;
        } else if (json_is_true(json_object_get(cs, "ready")) && json_object_get(state, "running")) {
            running = true;
        }
    }
    if (reason && strcmp(reason, "Completed") == 0 && running)
        reason = "Running";
    if (table_field(o, "metadata", "deletionTimestamp", NULL))
        reason = "Terminating";
    return json_string(reason ? reason : "Unknown");
}

static json_t *pod_restarts(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    const json_t *statuses = table_field(o, "status", "containerStatuses", NULL), *cs;
    size_t i;
    json_int_t n = 0;
    json_array_foreach(statuses, i, cs) n += json_integer_value(json_object_get(cs, "restartCount"));
    return json_integer(n);
}

static json_t *pod_ip(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return none_if_empty(table_field(o, "status", "podIP", NULL));
}

static json_t *pod_node(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return none_if_empty(table_field(o, "spec", "nodeName", NULL));
}

static json_t *pod_nominated(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return none_if_empty(table_field(o, "status", "nominatedNodeName", NULL));
}

static json_t *pod_readiness_gates(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    size_t gates = json_array_size(table_field(o, "spec", "readinessGates", NULL));
    if (!gates)
        return json_string("<none>");
    char text[48];
    snprintf(text, sizeof text, "0/%zu", gates); /* no gate is ever set true here */
    return json_string(text);
}

static const struct table_column pod_columns[] = {
    {"Name", "string", "name", 0, TABLE_NAME_DESCRIPTION, table_cell_name},
    {"Ready", "string", NULL, 0, "The aggregate readiness state of this pod for accepting traffic.", pod_ready},
    {"Status", "string", NULL, 0, "The aggregate status of the containers in this pod.", pod_status},
    {"Restarts", "integer", NULL, 0, "The number of times the containers in this pod have been restarted.",
     pod_restarts},
    {"Age", "string", NULL, 0, TABLE_AGE_DESCRIPTION, table_cell_age},
    {"IP", "string", NULL, 1, "IP address allocated to the pod. Routable at least within the cluster.", pod_ip},
    {"Node", "string", NULL, 1, "NodeName is a request to schedule this pod onto a specific node.", pod_node},
    {"Nominated Node", "string", NULL, 1, "nominatedNodeName is set when this pod preempts other pods on the node.",
     pod_nominated},
    {"Readiness Gates", "string", NULL, 1, "If specified, all readiness gates will be evaluated for pod readiness.",
     pod_readiness_gates},
};

/* Ready, NotReady or Unknown from the Ready condition, then SchedulingDisabled when cordoned. */
static json_t *node_status(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    const char *ready = "Unknown";
    const json_t *conds = table_field(o, "status", "conditions", NULL), *c;
    size_t i;
    json_array_foreach(conds, i, c)
    {
        const char *type = json_string_value(json_object_get(c, "type"));
        const char *st = json_string_value(json_object_get(c, "status"));
        if (type && strcmp(type, "Ready") == 0 && st)
            ready = strcmp(st, "True") == 0 ? "Ready" : strcmp(st, "False") == 0 ? "NotReady" : "Unknown";
    }
    char text[64];
    snprintf(text, sizeof text, "%s%s", ready,
             json_is_true(table_field(o, "spec", "unschedulable", NULL)) ? ",SchedulingDisabled" : "");
    return json_string(text);
}

static int compare_strings(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* node-role.kubernetes.io/<role> labels, and kubernetes.io/role, sorted and joined by commas. */
static json_t *node_roles(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    static const char prefix[] = "node-role.kubernetes.io/";
    char **roles = NULL;
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)table_field(o, "metadata", "labels", NULL), key, v)
    {
        const char *role = strncmp(key, prefix, sizeof prefix - 1) == 0 ? key + sizeof prefix - 1
                           : strcmp(key, "kubernetes.io/role") == 0     ? json_string_value(v)
                                                                        : NULL;
        if (role && *role)
            strv_push(&roles, role);
    }
    size_t n = strv_len(roles);
    if (n > 1)
        qsort(roles, n, sizeof *roles, compare_strings);
    struct sbuf text = {0};
    for (size_t i = 0; i < n; i++)
        sbuf_printf(&text, "%s%s", i ? "," : "", roles[i]);
    json_t *cell = json_string(n ? sbuf_str(&text) : "<none>");
    sbuf_free(&text);
    strv_free(roles);
    return cell;
}

static json_t *node_address(const json_t *o, const char *type)
{
    const json_t *addrs = table_field(o, "status", "addresses", NULL), *a;
    size_t i;
    json_array_foreach(addrs, i, a)
    {
        const char *t = json_string_value(json_object_get(a, "type"));
        if (t && strcmp(t, type) == 0)
            return none_if_empty(json_object_get(a, "address"));
    }
    return json_string("<none>");
}

static json_t *node_internal_ip(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return node_address(o, "InternalIP");
}

static json_t *node_external_ip(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return node_address(o, "ExternalIP");
}

#define NODE_INFO(fn, key)                                                            \
    static json_t *fn(const json_t *o, int64_t now_ms)                                \
    {                                                                                 \
        (void)now_ms;                                                                 \
        const char *s = json_string_value(table_field(o, "status", "nodeInfo", key)); \
        return json_string(s && *s ? s : "<unknown>");                                \
    }
NODE_INFO(node_version, "kubeletVersion")
NODE_INFO(node_os_image, "osImage")
NODE_INFO(node_kernel, "kernelVersion")
NODE_INFO(node_runtime, "containerRuntimeVersion")

static const struct table_column node_columns[] = {
    {"Name", "string", "name", 0, TABLE_NAME_DESCRIPTION, table_cell_name},
    {"Status", "string", NULL, 0, "The status of the node", node_status},
    {"Roles", "string", NULL, 0, "The roles of the node", node_roles},
    {"Age", "string", NULL, 0, TABLE_AGE_DESCRIPTION, table_cell_age},
    {"Version", "string", NULL, 0, "Kubelet Version reported by the node.", node_version},
    {"Internal-IP", "string", NULL, 1, "List of internal IPs attached to the node.", node_internal_ip},
    {"External-IP", "string", NULL, 1, "List of external IPs attached to the node.", node_external_ip},
    {"OS-Image", "string", NULL, 1, "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7).",
     node_os_image},
    {"Kernel-Version", "string", NULL, 1, "Kernel Version reported by the node from 'uname -r'.", node_kernel},
    {"Container-Runtime", "string", NULL, 1, "Container runtime version reported by the node.", node_runtime},
};

const struct table_kind table_kind_pod = {"", "Pod", pod_columns, sizeof pod_columns / sizeof pod_columns[0]};
const struct table_kind table_kind_node = {"", "Node", node_columns, sizeof node_columns / sizeof node_columns[0]};
