/* `jobctl flow submit FILE`, `flow get [NAME]`, `flow delete NAME`, `flow retry NAME`: every
 * JobTemplate and JobFlow of a YAML or JSON file POSTed in order (templates first in the file, as
 * a flow needs them), flows listed or one shown step by step, deleted, or retried from its failed
 * steps. The server checks everything; jobctl only routes documents. */
#include "tools/jobctl/cmd_flow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "common/clock.h"
#include "common/fs.h"
#include "common/sbuf.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"
#include "tools/jobctl/table.h"

#define FLOW_API "/apis/flow.volcano.sh/v1alpha1"
#define MAX_FILE (16u << 20)

static int post_doc(const struct jobctl_args *a, const json_t *root)
{
    const char *kind = json_string_value(json_object_get(root, "kind"));
    const char *name = json_string_value(json_object_get(json_object_get(root, "metadata"), "name"));
    const char *resource = kind && strcmp(kind, "JobTemplate") == 0 ? "jobtemplates"
                           : kind && strcmp(kind, "JobFlow") == 0   ? "jobflows"
                                                                    : NULL;
    if (!resource) {
        fprintf(stderr, "error: flow submit takes JobTemplate and JobFlow documents, not %s\n", kind ? kind : "this");
        return JOBCTL_USAGE;
    }
    char *body = json_dumps(root, JSON_COMPACT);
    char *path = api_ns_path(FLOW_API, a->ns, resource, NULL, NULL);
    if (!body || !path) {
        free(body);
        free(path);
        return report_oom();
    }
    struct api_body b = {body, strlen(body), "application/json"};
    json_t *answer = NULL;
    int rc = api_call_json(a, "POST", path, &b, &answer);
    free(body);
    free(path);
    if (rc == JOBCTL_OK && a->json)
        print_doc(a, answer);
    else if (rc == JOBCTL_OK)
        printf("%s.flow.volcano.sh/%s created\n", strcmp(resource, "jobflows") == 0 ? "jobflow" : "jobtemplate",
               name ? name : "");
    json_decref(answer);
    return rc;
}

static int flow_submit(const struct jobctl_args *a)
{
    if (a->npos != 2)
        return jobctl_usage_error(a->command_def, "flow submit takes one FILE");
    char *data = NULL;
    size_t len = 0;
    if (read_file(a->pos[1], MAX_FILE, &data, &len) != 0) {
        fprintf(stderr, "error: cannot read %s\n", a->pos[1]);
        return JOBCTL_FAIL;
    }
    struct intake in;
    struct api_status st = {0};
    enum intake_format fmt = len > 0 && data[0] == '{' ? INTAKE_JSON : INTAKE_YAML;
    int rc = intake_parse(data, len, fmt, &in, &st) == 0 ? JOBCTL_OK : JOBCTL_USAGE;
    free(data);
    if (rc != JOBCTL_OK) {
        fprintf(stderr, "error: %s: %s\n", a->pos[1], st.message);
        return rc;
    }
    for (int i = 0; i < in.ndocs && rc == JOBCTL_OK; i++)
        rc = post_doc(a, in.docs[i].root);
    intake_free(&in);
    return rc;
}

static int count(const json_t *flow, const char *list) { return (int)json_array_size(json_at(flow, list)); }

static int flow_list(const struct jobctl_args *a)
{
    char *path = api_ns_path(FLOW_API, a->ns, "jobflows", NULL, NULL);
    json_t *list = NULL;
    int rc = path ? api_get_json(a, path, &list) : report_oom();
    free(path);
    if (rc != JOBCTL_OK || a->json) {
        if (rc == JOBCTL_OK)
            print_doc(a, list);
        json_decref(list);
        return rc;
    }
    static const char *const headers[] = {"NAME", "PHASE", "COMPLETED", "RUNNING", "FAILED", "AGE"};
    struct table t;
    table_init(&t, 6, headers);
    json_t *item;
    size_t i;
    int64_t now = clock_wall_ms();
    json_array_foreach(json_object_get(list, "items"), i, item)
    {
        char done[32], running[16], failed[16], age[32];
        snprintf(done, sizeof done, "%d/%zu", count(item, "status.completedJobs"),
                 json_array_size(json_at(item, "spec.flows")));
        snprintf(running, sizeof running, "%d", count(item, "status.runningJobs") + count(item, "status.pendingJobs"));
        snprintf(failed, sizeof failed, "%d", count(item, "status.failedJobs") + count(item, "status.terminatedJobs"));
        const char *cells[] = {json_string_value(json_at(item, "metadata.name")),
                               json_string_value(json_at(item, "status.state.phase")),
                               done,
                               running,
                               failed,
                               age_since(json_at(item, "metadata.creationTimestamp"), now, age, sizeof age)};
        table_add(&t, cells);
    }
    char *text = table_render(&t);
    if (text && table_rows(&t) > 0)
        fputs(text, stdout);
    else if (text)
        fprintf(stderr, "No job flows found in namespace %s.\n", a->ns);
    free(text);
    table_free(&t);
    json_decref(list);
    return JOBCTL_OK;
}

