/* The tables' columns and rows. Counters the API omits when zero print "0"; other missing values
 * print "<none>", as kubectl does. */
#include "tools/jobctl/views.h"

#include <stdio.h>
#include <string.h>

#include "tools/jobctl/format.h"

#define MAX_COLS 12

/* Cell buffers of one row. */
struct row {
    char buf[MAX_COLS][CELL_LEN];
    const char *cells[MAX_COLS];
};

static const char *cell(struct row *r, int col, const json_t *root, const char *path)
{
    return r->cells[col] = json_cell(json_at(root, path), r->buf[col], CELL_LEN);
}

static const char *count(struct row *r, int col, const json_t *root, const char *path)
{
    return r->cells[col] = json_count(json_at(root, path), r->buf[col], CELL_LEN);
}

static const char *age(struct row *r, int col, const json_t *root, const char *path, int64_t now_ms)
{
    return r->cells[col] = age_since(json_at(root, path), now_ms, r->buf[col], CELL_LEN);
}

/* --- jobs ---------------------------------------------------------------------------------- */

static const char *const JOB_HEADERS[] = {"NAME",      "PHASE",  "MIN",     "PENDING", "RUNNING",
                                          "SUCCEEDED", "FAILED", "RETRIES", "AGE"};

static void job_row(struct table *t, const json_t *job, int64_t now_ms)
{
    struct row r;
    cell(&r, 0, job, "metadata.name");
    cell(&r, 1, job, "status.state.phase");
    cell(&r, 2, job, json_at(job, "status.minAvailable") ? "status.minAvailable" : "spec.minAvailable");
    count(&r, 3, job, "status.pending");
    count(&r, 4, job, "status.running");
    count(&r, 5, job, "status.succeeded");
    count(&r, 6, job, "status.failed");
    count(&r, 7, job, "status.retryCount");
    age(&r, 8, job, "metadata.creationTimestamp", now_ms);
    table_add(t, r.cells);
}

const struct view VIEW_JOBS = {JOB_HEADERS, 9, job_row};

/* --- pods ---------------------------------------------------------------------------------- */

static const char *const POD_HEADERS[] = {"POD", "NODE", "PHASE", "EXIT", "REASON", "AGE"};

