/* GET /metrics: the Prometheus text exposition (format 0.0.4). The core renders the live part (queues,
 * pods, jobs, the cycle histogram) on its thread; the gateway adds what it and the store count. */
#include "gateway/http/metrics.h"

#include <stdlib.h>

#include "common/metrics.h"
#include "gateway/auth/auth.h"
#include "gateway/watch/hub.h"
#include "gateway/resources/handlers.h"
#include "scheduler/core/core.h"
#include "store/store.h"

#define EXPOSITION_TYPE "text/plain; version=0.0.4; charset=utf-8"

void handle_metrics(struct http_req *req)
{
    struct core_request creq = {.op = CORE_METRICS};
    if (core_call(req->gw->core, &creq) != 0) {
        http_respond_status(req, &creq.status);
        return;
    }
    json_decref(creq.body);
    struct sbuf out = {0};
    sbuf_puts(&out, creq.text ? creq.text : "");
    free(creq.text);
    metrics_family(&out, "caldera_events_committed_total", "counter",
                   "Events (state changes) the store's writer has committed since the server started.");
    sbuf_printf(&out, "caldera_events_committed_total %llu\n",
                (unsigned long long)store_events_committed(req->gw->store));
    size_t items, bytes;
    hub_stats(req->gw->hub, &items, &bytes);
    metrics_family(&out, "caldera_watch_cache_items", "gauge",
                   "Committed changes held in memory for watch and WebSocket streams to resume from exactly.");
    sbuf_printf(&out, "caldera_watch_cache_items %zu\n", items);
    metrics_family(&out, "caldera_watch_cache_bytes", "gauge", "What those changes cost in memory (their text).");
    sbuf_printf(&out, "caldera_watch_cache_bytes %zu\n", bytes);
    metrics_render_gateway(&out);
    metrics_family(&out, "caldera_audit_events_dropped_total", "counter",
                   "Audit events (refused requests) dropped because too many were waiting for the core.");
    sbuf_printf(&out, "caldera_audit_events_dropped_total %llu\n", (unsigned long long)auth_dropped_audits());
    if (out.failed) {
        sbuf_free(&out);
        struct api_status st = {0};
        api_fail(&st, 500, "InternalError", "out of memory rendering the metrics");
        http_respond_status(req, &st);
        return;
    }
    http_respond_text(req, 200, EXPOSITION_TYPE, sbuf_str(&out));
    sbuf_free(&out);
}
