/* The GPU watch thread: a periodic discovery compared with the devices the default node was made
 * with. A device is matched by its UUID (by its index when it has none); a driver that stops
 * answering loses every device at once. Discovery runs on this thread, never on the core's; a device
 * gone or back is posted to the core as its health (the path Xid errors take), which records it. */
#include "daemon/gpu_watch.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "runtime/gpu/gpu_discover.h"

struct gpu_watch {
    struct core *core;
    char *node;
    struct gpu_set known;
    bool missing[GPU_DEVICES_MAX]; /* what the last Event said of each known device */
    int64_t period_ms;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stopping;
};

static bool same_device(const struct gpu_device *a, const struct gpu_device *b)
{
    return a->uuid[0] || b->uuid[0] ? strcmp(a->uuid, b->uuid) == 0 : a->index == b->index;
}

static bool seen(const struct gpu_set *now, const struct gpu_device *d)
{
    for (int i = 0; i < now->count; i++)
        if (same_device(&now->devices[i], d))
            return true;
    return false;
}

static void check_once(struct gpu_watch *w)
{
    struct gpu_discovery where = gpu_discovery_from_env();
    struct machine m = {0};
    int found = gpu_discover(&where, &m);
    for (int i = 0; i < w->known.count; i++) {
        const struct gpu_device *d = &w->known.devices[i];
        bool gone = !seen(&m.gpus, d);
        if (gone == w->missing[i])
            continue;
        char message[512];
        snprintf(message, sizeof message,
                 gone ? "GPU %d (%s) is no longer visible: discovery finds %d of the node's %d GPUs"
                      : "GPU %d (%s) is visible again: discovery finds %d of the node's %d GPUs",
                 (int)d->index, d->uuid[0] ? d->uuid : "no UUID", found, w->known.count);
        /* the core takes it out of the node's allocatable, or gives it back, and records the Event */
        struct gpu_health_change change = {.index = d->index, .healthy = !gone};
        snprintf(change.node, sizeof change.node, "%s", w->node);
        snprintf(change.uuid, sizeof change.uuid, "%s", d->uuid);
        snprintf(change.reason, sizeof change.reason, "%s", gone ? "GPUUnavailable" : "GPUAvailable");
        snprintf(change.message, sizeof change.message, "%s", message);
        if (core_post_gpu_health(w->core, &change) == 0)
            w->missing[i] = gone; /* a dropped change is posted again at the next check */
    }
    gpu_set_clear(&m.gpus);
}

static void *watch_loop(void *arg)
{
    struct gpu_watch *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += w->period_ms / 1000;
        until.tv_nsec += (w->period_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!w->stopping && pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0) {
        }
        if (w->stopping)
            break;
        pthread_mutex_unlock(&w->lock);
        check_once(w);
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

struct gpu_watch *gpu_watch_start(struct core *core, const char *node_name, const struct gpu_set *known,
                                  int64_t period_ms)
{
    if (period_ms <= 0 || known->count == 0)
        return NULL;
    struct gpu_watch *w = calloc(1, sizeof *w);
    if (!w || !(w->node = strdup(node_name)) || gpu_set_copy(&w->known, known) != 0) {
        if (w)
            free(w->node);
        free(w);
        log_warn("GPU watch: out of memory; GPUs that disappear will not be reported");
        return NULL;
    }
    w->core = core;
    w->period_ms = period_ms;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&w->lock, NULL);
    if (pthread_create(&w->thread, NULL, watch_loop, w) != 0) {
        log_warn("GPU watch: cannot start its thread; GPUs that disappear will not be reported");
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        gpu_set_clear(&w->known);
        free(w->node);
        free(w);
        return NULL;
    }
    return w;
}

void gpu_watch_stop(struct gpu_watch *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stopping = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    gpu_set_clear(&w->known);
    free(w->node);
    free(w);
}
