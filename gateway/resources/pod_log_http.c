/* The log API's answer (a pod's log, an attempt's log in the history): PodLogOptions from the
 * query, the file opened without following links (pod_log.c), streamed as text/plain. */
#include <stdint.h>
#include <string.h>

#include "common/clock.h"
#include "gateway/http/http.h"
#include "gateway/resources/pod_log.h"
#include "gateway/http/query_params.h"

static long stream_read(void *ctx, char *buf, size_t max) { return pod_log_read(ctx, buf, max); }
static void stream_free(void *ctx) { pod_log_close(ctx); }

int pod_log_check_container(struct http_req *req, const char *container, struct api_status *st)
{
    const char *asked = http_query(req, "container");
    if (container && asked && strcmp(asked, container) != 0) {
        char why[320];
        snprintf(why, sizeof why, "the pod's only container is \"%.256s\"", container);
        return query_bad_param(st, "container", asked, why);
    }
    return 0;
}

int pod_log_query_options(struct http_req *req, struct pod_log_options *o, struct api_status *st)
{
    struct pod_log_query q = {http_query(req, "limitBytes"), http_query(req, "tailLines"),
                              http_query(req, "sinceSeconds"), http_query(req, "sinceTime"),
                              http_query(req, "timestamps")};
    return pod_log_options_parse(&q, clock_wall_ms(), o, st);
}

void pod_log_warn_raw(struct http_req *req, const struct pod_log_reader *r, const struct pod_log_options *o)
{
    if (pod_log_is_raw(r) && (o->timestamps || o->since_ms != INT64_MIN))
        http_set_warning(req,
                         "this log has no timestamps (its task ran without caldera-shim): sinceSeconds, "
                         "sinceTime and timestamps do not apply to it");
}

void pod_log_respond_reader(struct http_req *req, struct pod_log_reader *r)
{
    http_respond_stream(req, "text/plain; charset=utf-8", stream_read, r, stream_free);
}

void pod_log_respond(struct http_req *req, const char *path, const char *container)
{
    struct api_status st = {0};
    struct pod_log_options o;
    struct pod_log_reader *r;
    if (pod_log_check_container(req, container, &st) != 0 || pod_log_query_options(req, &o, &st) != 0 ||
        pod_log_open(path, &o, &r, &st) != 0) {
        http_respond_status(req, &st);
        return;
    }
    pod_log_warn_raw(req, r, &o);
    pod_log_respond_reader(req, r);
}
