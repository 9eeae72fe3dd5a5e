/* GET /metrics: the Prometheus text exposition (format 0.0.4). The core renders the live part (queues,
 * pods, jobs, the cycle histogram) on its thread; the gateway adds the nodes' allocatable and
 * allocated resources (from the core's node list) and what it and the store count. */
#include "gateway/http/metrics.h"

#include <stdlib.h>
#include <string.h>

#include "common/metrics.h"
#include "gateway/auth/auth.h"
#include "gateway/watch/hub.h"
#include "gateway/resources/handlers.h"
#include "model/resource.h"
#include "scheduler/core/core.h"
#include "scheduler/watchdog/notifier.h"
#include "store/store.h"

#define EXPOSITION_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* One node's amount of one resource, its quantity text read as the queues' families print it: cpu in
 * cores, memory and ephemeral-storage in bytes, the rest in units. A resource the server does not
 * know, or a quantity it cannot read, is left out. */
static void node_resource_sample(struct sbuf *out, const char *family, const char *node, const char *resource,
                                 const char *quantity)
{
    int r = resource_index(resource);
    int64_t value;
    const char *why;
    if (r < 0 || !quantity || resource_parse(r, quantity, &value, &why) != 0)
        return;
    sbuf_printf(out, "%s{node=\"", family);
    metrics_label_value(out, node);
    sbuf_puts(out, "\",resource=\"");
    metrics_label_value(out, resource);
    if (r == RES_CPU)
        sbuf_printf(out, "\",unit=\"core\"} %.15g\n", (double)value / 1000.0);
    else
        sbuf_printf(out, "\",unit=\"%s\"} %lld\n", r == RES_MEMORY || r == RES_EPHEMERAL ? "byte" : "integer",
                    (long long)value);
}

/* caldera_node_allocatable and caldera_node_allocated (kube-state-metrics' labels: node, resource,
 * unit), every resource a node makes allocatable, 0 allocated when nothing holds it. */
static void render_nodes(struct sbuf *out, const json_t *nodes)
{
    static const char *const families[2][3] = {
        {"caldera_node_allocatable", "allocatable",
         "Resources of the node that pods may request (status.allocatable)."},
        {"caldera_node_allocated", "allocated", "Resources requested by the pods that hold a place on the node."},
    };
    for (int f = 0; f < 2; f++) {
        metrics_family(out, families[f][0], "gauge", families[f][2]);
        size_t i;
        json_t *node;
        json_array_foreach(json_object_get(nodes, "items"), i, node)
        {
            const char *name = json_string_value(json_object_get(json_object_get(node, "metadata"), "name"));
            json_t *status = json_object_get(node, "status");
            json_t *amounts = json_object_get(status, families[f][1]);
            const char *resource;
            json_t *allocatable;
            json_object_foreach(json_object_get(status, "allocatable"), resource, allocatable)
            {
                const char *held = json_string_value(json_object_get(amounts, resource));
                node_resource_sample(out, families[f][0], name ? name : "", resource,
                                     f == 0 ? json_string_value(allocatable)
                                     : held ? held
                                            : "0");
            }
        }
    }
}

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
    struct core_request nodes = {.op = CORE_NODE_LIST};
    if (core_call(req->gw->core, &nodes) != 0) {
        sbuf_free(&out);
        http_respond_status(req, &nodes.status);
        return;
    }
    render_nodes(&out, nodes.body);
    json_decref(nodes.body);
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
    notifier_metrics(req->gw->notifier, &out);
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
