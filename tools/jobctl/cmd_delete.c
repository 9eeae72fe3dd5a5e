/* `jobctl delete [debugsession] NAME`: deletes one job (or a debug session, at its own path) and says
 * so the way kubectl does ("job.batch.volcano.sh/<name> deleted"); -o json prints the server's answer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/jobctl/api.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

/* The kinds `jobctl delete KIND NAME` takes: their names, API, plural and kubectl's printed kind. */
static const struct {
    const char *names[4];
    const char *api, *plural, *printed;
} KINDS[] = {
    {{"job", "jobs", "vcjob", NULL}, VOLCANO_BATCH_API, "jobs", "job.batch.volcano.sh"},
    {{"debugsession", "debugsessions", "ds", NULL}, CALDERA_API, "debugsessions", "debugsession.caldera.io"},
};

int cmd_delete(const struct jobctl_args *a)
{
    int kind = 0;
    if (a->npos == 2) {
        kind = -1;
        for (int k = 0; k < (int)(sizeof KINDS / sizeof *KINDS) && kind < 0; k++)
            for (int i = 0; KINDS[k].names[i]; i++)
                if (strcmp(KINDS[k].names[i], a->pos[0]) == 0)
                    kind = k;
        if (kind < 0)
            return jobctl_usage_error(a->command_def, "delete takes a job's name, or debugsession NAME");
    }
    const char *name = a->pos[a->npos - 1];
    char *path = api_ns_path(KINDS[kind].api, a->ns, KINDS[kind].plural, name, NULL);
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
        printf("%s/%s deleted\n", KINDS[kind].printed, name);
    }
    http_response_free(&resp);
    return JOBCTL_OK;
}
