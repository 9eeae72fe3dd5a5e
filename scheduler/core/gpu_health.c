/* GPU health on the core thread: a device turned unhealthy or healthy again (posted by the daemon's
 * Xid event thread and GPU recheck) goes to the controller, and GET /metrics shows each node device's
 * last critical Xid under the DCGM exporter's name, and whether Caldera counts it as healthy. */
#include <stdio.h>

#include "scheduler/core/internal.h"

void core_handle_gpu_health(struct core *c, struct core_request *req)
{
    if (req->gpu_health)
        controller_gpu_health(&c->ctl, req->gpu_health);
}

static void label(struct sbuf *out, const char *sep, const char *name, const char *value)
{
    sbuf_printf(out, "%s%s=\"", sep, name);
    metrics_label_value(out, value);
    sbuf_puts(out, "\"");
}

/* The DCGM exporter's labels (its own camelCase names, so its dashboards work): gpu (a MIG device's
 * parent GPU, with GPU_I_ID), UUID, device, modelName (the node's product label), Hostname (the
 * node); Caldera's family has them in snake_case: node, gpu, uuid. */
static void device_labels(struct sbuf *out, const struct node *n, const struct gpu_device *d, bool dcgm)
{
    int gpu = d->mig ? d->index / 100 - 1 : (int)d->index; /* MIG devices are numbered 100 * (GPU + 1) + j */
    char number[16], device[32], instance[16];
    snprintf(number, sizeof number, "%d", gpu);
    if (!dcgm) {
        label(out, "{", "node", n->name);
        snprintf(number, sizeof number, "%d", (int)d->index);
        label(out, ",", "gpu", number);
        label(out, ",", "uuid", d->uuid);
        sbuf_puts(out, "}");
        return;
    }
    snprintf(device, sizeof device, "nvidia%d", gpu);
    const char *model = json_string_value(json_object_get(n->labels, "nvidia.com/gpu.product"));
    label(out, "{", "gpu", number);
    label(out, ",", "UUID", d->uuid);
    label(out, ",", "device", device);
    label(out, ",", "modelName", model ? model : "");
    label(out, ",", "Hostname", n->name);
    if (d->mig) {
        snprintf(instance, sizeof instance, "%u", d->gpu_instance);
        label(out, ",", "GPU_I_ID", instance);
    }
    sbuf_puts(out, "}");
}

void core_render_gpu_health_metrics(struct core *c, struct sbuf *out)
{
    static const char *const names[2] = {"DCGM_FI_DEV_XID_ERRORS", "caldera_gpu_healthy"};
    static const char *const helps[2] = {
        "Value of the last critical Xid error the device reported (0: none since the server started), as the "
        "DCGM exporter names it.",
        "1 while Caldera counts the GPU device in its node's allocatable nvidia.com/gpu, 0 while it is unhealthy "
        "(a critical Xid, or gone from the driver)."};
    bool any = false;
    for (int i = 0; i < c->cluster.nnodes && !any; i++)
        any = c->cluster.nodes[i].gpus.count > 0;
    if (!any)
        return;
    for (int f = 0; f < 2; f++) {
        metrics_family(out, names[f], "gauge", helps[f]);
        for (int i = 0; i < c->cluster.nnodes; i++) {
            const struct node *n = &c->cluster.nodes[i];
            for (int k = 0; k < n->gpus.count; k++) {
                const struct gpu_device *d = &n->gpus.devices[k];
                sbuf_puts(out, names[f]);
                device_labels(out, n, d, f == 0);
                long long v = f == 0 ? d->last_xid : !(n->gpus.unhealthy & (UINT64_C(1) << k));
                sbuf_printf(out, " %lld\n", v);
            }
        }
    }
}
