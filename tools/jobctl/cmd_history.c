/* `jobctl history [JOB]`: what happened to jobs, from Caldera's history API: without JOB the jobs'
 * histories (filtered by phase and creation time), with JOB its phase transitions, then every
 * attempt of every pod (node, pid, times, exit code, reason), and what the job requested against what
 * it used (the history's usage). */
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

/* used / requested as a percentage, or "-" when nothing was requested or nothing said. */
static const char *share(const json_t *fraction, char *buf, size_t len)
{
    if (!json_is_number(fraction))
        return "-";
    snprintf(buf, len, "%.0f%%", json_number_value(fraction) * 100.0);
    return buf;
}

/* "Usage:" with one line per resource, when the history has it. */
static void print_usage(const json_t *u)
{
    if (!json_is_object(u))
        return;
    const json_t *cpu = json_object_get(u, "cpu"), *mem = json_object_get(u, "memory"),
                 *gpu = json_object_get(u, "gpu");
    char pct[32];
    printf("\nUsage (requested against used, %lld ended attempt%s):\n",
           (long long)json_integer_value(json_object_get(u, "attempts")),
           json_integer_value(json_object_get(u, "attempts")) == 1 ? "" : "s");
    printf("  cpu     %.2f core-s requested, %.2f used (%s)\n",
           json_number_value(json_object_get(cpu, "requestedCoreSeconds")),
           json_number_value(json_object_get(cpu, "usedCoreSeconds")),
           share(json_object_get(cpu, "usedFraction"), pct, sizeof pct));
    printf("  memory  %.0f MiB requested, %.1f MiB peak (%s)\n",
           json_number_value(json_object_get(mem, "requestedBytes")) / 1048576.0,
           json_number_value(json_object_get(mem, "peakBytes")) / 1048576.0,
           share(json_object_get(mem, "usedFraction"), pct, sizeof pct));
    if (json_is_object(gpu)) {
        const json_t *used = json_object_get(gpu, "usedGPUSeconds");
        printf("  gpu     %.2f GPU-s requested, ", json_number_value(json_object_get(gpu, "requestedGPUSeconds")));
        if (json_is_number(used))
            printf("%.2f used (%s)\n", json_number_value(used),
                   share(json_object_get(gpu, "usedFraction"), pct, sizeof pct));
        else
            printf("not sampled\n");
    }
}

static int print_history(const struct jobctl_args *a, const char *name, const json_t *h)
{
    char phase[CELL_LEN];
    printf("Job:   %s/%s\n", a->ns, name);
    printf("Phase: %s\n", json_cell(json_object_get(h, "phase"), phase, sizeof phase));
    int rc = print_section("Transitions", &VIEW_TRANSITIONS, json_object_get(h, "transitions"));
    if (rc == JOBCTL_OK)
        rc = print_section("Attempts", &VIEW_ATTEMPTS, json_object_get(h, "attempts"));
    if (rc == JOBCTL_OK)
        print_usage(json_object_get(h, "usage"));
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
