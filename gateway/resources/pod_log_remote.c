/* The log of a pod a backend runs: the engine's own (Kubernetes' pods/{name}/log, Slurm's output file),
 * read by the backend on this gateway thread, with the query's tailLines, limitBytes and timestamps. */
#include <stdlib.h>

#include "gateway/http/http.h"
#include "gateway/resources/pod_log.h"
#include "runtime/backend.h"
#include "scheduler/core/core.h"

void pod_log_respond_remote(struct http_req *req, const json_t *found)
{
    struct api_status st = {0};
    struct pod_log_options o;
    if (pod_log_check_container(req, json_string_value(json_object_get(found, "container")), &st) != 0 ||
        pod_log_query_options(req, &o, &st) != 0) {
        http_respond_status(req, &st);
        return;
    }
    int kind = (int)json_integer_value(json_object_get(found, "backend"));
    struct backend *b = core_backend(req->gw->core, (enum backend_kind)kind);
    if (!b || !b->logs) {
        api_fail(&st, 503, "ServiceUnavailable", "the %s backend is not open on this server",
                 backend_kind_name((enum backend_kind)kind));
        http_respond_status(req, &st);
        return;
    }
    struct backend_log_query q = {.pod = json_string_value(json_object_get(found, "pod")),
                                  .tail_lines = o.tail_lines,
                                  .limit_bytes = o.limit_bytes > 0 ? o.limit_bytes : -1,
                                  .timestamps = o.timestamps};
    char *text = NULL;
    size_t len = 0;
    if (b->logs(b->ctx, json_string_value(json_object_get(found, "uid")),
                json_string_value(json_object_get(found, "ref")), &q, &text, &len, &st) != 0) {
        http_respond_status(req, &st);
        return;
    }
    char *z = realloc(text, len + 1); /* the answer is text: NUL-terminated for http_respond_text */
    if (!z) {
        free(text);
        api_fail(&st, 500, "InternalError", "out of memory");
        http_respond_status(req, &st);
        return;
    }
    z[len] = '\0';
    http_respond_text(req, 200, "text/plain; charset=utf-8", z);
    free(z);
}
