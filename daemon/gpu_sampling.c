/* The GPU sampling thread: NVML loaded once, then every period each device's utilisation and memory
 * read and posted to the core. NVML is only ever called here, never on the core's thread; a round
 * the core's mailbox drops is simply missed (the next one counts). */
#include "daemon/gpu_sampling.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "common/log.h"
#include "runtime/gpu/gpu_sampler.h"

struct gpu_sampling {
    struct core *core;
    int64_t period_ms;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stopping;
};

static void sample_once(struct gpu_sampling *s, struct gpu_sampler *nvml, struct gpu_sample *buf, bool *warned)
{
    char err[256];
    int n = gpu_sampler_read(nvml, buf, GPU_DEVICES_MAX, err, sizeof err);
    if (n < 0) {
        if (!*warned)
            log_warn("GPU sampling: %s", err);
        *warned = true;
        return;
    }
    *warned = false;
    core_post_gpu_samples(s->core, buf, n);
}

/* Waits one period; false once stopping. */
static bool wait_period(struct gpu_sampling *s)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += s->period_ms / 1000;
    until.tv_nsec += (s->period_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->lock);
    while (!s->stopping && pthread_cond_timedwait(&s->wake, &s->lock, &until) == 0) {
    }
    bool go_on = !s->stopping;
    pthread_mutex_unlock(&s->lock);
    return go_on;
}

static void *sampling_loop(void *arg)
{
    struct gpu_sampling *s = arg;
    struct gpu_discovery where = gpu_discovery_from_env();
    char err[512];
    struct gpu_sampler *nvml = gpu_sampler_open(&where, err, sizeof err);
    if (!nvml) {
        log_info("GPU sampling off: %s", err);
        return NULL;
    }
    struct gpu_sample *buf = calloc(GPU_DEVICES_MAX, sizeof *buf);
    bool warned = false;
    if (buf)
        do
            sample_once(s, nvml, buf, &warned);
        while (wait_period(s));
    else
        log_warn("GPU sampling off: out of memory");
    free(buf);
    gpu_sampler_close(nvml);
    return NULL;
}

struct gpu_sampling *gpu_sampling_start(struct core *core, int64_t period_ms)
{
    if (period_ms <= 0)
        return NULL;
    struct gpu_sampling *s = calloc(1, sizeof *s);
    if (!s) {
        log_warn("GPU sampling: out of memory; GPU usage will not be recorded");
        return NULL;
    }
    s->core = core;
    s->period_ms = period_ms;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&s->lock, NULL);
    if (pthread_create(&s->thread, NULL, sampling_loop, s) != 0) {
        log_warn("GPU sampling: cannot start its thread; GPU usage will not be recorded");
        pthread_cond_destroy(&s->wake);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    return s;
}

void gpu_sampling_stop(struct gpu_sampling *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