/* One flow: its phase (and why it failed), then a row per step. */
static int flow_show(const json_t *flow)
{
    const char *message = json_string_value(json_at(flow, "status.state.message"));
    printf("Name:   %s\nPhase:  %s\n", json_string_value(json_at(flow, "metadata.name")),
           json_string_value(json_at(flow, "status.state.phase")));
    if (message)
        printf("Message: %s\n", message);
    static const char *const headers[] = {"STEP", "JOB", "STATE", "DEPENDS ON", "STARTED", "ENDED"};
    struct table t;
    table_init(&t, 6, headers);
    json_t *step;
    size_t i;
    json_array_foreach(json_at(flow, "spec.flows"), i, step)
    {
        const char *name = json_string_value(json_object_get(step, "name"));
        char job[160], deps[256] = "";
        snprintf(job, sizeof job, "%s-%s", json_string_value(json_at(flow, "metadata.name")), name ? name : "");
        const char *state = "Waiting", *start = "", *end = "";
        json_t *js;
        size_t k;
        json_array_foreach(json_at(flow, "status.jobStatusList"), k, js)
        {
            const char *jname = json_string_value(json_object_get(js, "name"));
            if (!jname || strcmp(jname, job) != 0)
                continue;
            state = json_string_value(json_object_get(js, "state"));
            start = json_string_value(json_object_get(js, "startTimestamp"));
            end = json_string_value(json_object_get(js, "endTimestamp"));
        }
        json_t *target;
        size_t d;
        json_array_foreach(json_at(step, "dependsOn.targets"), d, target)
        {
            size_t used = strlen(deps);
            snprintf(deps + used, sizeof deps - used, "%s%s", used ? "," : "", json_string_value(target));
        }
        const char *cells[] = {name, job, state ? state : "", deps[0] ? deps : "-", start ? start : "", end ? end : ""};
        table_add(&t, cells);
    }
    char *text = table_render(&t);
    if (text)
        fputs(text, stdout);
    free(text);
    table_free(&t);
    return JOBCTL_OK;
}

static int flow_one(const struct jobctl_args *a, const char *method, const char *group_version, const char *sub)
{
    char *path = api_ns_path(group_version, a->ns, "jobflows", a->pos[1], sub);
    json_t *answer = NULL;
    int rc = path ? api_call_json(a, method, path, NULL, &answer) : report_oom();
    free(path);
    if (rc == JOBCTL_OK) {
        if (a->json)
            print_doc(a, answer);
        else if (strcmp(method, "GET") == 0)
            rc = flow_show(answer);
        else
            printf("jobflow.flow.volcano.sh/%s %s\n", a->pos[1], sub ? "retried" : "deleted");
    }
    json_decref(answer);
    return rc;
}

int cmd_flow(const struct jobctl_args *a)
{
    const char *action = a->pos[0];
    if (strcmp(action, "submit") == 0)
        return flow_submit(a);
    if (a->npos > 2)
        return jobctl_usage_error(a->command_def, "flow get, delete and retry take at most NAME");
    if (strcmp(action, "get") == 0)
        return a->npos == 1 ? flow_list(a) : flow_one(a, "GET", FLOW_API, NULL);
    if (a->npos != 2)
        return jobctl_usage_error(a->command_def, "flow delete and retry take NAME");
    if (strcmp(action, "delete") == 0)
        return flow_one(a, "DELETE", FLOW_API, NULL);
    if (strcmp(action, "retry") == 0)
        return flow_one(a, "POST", CALDERA_API, "retry");
    char why[128];
    snprintf(why, sizeof why, "unknown flow action \"%s\" (submit, get, delete or retry)", action);
    return jobctl_usage_error(a->command_def, why);
}
