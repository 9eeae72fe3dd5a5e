/* `jobctl delete [debugsession] NAME`: deletes one job (or a debug session, at its own path) and says
 * so the way kubectl does ("job.batch.volcano.sh/<name> deleted"); -o json prints the server's answer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/jobctl/api.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/kube_words.h"
#include "tools/jobctl/output.h"

/* What `jobctl delete` removes: a job (NAME alone, job NAME, job/NAME) or a debug session (debugsession
 * NAME, ds NAME, ds/NAME); its API, plural and kubectl's printed kind. */
struct deleted_kind {
    const char *api, *plural, *printed;
};
static const struct deleted_kind JOB_KIND = {VOLCANO_BATCH_API, "jobs", "job.batch.volcano.sh"};
static const struct deleted_kind SESSION_KIND = {CALDERA_API, "debugsessions", "debugsession.caldera.io"};

int cmd_delete(const struct jobctl_args *a)
{
    enum kube_kind kind;
    const char *name;
    char why[160];
    if (kube_one_name(a, 1u << KUBE_JOBS | 1u << KUBE_DEBUGSESSIONS,
                      "delete takes a job's name, or debugsession NAME (a queue: jobctl queue delete NAME)",
                      "delete needs a NAME", &kind, &name, why, sizeof why) != 0)
        return jobctl_usage_error(a->command_def, why);
    const struct deleted_kind *k = kind == KUBE_DEBUGSESSIONS ? &SESSION_KIND : &JOB_KIND;
    char *path = api_ns_path(k->api, a->ns, k->plural, name, NULL);
    if (!path)
        return report_oom();
    struct http_response resp;
    int rc = api_call(a, "DELETE", path, NULL, &resp);
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    if (a->json) {
        print_body_as(a, resp.body, resp.len);
    } else {
        printf("%s/%s deleted\n", k->printed, name);
    }
    http_response_free(&resp);
    return JOBCTL_OK;
}
