/* `jobctl history [JOB]`: what happened to jobs, from Caldera's history API: without JOB the jobs'
 * histories (filtered by phase and creation time), with JOB its phase transitions, then every
 * attempt of every pod (node, pid, times, exit code, reason). */
#include <stdio.h>
#include <stdlib.h>

#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

/* A titled section: "Title:" and the table, or "Title: <none>" when items is empty. */
static int print_section(const char *title, const struct view *v, const json_t *items)
{
    if (json_array_size(items) == 0) {
        printf("\n%s: <none>\n", title);
        return JOBCTL_OK;
    }
    printf("\n%s:\n", title);
    return print_view(v, items);
}

static int print_history(const struct jobctl_args *a, const char *name, const json_t *h)
{
    char phase[CELL_LEN];
    printf("Job:   %s/%s\n", a->ns, name);
    printf("Phase: %s\n", json_cell(json_object_get(h, "phase"), phase, sizeof phase));
    int rc = print_section("Transitions", &VIEW_TRANSITIONS, json_object_get(h, "transitions"));
    if (rc == JOBCTL_OK)
        rc = print_section("Attempts", &VIEW_ATTEMPTS, json_object_get(h, "attempts"));
    return rc;
}

/* The list's path with the filters the line gave, each escaped. */
static char *list_path(const struct jobctl_args *a)
{
    const char *keys[] = {"phase", "since", "limit", "continue"};
    const char *values[] = {a->phase, a->since, a->limit, a->cont};
    return api_with_query(api_ns_path(CALDERA_API, a->ns, "jobhistories", NULL, NULL), keys, values, 4);
}

static int list_histories(const struct jobctl_args *a)
{
    char *path = list_path(a);
    if (!path)
        return report_oom();
    char where[300];
    snprintf(where, sizeof where, " in namespace \"%s\"", a->ns);
    int rc = show_list(a, path, &VIEW_HISTORIES, "job histories", where);
    free(path);
    return rc;
}

int cmd_history(const struct jobctl_args *a)
{
    if (a->npos == 0)
        return list_histories(a);
    const char *name = a->pos[0];
    char *path = api_ns_path(CALDERA_API, a->ns, "jobs", name, "history");
    json_t *h;
    int rc = path ? api_get_json(a, path, &h) : report_oom();
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    if (a->json)
        print_doc(a, h);
    else
        rc = print_history(a, name, h);
    json_decref(h);
    return rc;
}
