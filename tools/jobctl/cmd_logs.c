/* `jobctl logs POD [--previous] [--attempt N]`: a pod's log exactly as the server sends it (the
 * bytes go to stdout unchanged, so binary output and missing final newlines survive). */
#include <stdio.h>
#include <stdlib.h>

#include "common/sbuf.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

static char *log_path(const struct jobctl_args *a)
{
    char *base = api_ns_path(CORE_API, a->ns, "pods", a->pos[0], "log");
    if (!base)
        return NULL;
    struct sbuf b = {0};
    sbuf_puts(&b, base);
    char sep = '?';
    if (a->previous) {
        sbuf_printf(&b, "%cprevious=true", sep);
        sep = '&';
    }
    if (a->attempt >= 0)
        sbuf_printf(&b, "%cattempt=%ld", sep, a->attempt);
    free(base);
    return sbuf_take(&b);
}

int cmd_logs(const struct jobctl_args *a)
{
    char *path = log_path(a);
    if (!path)
        return report_oom();
    struct http_response resp;
    int rc = api_call(a, "GET", path, NULL, &resp);
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    fwrite(resp.body, 1, resp.len, stdout);
    http_response_free(&resp);
    return JOBCTL_OK;
}
