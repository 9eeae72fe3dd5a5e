/* The tables' columns and rows. Counters the API omits when zero print "0"; other missing values
 * print "<none>", as kubectl does. */
#include "tools/jobctl/views.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tools/jobctl/format.h"

#define MAX_COLS 12

/* Cell buffers of one row. */
struct view_row {
    char buf[MAX_COLS][CELL_LEN];
    const char *cells[MAX_COLS];
};

static const char *cell(struct view_row *r, int col, const json_t *root, const char *path)
{
    return r->cells[col] = json_cell(json_at(root, path), r->buf[col], CELL_LEN);
}

static const char *count(struct view_row *r, int col, const json_t *root, const char *path)
{
    return r->cells[col] = json_count(json_at(root, path), r->buf[col], CELL_LEN);
}

static const char *age(struct view_row *r, int col, const json_t *root, const char *path, int64_t now_ms)
{
    return r->cells[col] = age_since(json_at(root, path), now_ms, r->buf[col], CELL_LEN);
}

/* --- jobs ---------------------------------------------------------------------------------- */

const char *job_reason(const json_t *job)
{
    const char *phase = json_string_value(json_at(job, "status.state.phase"));
    const char *message = json_string_value(json_at(job, "status.state.message"));
    const char *reason = json_string_value(json_at(job, "status.state.reason"));
    static const char *const told[] = {"Pending", "Failed", "Aborted", "Aborting", "Terminated", "Terminating"};
    bool tell = false;
    for (size_t i = 0; phase && i < sizeof told / sizeof told[0]; i++)
        tell = tell || strcmp(phase, told[i]) == 0;
    if (!tell)
        return "";
    return message && *message ? message : reason ? reason : "";
}

/* The reason cut to max bytes (at a UTF-8 boundary) with "..." when longer. */
static const char *short_reason(struct view_row *r, int col, const char *text, size_t max)
{
    size_t n = strlen(text);
    if (n <= max)
        snprintf(r->buf[col], CELL_LEN, "%s", text);
    else {
        while (max > 0 && ((unsigned char)text[max] & 0xC0) == 0x80)
            max--;
        snprintf(r->buf[col], CELL_LEN, "%.*s...", (int)max, text);
    }
    return r->cells[col] = r->buf[col];
}

static const char *const JOB_HEADERS[] = {"NAME",      "PHASE",  "MIN",     "PENDING", "RUNNING",
                                          "SUCCEEDED", "FAILED", "RETRIES", "AGE",     "REASON"};

static void job_counts(struct view_row *r, const json_t *job)
{
    cell(r, 0, job, "metadata.name");
    cell(r, 1, job, "status.state.phase");
    cell(r, 2, job, json_at(job, "status.minAvailable") ? "status.minAvailable" : "spec.minAvailable");
    count(r, 3, job, "status.pending");
    count(r, 4, job, "status.running");
    count(r, 5, job, "status.succeeded");
    count(r, 6, job, "status.failed");
    count(r, 7, job, "status.retryCount");
}

static void job_row(struct view_row *r, const json_t *job, int64_t now_ms)
{
    job_counts(r, job);
    age(r, 8, job, "metadata.creationTimestamp", now_ms);
    short_reason(r, 9, job_reason(job), JOB_REASON_SHORT);
}

static const char *const JOB_WIDE_HEADERS[] = {"NAME",   "PHASE",   "MIN",   "PENDING", "RUNNING", "SUCCEEDED",
                                               "FAILED", "RETRIES", "QUEUE", "VERSION", "AGE",     "REASON"};

static void job_wide_row(struct view_row *r, const json_t *job, int64_t now_ms)
{
    job_counts(r, job);
    cell(r, 8, job, "spec.queue");
    count(r, 9, job, "status.version");
    age(r, 10, job, "metadata.creationTimestamp", now_ms);
    short_reason(r, 11, job_reason(job), CELL_LEN - 4);
}

const struct view VIEW_JOBS_WIDE = {JOB_WIDE_HEADERS, 12, job_wide_row, "job.batch.volcano.sh", NULL};
const struct view VIEW_JOBS = {JOB_HEADERS, 10, job_row, "job.batch.volcano.sh", &VIEW_JOBS_WIDE};

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