/* Why the container is where it is: terminated, else waiting, else the pod's own reason. */
static const char *pod_reason_path(const json_t *pod)
{
    static const char *const paths[] = {"status.containerStatuses.0.state.terminated.reason",
                                        "status.containerStatuses.0.state.waiting.reason", "status.reason"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (json_string_length(json_at(pod, paths[i])))
            return paths[i];
    return "status.reason";
}

static void pod_row(struct table *t, const json_t *pod, int64_t now_ms)
{
    struct row r;
    cell(&r, 0, pod, "metadata.name");
    cell(&r, 1, pod, "spec.nodeName");
    cell(&r, 2, pod, "status.phase");
    cell(&r, 3, pod, "status.containerStatuses.0.state.terminated.exitCode");
    cell(&r, 4, pod, pod_reason_path(pod));
    age(&r, 5, pod, "metadata.creationTimestamp", now_ms);
    table_add(t, r.cells);
}

const struct view VIEW_PODS = {POD_HEADERS, 6, pod_row};

/* --- nodes --------------------------------------------------------------------------------- */

static const char *const NODE_HEADERS[] = {"NAME", "STATUS", "CPU", "MEMORY", "GPU", "AGE"};

static const char *str_or_empty(const json_t *v) { return json_is_string(v) ? json_string_value(v) : ""; }

/* "Ready", "NotReady" or "Unknown" from the Ready condition, plus kubectl's ",SchedulingDisabled". */
static const char *node_status(const json_t *node, char *buf, size_t len)
{
    const char *ready = "Unknown";
    size_t i;
    json_t *c;
    json_array_foreach(json_at(node, "status.conditions"), i, c)
    {
        if (strcmp(str_or_empty(json_object_get(c, "type")), "Ready") != 0)
            continue;
        const char *st = str_or_empty(json_object_get(c, "status"));
        ready = strcmp(st, "True") == 0 ? "Ready" : strcmp(st, "False") == 0 ? "NotReady" : "Unknown";
    }
    snprintf(buf, len, "%s%s", ready, json_is_true(json_at(node, "spec.unschedulable")) ? ",SchedulingDisabled" : "");
    return buf;
}

/* Allocatable (else capacity) of one resource; resource names contain dots, so no dotted path. */
static const char *node_resource(struct row *r, int col, const json_t *node, const char *res, bool counter)
{
    json_t *v = json_object_get(json_at(node, "status.allocatable"), res);
    if (!v)
        v = json_object_get(json_at(node, "status.capacity"), res);
    return r->cells[col] = counter ? json_count(v, r->buf[col], CELL_LEN) : json_cell(v, r->buf[col], CELL_LEN);
}

static void node_row(struct table *t, const json_t *node, int64_t now_ms)
{
    struct row r;
    cell(&r, 0, node, "metadata.name");
    r.cells[1] = node_status(node, r.buf[1], CELL_LEN);
    node_resource(&r, 2, node, "cpu", false);
    node_resource(&r, 3, node, "memory", false);
    node_resource(&r, 4, node, "nvidia.com/gpu", true);
    age(&r, 5, node, "metadata.creationTimestamp", now_ms);
    table_add(t, r.cells);
}

const struct view VIEW_NODES = {NODE_HEADERS, 6, node_row};

/* --- queues -------------------------------------------------------------------------------- */

static const char *const QUEUE_HEADERS[] = {"NAME", "STATE", "WEIGHT", "PENDING", "RUNNING", "INQUEUE", "AGE"};

static void queue_row(struct table *t, const json_t *q, int64_t now_ms)
{
    struct row r;
    cell(&r, 0, q, "metadata.name");
    cell(&r, 1, q, "status.state");
    cell(&r, 2, q, "spec.weight");
    count(&r, 3, q, "status.pending");
    count(&r, 4, q, "status.running");
    count(&r, 5, q, "status.inqueue");
    age(&r, 6, q, "metadata.creationTimestamp", now_ms);
    table_add(t, r.cells);
}

const struct view VIEW_QUEUES = {QUEUE_HEADERS, 7, queue_row};

/* --- history ------------------------------------------------------------------------------- */

static const char *const TRANSITION_HEADERS[] = {"SEQ", "TIME", "FROM", "TO", "REASON", "MESSAGE"};

static void transition_row(struct table *t, const json_t *tr, int64_t now_ms)
{
    static const char *const fields[] = {"seq", "time", "from", "to", "reason", "message"};
    struct row r;
    (void)now_ms;
    for (int i = 0; i < 6; i++)
        cell(&r, i, tr, fields[i]);
    table_add(t, r.cells);
}

const struct view VIEW_TRANSITIONS = {TRANSITION_HEADERS, 6, transition_row};

static const char *const ATTEMPT_HEADERS[] = {"POD",   "ATTEMPT", "VERSION", "NODE",   "PID",
                                              "START", "FINISH",  "EXIT",    "REASON", "MESSAGE"};

static void attempt_row(struct table *t, const json_t *at, int64_t now_ms)
{
    static const char *const fields[] = {"pod",       "attempt",    "jobVersion", "node",   "pid",
                                         "startTime", "finishTime", "exitCode",   "reason", "message"};
    struct row r;
    (void)now_ms;
    for (int i = 0; i < 10; i++)
        cell(&r, i, at, fields[i]);
    table_add(t, r.cells);
}

const struct view VIEW_ATTEMPTS = {ATTEMPT_HEADERS, 10, attempt_row};

static const char *const HISTORY_HEADERS[] = {"NAME", "PHASE", "ATTEMPTS", "STARTED", "FINISHED", "DELETED", "AGE"};

static void history_row(struct table *t, const json_t *h, int64_t now_ms)
{
    struct row r;
    cell(&r, 0, h, "metadata.name");
    cell(&r, 1, h, "phase");
    count(&r, 2, h, "attemptCount");
    cell(&r, 3, h, "firstStartTime");
    cell(&r, 4, h, "lastFinishTime");
    cell(&r, 5, h, "metadata.deletionTimestamp");
    age(&r, 6, h, "metadata.creationTimestamp", now_ms);
    table_add(t, r.cells);
}

const struct view VIEW_HISTORIES = {HISTORY_HEADERS, 7, history_row};

/* --- tokens -------------------------------------------------------------------------------- */

static const char *const TOKEN_HEADERS[] = {"ID", "USER", "ROLE", "NAMESPACES", "UID", "GID", "AGE"};

/* A list of strings as one cell: "team-a,team-b". */
static const char *joined(struct row *r, int col, const json_t *root, const char *path)
{
    size_t at = 0, i;
    json_t *item;
    r->buf[col][0] = '\0';
    json_array_foreach(json_at(root, path), i, item) if (json_is_string(item) && at < CELL_LEN)
        at += (size_t)snprintf(r->buf[col] + at, CELL_LEN - at, "%s%s", i ? "," : "", json_string_value(item));
    return r->cells[col] = r->buf[col];
}

static void token_row(struct table *t, const json_t *tok, int64_t now_ms)
{
    struct row r;
    cell(&r, 0, tok, "metadata.name");
    cell(&r, 1, tok, "spec.user");
    cell(&r, 2, tok, "spec.role");
    joined(&r, 3, tok, "spec.namespaces");
    cell(&r, 4, tok, "spec.uid");
    cell(&r, 5, tok, "spec.gid");
    age(&r, 6, tok, "metadata.creationTimestamp", now_ms);
    table_add(t, r.cells);
}

const struct view VIEW_TOKENS = {TOKEN_HEADERS, 7, token_row};

void view_table(struct table *t, const struct view *v, const json_t *items, int64_t now_ms)
{
    table_init(t, v->ncols, v->headers);
    if (json_is_object(items)) {
        v->row(t, items, now_ms);
        return;
    }
    size_t i;
    json_t *item;
    json_array_foreach(items, i, item) v->row(t, item, now_ms);
}
