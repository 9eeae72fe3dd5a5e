/* `jobctl describe JOB`, as `kubectl describe` reads: the job's spec in short (queue, minimum,
 * retries, each task's replicas, image, command and requests), its status with the pending reason,
 * its pods, every attempt of every pod (the history API: node, start, end, exit code, reason) and
 * its events. -o json/yaml: one document holding the Job, its pods, its history and its events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/sbuf.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/job_events.h"
#include "tools/jobctl/kube_words.h"
#include "tools/jobctl/output.h"
#include "tools/jobctl/table.h"

#define LAST_EVENTS 30

struct described {
    json_t *job, *pods, *history, *events;
};

static void field(const char *label, const char *value)
{
    char l[32];
    snprintf(l, sizeof l, "%s:", label);
    printf("%-16s%s\n", l, value && *value ? value : "<none>");
}

static void field_at(const char *label, const json_t *root, const char *path)
{
    char buf[CELL_LEN];
    const json_t *v = json_at(root, path);
    field(label, v ? json_cell(v, buf, sizeof buf) : NULL);
}

/* A table under a title, indented by two spaces. */
static int section(const char *title, const struct jobctl_args *a, const struct view *v, const json_t *items)
{
    if (json_array_size(items) == 0) {
        printf("%s:%*s<none>\n", title, (int)(15 - strlen(title)), "");
        return JOBCTL_OK;
    }
    printf("%s:\n", title);
    struct table t;
    view_table(&t, a->wide && v->wide ? v->wide : v, items, clock_wall_ms());
    char *text = table_render(&t);
    table_free(&t);
    if (!text)
        return report_oom();
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        printf("  %s\n", line);
    free(text);
    return JOBCTL_OK;
}

/* "python train.py --lr 0.1": a container's command and args joined. */
static void command_line(struct sbuf *b, const json_t *container)
{
    static const char *const parts[] = {"command", "args"};
    size_t i;
    json_t *word;
    for (int p = 0; p < 2; p++)
        json_array_foreach(json_object_get(container, parts[p]), i, word) if (json_is_string(word))
            sbuf_printf(b, "%s%s", b->len ? " " : "", json_string_value(word));
}

static const char *const TASK_HEADERS[] = {"NAME", "REPLICAS", "MIN", "IMAGE", "REQUESTS", "COMMAND"};

static void task_row(struct view_row *r, const json_t *task, int64_t now_ms)
{
    (void)now_ms;
    char replicas[32], min[32], req[CELL_LEN] = "";
    const json_t *c = json_at(task, "template.spec.containers.0");
    struct sbuf cmd = {0};
    command_line(&cmd, c);
    const char *key;
    json_t *v;
    size_t at = 0;
    json_object_foreach(json_at(c, "resources.requests"), key, v)
    {
        char one[64];
        if (at < sizeof req)
            at += (size_t)snprintf(req + at, sizeof req - at, "%s%s=%s", at ? "," : "", key,
                                   json_cell(v, one, sizeof one));
    }
    const char *cells[] = {json_string_value(json_object_get(task, "name")),
                           json_count(json_object_get(task, "replicas"), replicas, sizeof replicas),
                           json_cell(json_object_get(task, "minAvailable"), min, sizeof min),
                           json_string_value(json_object_get(c, "image")),
                           req,
                           cmd.failed ? "" : sbuf_str(&cmd)};
    for (int i = 0; i < 6; i++)
        view_row_set(r, i, cells[i]);
    sbuf_free(&cmd);
}

static const struct view VIEW_TASKS = {TASK_HEADERS, 6, task_row, NULL, NULL};

/* "1 pending, 2 running, 0 succeeded, 0 failed" */
static void pods_summary(const json_t *job)
{
    char p[32], r[32], s[32], f[32], line[200];
    snprintf(line, sizeof line, "%s pending, %s running, %s succeeded, %s failed",
             json_count(json_at(job, "status.pending"), p, sizeof p),
             json_count(json_at(job, "status.running"), r, sizeof r),
             json_count(json_at(job, "status.succeeded"), s, sizeof s),
             json_count(json_at(job, "status.failed"), f, sizeof f));
    field("Pods Status", line);
}

