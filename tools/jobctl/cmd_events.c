/* `jobctl events [JOB]`: the namespace's events (each recorded change, oldest first), or those of
 * one job, its PodGroup and its pods, as LAST SEEN TYPE REASON OBJECT MESSAGE. */
#include <stdio.h>
#include <stdlib.h>

#include "tools/jobctl/api.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/job_events.h"
#include "tools/jobctl/output.h"

/* The job and its pods (for the events' filter). */
int fetch_job_and_pods(const struct jobctl_args *a, const char *name, json_t **job, json_t **pods)
{
    char *path = api_ns_path(VOLCANO_BATCH_API, a->ns, "jobs", name, NULL);
    *job = *pods = NULL;
    int rc = path ? api_get_json(a, path, job) : report_oom();
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    path = pods_path(a->ns, name);
    json_t *list = NULL;
    rc = path ? api_get_json(a, path, &list) : report_oom();
    free(path);
    if (rc == JOBCTL_OK)
        *pods = json_incref(json_object_get(list, "items"));
    json_decref(list);
    if (rc == JOBCTL_OK && !*pods)
        *pods = json_array();
    if (rc != JOBCTL_OK) {
        json_decref(*job);
        *job = NULL;
    }
    return rc;
}

static int job_events(const struct jobctl_args *a, const char *name)
{
    json_t *job, *pods, *events = NULL;
    int rc = fetch_job_and_pods(a, name, &job, &pods);
    if (rc == JOBCTL_OK)
        rc = job_events_fetch(a, job, pods, &events);
    if (rc == JOBCTL_OK) {
        if (a->json) {
            json_t *list = json_pack("{s:s,s:s,s:{},s:O}", "apiVersion", "v1", "kind", "EventList", "metadata", "items",
                                     events);
            rc = list ? print_doc(a, list) : report_oom();
            json_decref(list);
        } else if (json_array_size(events) == 0) {
            fprintf(stderr, "No events found for job \"%s\" in namespace \"%s\".\n", name, a->ns);
        } else {
            rc = print_view_as(a, &VIEW_EVENTS, events);
        }
    }
    json_decref(events);
    json_decref(job);
    json_decref(pods);
    return rc;
}

int cmd_events(const struct jobctl_args *a)
{
    if (a->npos)
        return job_events(a, a->pos[0]);
    char *path = api_page_path(api_ns_path(CORE_API, a->ns, "events", NULL, NULL), a), where[300];
    if (!path)
        return report_oom();
    snprintf(where, sizeof where, " in namespace \"%s\"", a->ns);
    int rc = show_list(a, path, &VIEW_EVENTS, "events", where);
    free(path);
    return rc;
}
