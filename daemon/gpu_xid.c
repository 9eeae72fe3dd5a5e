/* The Xid event thread: NVML's event wait in one-second slices (so it stops within one), each critical
 * Xid matched to the default node's devices and posted to the core, which owns their health. The
 * application Xids the device plugin ignores are logged only. */
#include "daemon/gpu_xid.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "runtime/gpu/gpu_events.h"

#define WAIT_SLICE_MS 1000

struct gpu_xid_watch {
    struct core *core;
    char node[256];
    struct gpu_set known;
    struct gpu_events *events;
    pthread_t thread;
    atomic_bool stopping;
};

/* Whether the event is about device d: the GPU itself, or a MIG device of it (the one the event's
 * instance ids name, or each of them when it names none). An event with no UUID is about every one. */
static bool event_names(const struct gpu_xid_event *ev, const struct gpu_device *d)
{
    if (!ev->uuid[0])
        return true;
    if (!d->mig)
        return strcmp(d->uuid, ev->uuid) == 0;
    if (strcmp(d->parent_uuid, ev->uuid) != 0)
        return false;
    if (ev->gpu_instance == 0xFFFFFFFFu || ev->compute_instance == 0xFFFFFFFFu)
        return true;
    return d->gpu_instance == ev->gpu_instance && d->compute_instance == ev->compute_instance;
}

static void post_unhealthy(struct gpu_xid_watch *w, const struct gpu_device *d, unsigned long long xid, const char *why)
{
    struct gpu_health_change change = {.index = d->index, .healthy = false, .xid = (int32_t)xid};
    snprintf(change.node, sizeof change.node, "%s", w->node);
    snprintf(change.uuid, sizeof change.uuid, "%s", d->uuid);
    snprintf(change.reason, sizeof change.reason, "GPUUnhealthy");
    if (why)
        snprintf(change.message, sizeof change.message, "GPU %d (%s) is unhealthy: %s", (int)d->index,
                 d->uuid[0] ? d->uuid : "no UUID", why);
    else if (d->mig)
        snprintf(change.message, sizeof change.message,
                 "MIG device %d (%s) of GPU %s is unhealthy: critical Xid %llu (GPU instance %u, compute instance %u)",
                 (int)d->index, d->uuid, d->parent_uuid, xid, d->gpu_instance, d->compute_instance);
    else
        snprintf(change.message, sizeof change.message, "GPU %d (%s) is unhealthy: critical Xid %llu", (int)d->index,
                 d->uuid[0] ? d->uuid : "no UUID", xid);
    if (core_post_gpu_health(w->core, &change) != 0)
        log_warn("node %s: %s (not recorded: the core's mailbox is full)", w->node, change.message);
}

static void *xid_loop(void *arg)
{
    struct gpu_xid_watch *w = arg;
    while (!atomic_load(&w->stopping)) {
        struct gpu_xid_event ev;
        char err[256];
        int got = gpu_events_wait(w->events, WAIT_SLICE_MS, &ev, err, sizeof err);
        if (got < 0) { /* as the device plugin: NVML failing to wait is every device failing */
            log_warn("GPU Xid watch: %s; every GPU is marked unhealthy and the watch ends", err);
            for (int i = 0; i < w->known.count; i++)
                post_unhealthy(w, &w->known.devices[i], 0, err);
            break;
        }
        if (got == 0)
            continue;
        if (gpu_xid_is_application_error(ev.xid)) {
            log_info("GPU %s: Xid %llu, an application's error: the GPU stays healthy", ev.uuid, ev.xid);
            continue;
        }
        int matched = 0;
        for (int i = 0; i < w->known.count; i++)
            if (event_names(&ev, &w->known.devices[i])) {
                post_unhealthy(w, &w->known.devices[i], ev.xid, NULL);
                matched++;
            }
        if (matched == 0)
            log_info("GPU %s: critical Xid %llu on a device the node does not list", ev.uuid, ev.xid);
    }
    return NULL;
}

struct gpu_xid_watch *gpu_xid_start(struct core *core, const char *node_name, const struct gpu_set *known)
{
    if (known->count == 0)
        return NULL;
    struct gpu_discovery where = gpu_discovery_from_env();
    char err[256] = "";
    struct gpu_events *events = gpu_events_open(&where, err, sizeof err);
    if (!events) {
        log_info("GPU Xid watch not started: %s", err);
        return NULL;
    }
    struct gpu_xid_watch *w = calloc(1, sizeof *w);
    if (!w || gpu_set_copy(&w->known, known) != 0) {
        free(w);
        gpu_events_close(events);
        log_warn("GPU Xid watch: out of memory; Xid errors will not be reported");
        return NULL;
    }
    w->core = core;
    w->events = events;
    snprintf(w->node, sizeof w->node, "%s", node_name);
    atomic_init(&w->stopping, false);
    if (pthread_create(&w->thread, NULL, xid_loop, w) != 0) {
        log_warn("GPU Xid watch: cannot start its thread; Xid errors will not be reported");
        gpu_set_clear(&w->known);
        gpu_events_close(events);
        free(w);
        return NULL;
    }
    log_info("GPU Xid watch started for %d device%s of node %s", known->count, known->count == 1 ? "" : "s", node_name);
    return w;
}

void gpu_xid_stop(struct gpu_xid_watch *w)
{
    if (!w)
        return;
    atomic_store(&w->stopping, true);
    pthread_join(w->thread, NULL);
    gpu_events_close(w->events);
    gpu_set_clear(&w->known);
    free(w);
}