static int print_description(const struct jobctl_args *a, const struct described *d)
{
    const json_t *job = d->job;
    char created[160], age[32];
    snprintf(created, sizeof created, "%s (%s ago)",
             json_string_value(json_at(job, "metadata.creationTimestamp"))
                 ? json_string_value(json_at(job, "metadata.creationTimestamp"))
                 : "?",
             age_since(json_at(job, "metadata.creationTimestamp"), clock_wall_ms(), age, sizeof age));
    field_at("Name", job, "metadata.name");
    field_at("Namespace", job, "metadata.namespace");
    field_at("UID", job, "metadata.uid");
    field("Created", created);
    field_at("Queue", job, "spec.queue");
    field_at("Min Available", job, "spec.minAvailable");
    field_at("Max Retry", job, "spec.maxRetry");
    field_at("Phase", job, "status.state.phase");
    field_at("Reason", job, "status.state.reason");
    const char *phase = json_string_value(json_at(job, "status.state.phase"));
    if (phase && strcmp(phase, "Pending") == 0) /* the message says why it waits */
        field("Pending Reason", job_reason(job));
    else
        field_at("Message", job, "status.state.message");
    field_at("Retries", job, "status.retryCount");
    field_at("Version", job, "status.version");
    pods_summary(job);
    int rc = section("Tasks", a, &VIEW_TASKS, json_at(job, "spec.tasks"));
    if (rc == JOBCTL_OK)
        rc = section("Pods", a, &VIEW_PODS, d->pods);
    if (rc == JOBCTL_OK)
        rc = section("Attempts", a, &VIEW_ATTEMPTS, json_object_get(d->history, "attempts"));
    if (rc == JOBCTL_OK)
        rc = section("Transitions", a, &VIEW_TRANSITIONS, json_object_get(d->history, "transitions"));
    if (rc != JOBCTL_OK)
        return rc;
    size_t n = json_array_size(d->events);
    json_t *last = json_array();
    for (size_t i = n > LAST_EVENTS ? n - LAST_EVENTS : 0; last && i < n; i++)
        json_array_append(last, json_array_get(d->events, i));
    if (!last)
        return report_oom();
    if (n > LAST_EVENTS)
        printf("(the last %d of %zu events: `jobctl events %s` lists them all)\n", LAST_EVENTS, n,
               json_string_value(json_at(job, "metadata.name")));
    rc = section("Events", a, &VIEW_EVENTS, last);
    json_decref(last);
    return rc;
}

/* The job's history; a job the history does not know yet reads as none. */
static json_t *fetch_history(const struct jobctl_args *a, const char *name)
{
    char *path = api_ns_path(CALDERA_API, a->ns, "jobs", name, "history");
    json_t *h = NULL;
    if (path && api_get_json(a, path, &h) != JOBCTL_OK)
        h = NULL;
    free(path);
    return h ? h : json_object();
}

int cmd_describe(const struct jobctl_args *a)
{
    enum kube_kind kind;
    const char *name;
    char why[160];
    if (kube_one_name(a, 1u << KUBE_JOBS, "describe shows a job: describe JOB (or job NAME, job/NAME)",
                      "describe needs JOB", &kind, &name, why, sizeof why) != 0)
        return jobctl_usage_error(a->command_def, why);
    struct described d = {0};
    int rc = fetch_job_and_pods(a, name, &d.job, &d.pods);
    if (rc != JOBCTL_OK)
        return rc;
    d.history = fetch_history(a, name);
    rc = job_events_fetch(a, d.job, d.pods, &d.events);
    if (rc == JOBCTL_OK && a->json) {
        json_t *doc = json_pack("{s:O,s:O,s:O,s:O}", "job", d.job, "pods", d.pods, "history", d.history, "events",
                                d.events);
        rc = doc ? print_doc(a, doc) : report_oom();
        json_decref(doc);
    } else if (rc == JOBCTL_OK) {
        rc = print_description(a, &d);
    }
    json_decref(d.job);
    json_decref(d.pods);
    json_decref(d.history);
    json_decref(d.events);
    return rc;
}
