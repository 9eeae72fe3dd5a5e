/* GPU samples on the core thread: each round from the sampling thread is added to every live attempt
 * holding GPUs (its slot's sums, recorded when it ends) and kept as the devices' latest state, which
 * GET /metrics shows under the DCGM exporter's names with the pod holding each device. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scheduler/core/internal.h"

void core_handle_gpu_samples(struct core *c, struct core_request *req)
{
    int n = req->ngpu_samples;
    struct gpu_sample *copy = n > 0 ? malloc((size_t)n * sizeof *copy) : NULL;
    if (n > 0 && copy)
        memcpy(copy, req->gpu_samples, (size_t)n * sizeof *copy);
    free(c->gpu_last);
    c->gpu_last = copy;
    c->ngpu_last = copy ? n : 0;
    for (int i = 0; i < c->nslots; i++) {
        struct proc_slot *s = &c->slots[i];
        if (!s->job)
            continue;
        const struct replica *r = &s->job->replicas[s->flat];
        if (r->gpus_held && r->node >= 0 && r->node < c->cluster.nnodes)
            gpu_usage_add(&s->gpu, &c->cluster.nodes[r->node].gpus, r->gpus, req->gpu_samples, n);
    }
}

/* For each kept sample, the live slot whose attempt holds that device, or -1. */
static void find_holders(const struct core *c, int *holder)
{
    for (int k = 0; k < c->ngpu_last; k++)
        holder[k] = -1;
    for (int i = 0; i < c->nslots; i++) {
        const struct proc_slot *s = &c->slots[i];
        if (!s->job)
            continue;
        const struct replica *r = &s->job->replicas[s->flat];
        if (!r->gpus_held || r->node < 0 || r->node >= c->cluster.nnodes)
            continue;
        const struct gpu_set *set = &c->cluster.nodes[r->node].gpus;
        for (int d = 0; d < set->count && d < GPU_DEVICES_MAX; d++) {
            if (!(r->gpus & (UINT64_C(1) << d)))
                continue;
            const struct gpu_sample *g = gpu_sample_for(c->gpu_last, c->ngpu_last, &set->devices[d]);
            if (g)
                holder[g - c->gpu_last] = i;
        }
    }
}

static void label(struct sbuf *out, const char *sep, const char *name, const char *value)
{
    sbuf_printf(out, "%s%s=\"", sep, name);
    metrics_label_value(out, value);
    sbuf_puts(out, "\"");
}

static void device_labels(const struct core *c, struct sbuf *out, int k, int slot, const char *host)
{
    const struct gpu_sample *g = &c->gpu_last[k];
    char number[16], device[32];
    snprintf(number, sizeof number, "%d", (int)g->index);
    snprintf(device, sizeof device, "nvidia%d", (int)g->index);
    label(out, "{", "gpu", number);
    label(out, ",", "UUID", g->uuid);
    label(out, ",", "device", device);
    label(out, ",", "modelName", g->model);
    label(out, ",", "Hostname", host);
    if (slot < 0) {
        sbuf_puts(out, "}");
        return;
    }
    const struct job *job = c->slots[slot].job;
    int flat = c->slots[slot].flat, task = job_task_of(job, flat);
    char pod[320];
    job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
    const char *container = job->tasks[task].container_name;
    label(out, ",", "pod", pod);
    label(out, ",", "namespace", job->ns);
    label(out, ",", "container", container ? container : job->tasks[task].name);
    sbuf_puts(out, "}");
}

enum { FIELD_UTIL, FIELD_FB_USED, FIELD_FB_FREE, FIELD_COUNT };

static int64_t field_value(const struct gpu_sample *g, int field)
{
    return field == FIELD_UTIL ? g->util : field == FIELD_FB_USED ? g->used_mib : g->free_mib;
}

void core_render_gpu_metrics(struct core *c, struct sbuf *out)
{
    static const char *const names[FIELD_COUNT] = {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED",
                                                   "DCGM_FI_DEV_FB_FREE"};
    static const char *const helps[FIELD_COUNT] = {
        "GPU utilization (in %), as the DCGM exporter names it; this machine's GPUs as Caldera last sampled them.",
        "Framebuffer memory used (in MiB), as the DCGM exporter names it.",
        "Framebuffer memory free (in MiB), as the DCGM exporter names it."};
    if (c->ngpu_last == 0)
        return;
    int *holder = calloc((size_t)c->ngpu_last, sizeof *holder);
    if (!holder) {
        out->failed = true;
        return;
    }
    find_holders(c, holder);
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    for (int f = 0; f < FIELD_COUNT; f++) {
        metrics_family(out, names[f], "gauge", helps[f]);
        for (int k = 0; k < c->ngpu_last; k++) {
            int64_t v = field_value(&c->gpu_last[k], f);
            if (v < 0)
                continue;
            sbuf_puts(out, names[f]);
            device_labels(c, out, k, holder[k], host);
            sbuf_printf(out, " %lld\n", (long long)v);
        }
    }
    free(holder);
}
