/* The Table columns of Volcano's kinds, as their CRDs' additionalPrinterColumns give them (Job:
 * STATUS, minAvailable, RUNNINGS, AGE, QUEUE; PodGroup: STATUS, minMember, RUNNINGS, AGE, QUEUE;
 * Queue, which declares none: Kubernetes' default AGE), with Caldera's own at priority 1 (-o wide):
 * a Job's pod counts and why it is pending, a Queue's state and weight. Finds any kind's columns. */
#include <string.h>

#include "gateway/table/table.h"

static json_t *job_phase(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return table_cell_string(table_field(o, "status", "state", "phase"));
}

static json_t *job_min_available(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return table_cell_integer(table_field(o, "status", "minAvailable", NULL));
}

#define STATUS_COUNT(fn, key)                                           \
    static json_t *fn(const json_t *o, int64_t now_ms)                  \
    {                                                                   \
        (void)now_ms;                                                   \
        return table_cell_integer(table_field(o, "status", key, NULL)); \
    }
STATUS_COUNT(status_running, "running")
STATUS_COUNT(status_pending, "pending")
STATUS_COUNT(status_succeeded, "succeeded")
STATUS_COUNT(status_failed, "failed")

static json_t *spec_queue(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return table_cell_string(table_field(o, "spec", "queue", NULL));
}

/* Every task's replicas. */
static json_t *job_replicas(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    const json_t *tasks = table_field(o, "spec", "tasks", NULL);
    json_int_t n = 0;
    size_t i;
    const json_t *t;
    json_array_foreach(tasks, i, t) n += json_integer_value(json_object_get(t, "replicas"));
    return json_integer(n);
}

/* Why a Pending job waits (its state's message); empty once it left Pending. */
static json_t *job_pending_reason(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    const json_t *state = table_field(o, "status", "state", NULL);
    const char *phase = json_string_value(json_object_get(state, "phase"));
    const char *message = json_string_value(json_object_get(state, "message"));
    return json_string(phase && strcmp(phase, "Pending") == 0 && message ? message : "");
}

static const struct table_column job_columns[] = {
    {"Name", "string", "name", 0, TABLE_NAME_DESCRIPTION, table_cell_name},
    {"STATUS", "string", NULL, 0, "The job's phase (.status.state.phase).", job_phase},
    {"minAvailable", "integer", NULL, 0, "Pods the job needs running at once (.status.minAvailable).",
     job_min_available},
    {"RUNNINGS", "integer", NULL, 0, "Running pods (.status.running).", status_running},
    {"AGE", "date", NULL, 0, TABLE_AGE_DESCRIPTION, table_cell_age},
    {"QUEUE", "string", NULL, 1, "The queue the job is in (.spec.queue).", spec_queue},
    {"PENDING", "integer", NULL, 1, "Pending pods (.status.pending).", status_pending},
    {"SUCCEEDED", "integer", NULL, 1, "Succeeded pods (.status.succeeded).", status_succeeded},
    {"FAILED", "integer", NULL, 1, "Failed pods (.status.failed).", status_failed},
    {"REPLICAS", "integer", NULL, 1, "Pods the job asks for, every task's replicas (.spec.tasks[*].replicas).",
     job_replicas},
    {"PENDING REASON", "string", NULL, 1,
     "Why a Pending job waits, as the scheduler last said (.status.state.message while Pending).", job_pending_reason},
};

static json_t *podgroup_phase(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return table_cell_string(table_field(o, "status", "phase", NULL));
}

static json_t *podgroup_min_member(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return table_cell_integer(table_field(o, "spec", "minMember", NULL));
}

static const struct table_column podgroup_columns[] = {
    {"Name", "string", "name", 0, TABLE_NAME_DESCRIPTION, table_cell_name},
    {"STATUS", "string", NULL, 0, "The PodGroup's phase (.status.phase).", podgroup_phase},
    {"minMember", "integer", NULL, 0, "Pods the gang needs at once (.spec.minMember).", podgroup_min_member},
    {"RUNNINGS", "integer", NULL, 0, "Running pods (.status.running).", status_running},
    {"AGE", "date", NULL, 0, TABLE_AGE_DESCRIPTION, table_cell_age},
    {"QUEUE", "string", NULL, 1, "The queue of the PodGroup (.spec.queue).", spec_queue},
};

static json_t *queue_state(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return table_cell_string(table_field(o, "status", "state", NULL));
}

static json_t *queue_weight(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return table_cell_integer(table_field(o, "spec", "weight", NULL));
}

static const struct table_column queue_columns[] = {
    {"Name", "string", "name", 0, TABLE_NAME_DESCRIPTION, table_cell_name},
    {"Age", "date", NULL, 0, TABLE_AGE_DESCRIPTION, table_cell_age},
    {"State", "string", NULL, 1, "Open, Closing or Closed (.status.state).", queue_state},
    {"Weight", "integer", NULL, 1, "The queue's share of the cluster against its siblings (.spec.weight).",
     queue_weight},
};

#define KIND(group, kind, columns)                               \
    {                                                            \
        group, kind, columns, sizeof columns / sizeof columns[0] \
    }
static const struct table_kind volcano_kinds[] = {
    KIND("batch.volcano.sh", "Job", job_columns),
    KIND("scheduling.volcano.sh", "PodGroup", podgroup_columns),
    KIND("scheduling.volcano.sh", "Queue", queue_columns),
};

const struct table_kind *table_kind_find(const char *api_version, const char *kind)
{
    if (!api_version || !kind)
        return NULL;
    const char *slash = strchr(api_version, '/');
    size_t group_len = slash ? (size_t)(slash - api_version) : 0;
    if (!slash) {
        if (strcmp(api_version, "v1") != 0)
            return NULL;
        if (strcmp(kind, "Pod") == 0)
            return &table_kind_pod;
        if (strcmp(kind, "ConfigMap") == 0)
            return &table_kind_configmap;
        if (strcmp(kind, "Secret") == 0)
            return &table_kind_secret;
        return strcmp(kind, "Node") == 0 ? &table_kind_node : NULL;
    }
    for (size_t i = 0; i < sizeof volcano_kinds / sizeof volcano_kinds[0]; i++) {
        const struct table_kind *k = &volcano_kinds[i];
        if (strlen(k->group) == group_len && strncmp(api_version, k->group, group_len) == 0 &&
            strcmp(kind, k->kind) == 0)
            return k;
    }
    return NULL;
}