static const char *const POD_WIDE_HEADERS[] = {"POD",      "NODE", "PHASE",   "EXIT", "REASON",
                                               "RESTARTS", "IP",   "STARTED", "AGE",  "MESSAGE"};

/* The container's message: terminated, else waiting, else the pod's. */
static const char *pod_message_path(const json_t *pod)
{
    static const char *const paths[] = {"status.containerStatuses.0.state.terminated.message",
                                        "status.containerStatuses.0.state.waiting.message", "status.message"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (json_string_length(json_at(pod, paths[i])))
            return paths[i];
    return "status.message";
}

static void pod_wide_row(struct view_row *r, const json_t *pod, int64_t now_ms)
{
    cell(r, 0, pod, "metadata.name");
    cell(r, 1, pod, "spec.nodeName");
    cell(r, 2, pod, "status.phase");
    cell(r, 3, pod, "status.containerStatuses.0.state.terminated.exitCode");
    cell(r, 4, pod, pod_reason_path(pod));
    count(r, 5, pod, "status.containerStatuses.0.restartCount");
    cell(r, 6, pod, "status.podIP");
    cell(r, 7, pod, "status.startTime");
    age(r, 8, pod, "metadata.creationTimestamp", now_ms);
    cell(r, 9, pod, pod_message_path(pod));
}

const struct view VIEW_PODS_WIDE = {POD_WIDE_HEADERS, 10, pod_wide_row, "pod", NULL};
const struct view VIEW_PODS = {
    POD_HEADERS, 6, pod_wide_row, "pod", &VIEW_PODS_WIDE, (const unsigned char[]){0, 1, 2, 3, 4, 8}};

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
static const char *node_resource(struct view_row *r, int col, const json_t *node, const char *res, bool counter)
{
    json_t *v = json_object_get(json_at(node, "status.allocatable"), res);
    if (!v)
        v = json_object_get(json_at(node, "status.capacity"), res);
    return r->cells[col] = counter ? json_count(v, r->buf[col], CELL_LEN) : json_cell(v, r->buf[col], CELL_LEN);
}

static const char *const NODE_WIDE_HEADERS[] = {"NAME", "STATUS",      "CPU",     "MEMORY", "GPU",
                                                "PODS", "INTERNAL-IP", "RUNTIME", "AGE"};

/* The node's address of that type (InternalIP). */
static const char *node_address(struct view_row *r, int col, const json_t *node, const char *type)
{
    size_t i;
    json_t *addr;
    r->cells[col] = "";
    json_array_foreach(json_at(node, "status.addresses"), i, addr)
    {
        if (strcmp(str_or_empty(json_object_get(addr, "type")), type) == 0) {
            snprintf(r->buf[col], CELL_LEN, "%s", str_or_empty(json_object_get(addr, "address")));
            r->cells[col] = r->buf[col];
        }
    }
    return r->cells[col];
}

static void node_wide_row(struct view_row *r, const json_t *node, int64_t now_ms)
{
    cell(r, 0, node, "metadata.name");
    r->cells[1] = node_status(node, r->buf[1], CELL_LEN);
    node_resource(r, 2, node, "cpu", false);
    node_resource(r, 3, node, "memory", false);
    node_resource(r, 4, node, "nvidia.com/gpu", true);
    node_resource(r, 5, node, "pods", false);
    node_address(r, 6, node, "InternalIP");
    cell(r, 7, node, "status.nodeInfo.containerRuntimeVersion");
    age(r, 8, node, "metadata.creationTimestamp", now_ms);
}

const struct view VIEW_NODES_WIDE = {NODE_WIDE_HEADERS, 9, node_wide_row, "node", NULL};
const struct view VIEW_NODES = {
    NODE_HEADERS, 6, node_wide_row, "node", &VIEW_NODES_WIDE, (const unsigned char[]){0, 1, 2, 3, 4, 8}};

/* --- queues -------------------------------------------------------------------------------- */

static const char *const QUEUE_HEADERS[] = {"NAME", "STATE", "WEIGHT", "PENDING", "RUNNING", "INQUEUE", "AGE"};

static const char *const QUEUE_WIDE_HEADERS[] = {"NAME",    "STATE",     "WEIGHT",      "PENDING",    "RUNNING",
                                                 "INQUEUE", "COMPLETED", "RECLAIMABLE", "CAPABILITY", "AGE"};

/* A resource list as one cell: "cpu=4,memory=8Gi" ("" when empty). */
static const char *resources(struct view_row *r, int col, const json_t *root, const char *path)
{
    size_t at = 0;
    const char *key;
    json_t *v;
    r->buf[col][0] = '\0';
    json_object_foreach(json_at(root, path), key, v)
    {
        char one[CELL_LEN];
        if (at < CELL_LEN)
            at += (size_t)snprintf(r->buf[col] + at, CELL_LEN - at, "%s%s=%s", at ? "," : "", key,
                                   json_cell(v, one, sizeof one));
    }
    return r->cells[col] = r->buf[col];
}

static void queue_wide_row(struct view_row *r, const json_t *q, int64_t now_ms)
{
    cell(r, 0, q, "metadata.name");
    cell(r, 1, q, "status.state");
    cell(r, 2, q, "spec.weight");
    count(r, 3, q, "status.pending");
    count(r, 4, q, "status.running");
    count(r, 5, q, "status.inqueue");
    count(r, 6, q, "status.completed");
    cell(r, 7, q, "spec.reclaimable");
    resources(r, 8, q, "spec.capability");
    age(r, 9, q, "metadata.creationTimestamp", now_ms);
}

const struct view VIEW_QUEUES_WIDE = {QUEUE_WIDE_HEADERS, 10, queue_wide_row, "queue.scheduling.volcano.sh", NULL};
const struct view VIEW_QUEUES = {QUEUE_HEADERS,     7,
                                 queue_wide_row,    "queue.scheduling.volcano.sh",
                                 &VIEW_QUEUES_WIDE, (const unsigned char[]){0, 1, 2, 3, 4, 5, 9}};

/* --- history ------------------------------------------------------------------------------- */

static const char *const TRANSITION_HEADERS[] = {"SEQ", "TIME", "FROM", "TO", "REASON", "MESSAGE"};

static void transition_row(struct view_row *r, const json_t *tr, int64_t now_ms)
{
    static const char *const fields[] = {"seq", "time", "from", "to", "reason", "message"};
    (void)now_ms;
    for (int i = 0; i < 6; i++)
        cell(r, i, tr, fields[i]);
}

const struct view VIEW_TRANSITIONS = {TRANSITION_HEADERS, 6, transition_row, NULL, NULL};

static const char *const ATTEMPT_HEADERS[] = {"POD",   "ATTEMPT", "VERSION", "NODE",   "PID",
                                              "START", "FINISH",  "EXIT",    "REASON", "MESSAGE"};

static void attempt_row(struct view_row *r, const json_t *at, int64_t now_ms)
{
    static const char *const fields[] = {"pod",       "attempt",    "jobVersion", "node",   "pid",
                                         "startTime", "finishTime", "exitCode",   "reason", "message"};
    (void)now_ms;
    for (int i = 0; i < 10; i++)
        cell(r, i, at, fields[i]);
}

const struct view VIEW_ATTEMPTS = {ATTEMPT_HEADERS, 10, attempt_row, NULL, NULL};

static const char *const HISTORY_HEADERS[] = {"NAME", "PHASE", "ATTEMPTS", "STARTED", "FINISHED", "DELETED", "AGE"};

static const char *const HISTORY_WIDE_HEADERS[] = {"NAME",     "PHASE",   "ATTEMPTS", "STARTED",
                                                   "FINISHED", "DELETED", "UID",      "AGE"};

static void history_wide_row(struct view_row *r, const json_t *h, int64_t now_ms)
{
    cell(r, 0, h, "metadata.name");
    cell(r, 1, h, "phase");
    count(r, 2, h, "attemptCount");
    cell(r, 3, h, "firstStartTime");
    cell(r, 4, h, "lastFinishTime");
    cell(r, 5, h, "metadata.deletionTimestamp");
    cell(r, 6, h, "metadata.uid");
    age(r, 7, h, "metadata.creationTimestamp", now_ms);
}

const struct view VIEW_HISTORIES_WIDE = {HISTORY_WIDE_HEADERS, 8, history_wide_row, "jobhistory.caldera.io", NULL};
const struct view VIEW_HISTORIES = {HISTORY_HEADERS,      7,
                                    history_wide_row,     "jobhistory.caldera.io",
                                    &VIEW_HISTORIES_WIDE, (const unsigned char[]){0, 1, 2, 3, 4, 5, 7}};

/* --- tokens -------------------------------------------------------------------------------- */

static const char *const TOKEN_HEADERS[] = {"ID", "USER", "ROLE", "NAMESPACES", "UID", "GID", "AGE"};

/* A list of strings as one cell: "team-a,team-b". */
static const char *joined(struct view_row *r, int col, const json_t *root, const char *path)
{
    size_t at = 0, i;
    json_t *item;
    r->buf[col][0] = '\0';
    json_array_foreach(json_at(root, path), i, item) if (json_is_string(item) && at < CELL_LEN)
        at += (size_t)snprintf(r->buf[col] + at, CELL_LEN - at, "%s%s", i ? "," : "", json_string_value(item));
    return r->cells[col] = r->buf[col];
}

static void token_row(struct view_row *r, const json_t *tok, int64_t now_ms)
{
    cell(r, 0, tok, "metadata.name");
    cell(r, 1, tok, "spec.user");
    cell(r, 2, tok, "spec.role");
    joined(r, 3, tok, "spec.namespaces");
    cell(r, 4, tok, "spec.uid");
    cell(r, 5, tok, "spec.gid");
    age(r, 6, tok, "metadata.creationTimestamp", now_ms);
}

const struct view VIEW_TOKENS = {TOKEN_HEADERS, 7, token_row, "token.caldera.io", NULL};

/* --- events -------------------------------------------------------------------------------- */

static const char *const EVENT_HEADERS[] = {"LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"};

/* "job/train", "podgroup/train": the involved object as kubectl names it. */
static const char *event_object(struct view_row *r, int col, const json_t *ev)
{
    char kind[64];
    snprintf(kind, sizeof kind, "%s", str_or_empty(json_at(ev, "involvedObject.kind")));
    for (char *p = kind; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    snprintf(r->buf[col], CELL_LEN, "%s/%s", kind, str_or_empty(json_at(ev, "involvedObject.name")));
    return r->cells[col] = r->buf[col];
}

static const char *const EVENT_WIDE_HEADERS[] = {"LAST SEEN", "TYPE",  "REASON", "OBJECT",
                                                 "COUNT",     "FIRST", "TIME",   "MESSAGE"};

static void event_wide_row(struct view_row *r, const json_t *ev, int64_t now_ms)
{
    age(r, 0, ev, json_at(ev, "lastTimestamp") ? "lastTimestamp" : "eventTime", now_ms);
    cell(r, 1, ev, "type");
    cell(r, 2, ev, "reason");
    event_object(r, 3, ev);
    count(r, 4, ev, "count");
    age(r, 5, ev, "firstTimestamp", now_ms);
    cell(r, 6, ev, "eventTime");
    cell(r, 7, ev, "message");
}

const struct view VIEW_EVENTS_WIDE = {EVENT_WIDE_HEADERS, 8, event_wide_row, "event", NULL};
const struct view VIEW_EVENTS = {
    EVENT_HEADERS, 5, event_wide_row, "event", &VIEW_EVENTS_WIDE, (const unsigned char[]){0, 1, 2, 3, 7}};

void view_row_set(struct view_row *r, int col, const char *text)
{
    snprintf(r->buf[col], CELL_LEN, "%s", text ? text : "");
    r->cells[col] = r->buf[col];
}

/* One item's row, all of the view's row function's columns or the view's selection of them. */
static void add_row(struct table *t, const struct view *v, const json_t *item, int64_t now_ms)
{
    struct view_row r;
    v->row(&r, item, now_ms);
    if (!v->columns) {
        table_add(t, r.cells);
        return;
    }
    const char *shown[MAX_COLS];
    for (size_t i = 0; i < v->ncols; i++)
        shown[i] = r.cells[v->columns[i]];
    table_add(t, shown);
}

void view_table(struct table *t, const struct view *v, const json_t *items, int64_t now_ms)
{
    table_init(t, v->ncols, v->headers);
    if (json_is_object(items)) {
        add_row(t, v, items, now_ms);
        return;
    }
    size_t i;
    json_t *item;
    json_array_foreach(items, i, item) add_row(t, v, item, now_ms);
}
