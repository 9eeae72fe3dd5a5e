/* `jobctl run [--name N] [--queue Q] [--replicas N] [--cpu C] [--memory M] [--gpu G] [--min-success N]
 * [--auto-memory-scale RATE] [--per-day FROM..TO] [--env K=V]... [--wait] -- COMMAND ARGS...`: a
 * Volcano Job built from flags (run_job.c), created, and with --wait followed to its end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"
#include "tools/jobctl/run_job.h"

int cmd_run(const struct jobctl_args *a)
{
    char err[512];
    json_t *job = run_build_job(a, err, sizeof err);
    if (!job)
        return jobctl_usage_error(a->command_def, err);
    if (a->dry_run) {
        struct jobctl_args shown = *a;
        shown.json = true; /* the document, as YAML unless -o json */
        shown.yaml = !a->json || a->yaml;
        int rc = print_doc(&shown, job);
        json_decref(job);
        return rc;
    }
    char *text = json_dumps(job, JSON_COMPACT), *path = api_ns_path(VOLCANO_BATCH_API, a->ns, "jobs", NULL, NULL);
    json_decref(job);
    json_t *created = NULL;
    int rc = text && path ? JOBCTL_OK : report_oom();
    if (rc == JOBCTL_OK) {
        const struct api_body body = {text, strlen(text), "application/json"};
        rc = api_call_json(a, "POST", path, &body, &created);
    }
    free(text);
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    const char *name = json_string_value(json_at(created, "metadata.name"));
    char *kept = name ? strdup(name) : NULL;
    if (a->json)
        rc = print_doc(a, created);
    else
        printf("job.batch.volcano.sh/%s created\n", name ? name : "<unknown>");
    fflush(stdout);
    json_decref(created);
    if (rc == JOBCTL_OK && a->wait && kept) {
        const char *names[] = {kept};
        rc = jobctl_wait_jobs(a, NULL, names, 1);
    }
    free(kept);
    return rc;
}
