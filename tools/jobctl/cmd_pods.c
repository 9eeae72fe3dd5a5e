/* `jobctl pods [JOB]`: the pods of the namespace, or of one job through Volcano's job-name label,
 * as a POD NODE PHASE EXIT REASON AGE table. */
#include <stdio.h>
#include <stdlib.h>

#include "common/sbuf.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

char *pods_path(const char *ns, const char *job)
{
    char *base = api_ns_path(CORE_API, ns, "pods", NULL, NULL);
    if (!base || !job)
        return base;
    struct sbuf b = {0};
    sbuf_printf(&b, "%s?labelSelector=", base);
    url_escape(&b, "volcano.sh/job-name=");
    url_escape(&b, job);
    free(base);
    return sbuf_take(&b);
}

int cmd_pods(const struct jobctl_args *a)
{
    const char *job = a->npos ? a->pos[0] : NULL;
    char *path = api_page_path(pods_path(a->ns, job), a), where[512];
    if (!path)
        return report_oom();
    if (job)
        snprintf(where, sizeof where, " for job \"%s\" in namespace \"%s\"", job, a->ns);
    else
        snprintf(where, sizeof where, " in namespace \"%s\"", a->ns);
    int rc = show_list(a, path, &VIEW_PODS, "pods", where);
    free(path);
    return rc;
}
