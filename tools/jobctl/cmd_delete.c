/* `jobctl delete JOB`: deletes one job and says so the way kubectl does
 * ("job.batch.volcano.sh/<name> deleted"); -o json prints the server's answer instead. */
#include <stdio.h>
#include <stdlib.h>

#include "tools/jobctl/api.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

int cmd_delete(const struct jobctl_args *a)
{
    const char *name = a->pos[0];
    char *path = api_ns_path(VOLCANO_BATCH_API, a->ns, "jobs", name, NULL);
    if (!path)
        return report_oom();
    struct http_response resp;
    int rc = api_call(a, "DELETE", path, NULL, &resp);
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    if (a->json) {
        print_body(resp.body, resp.len);
    } else {
        printf("job.batch.volcano.sh/%s deleted\n", name);
    }
    http_response_free(&resp);
    return JOBCTL_OK;
}
