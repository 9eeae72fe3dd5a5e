/* `jobctl get [JOB]`: the jobs of the namespace as a table, or one job's row (with the whole of its
 * pending reason) followed by its pods (with -o json/yaml: the list or the Job as the server sent it;
 * -o wide: more columns; -o name: job.batch.volcano.sh/NAME lines). kubectl's words work too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/jobctl/api.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/kube_words.h"
#include "tools/jobctl/output.h"

static int get_list(const struct jobctl_args *a)
{
    char *path = api_page_path(api_ns_path(VOLCANO_BATCH_API, a->ns, "jobs", NULL, NULL), a), where[300];
    if (!path)
        return report_oom();
    snprintf(where, sizeof where, " in namespace \"%s\"", a->ns);
    int rc = show_list(a, path, &VIEW_JOBS, "jobs", where);
    free(path);
    return rc;
}

/* The pods table under the job's row, after a blank line; a note on stderr when there are none. */
static int print_job_pods(const struct jobctl_args *a, const char *name)
{
    char *path = pods_path(a->ns, name);
    json_t *list;
    int rc = path ? api_get_json(a, path, &list) : report_oom();
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    json_t *items = json_object_get(list, "items");
    if (json_array_size(items) == 0) {
        fprintf(stderr, "No pods found for job \"%s\".\n", name);
    } else {
        if (!a->names)
            fputc('\n', stdout);
        rc = print_view_as(a, &VIEW_PODS, items);
    }
    json_decref(list);
    return rc;
}

/* The Job manifest for a real cluster (with companions a v1 List of the Job and their Pods, Services and Ingresses
 * owned by the Job of uid --owner-uid), in the server's canonical form (adapters/dialects/volcano/manifest.h): keys
 * sorted, two-space indent, so the same job always prints the same bytes. */
static int get_manifest(const struct jobctl_args *a, const char *name)
{
    static const char *const keys[] = {"ownerUid"};
    const char *values[] = {a->owner_uid};
    char *path = api_with_query(api_ns_path(CALDERA_API, a->ns, "jobs", name, "manifest"), keys, values, 1);
    json_t *manifest;
    int rc = path ? api_get_json(a, path, &manifest) : report_oom();
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    char *text = json_dumps(manifest, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    json_decref(manifest);
    if (!text)
        return report_oom();
    printf("%s\n", text);
    free(text);
    return JOBCTL_OK;
}

static int get_one(const struct jobctl_args *a, const char *name)
{
    if (a->manifest)
        return get_manifest(a, name);
    char *path = api_ns_path(VOLCANO_BATCH_API, a->ns, "jobs", name, NULL);
    json_t *job;
    int rc = path ? api_get_json(a, path, &job) : report_oom();
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    if (a->json)
        rc = print_doc(a, job);
    else if (a->names)
        rc = print_view_as(a, &VIEW_JOBS, job);
    else if ((rc = print_view_as(a, &VIEW_JOBS, job)) == JOBCTL_OK) {
        const char *reason = job_reason(job);
        if (!a->wide && strlen(reason) > JOB_REASON_SHORT) /* the row cut it: the whole of it */
            printf("Reason: %s\n", reason);
        rc = print_job_pods(a, name);
    }
    json_decref(job);
    return rc;
}

/* `get KIND [NAME]` and `get KIND/NAME` as kubectl reads them (kube_words.c). One word alone is a resource word
 * when it is one (`get jobs`), else a job's name; a job named "jobs" is `get job jobs`. */
int cmd_get(const struct jobctl_args *a)
{
    enum kube_kind kind;
    struct jobctl_args rest;
    char why[160];
    if (kube_split(a, &kind, &rest, why, sizeof why) != 0)
        return jobctl_usage_error(a->command_def, why);
    if (kind == KUBE_DEBUGSESSIONS)
        return jobctl_usage_error(a->command_def, "get shows jobs, pods and queues");
    if (kind == KUBE_PODS)
        return cmd_pods(&rest);
    if (kind == KUBE_QUEUES)
        return rest.npos ? jobctl_usage_error(a->command_def, "get queues lists them all; it takes no name")
                         : cmd_queues(&rest);
    return rest.npos ? get_one(&rest, rest.pos[0]) : get_list(&rest);
}
