/* `jobctl logs POD [--previous] [--attempt N] [--tail N] [--since D|TIME] [--timestamps]
 * [--limit-bytes N]`: a pod's log exactly as the server sends it (the bytes go to stdout unchanged,
 * so binary output and missing final newlines survive); the server checks the values. */
#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "common/duration.h"
#include "common/sbuf.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

/* --since as kubectl takes it: a duration (sinceSeconds, rounded up) or an RFC 3339 time (sinceTime). */
static void since_param(struct sbuf *b, const char *since, char sep)
{
    int64_t ms;
    const char *why;
    if (rfc3339_parse(since, &ms) == 0) {
        sbuf_printf(b, "%csinceTime=", sep);
        url_escape(b, since);
    } else if (duration_parse(since, &ms, &why) == 0 && ms > 0) {
        sbuf_printf(b, "%csinceSeconds=%lld", sep, (long long)((ms + 999) / 1000));
    } else {
        sbuf_printf(b, "%csinceSeconds=", sep); /* the server says what is wrong with it */
        url_escape(b, since);
    }
}

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
    if (a->attempt >= 0) {
        sbuf_printf(&b, "%cattempt=%ld", sep, a->attempt);
        sep = '&';
    }
    const char *keys[] = {"tailLines", "limitBytes"}, *values[] = {a->tail, a->limit_bytes};
    for (int i = 0; i < 2; i++)
        if (values[i]) {
            sbuf_printf(&b, "%c%s=", sep, keys[i]);
            url_escape(&b, values[i]);
            sep = '&';
        }
    if (a->timestamps) {
        sbuf_printf(&b, "%ctimestamps=true", sep);
        sep = '&';
    }
    if (a->since)
        since_param(&b, a->since, sep);
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
