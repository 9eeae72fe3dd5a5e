/* The pure sums of GPU samples an attempt keeps: which sample is a node device's, and one more
 * round into the mean and the peaks. */
#include "model/gpu_usage.h"

#include <string.h>

const struct gpu_sample *gpu_sample_for(const struct gpu_sample *samples, int n, const struct gpu_device *d)
{
    if (d->uuid[0])
        for (int i = 0; i < n; i++)
            if (strcmp(samples[i].uuid, d->uuid) == 0)
                return &samples[i];
    for (int i = 0; i < n; i++)
        if (samples[i].index == d->index)
            return &samples[i];
    return NULL;
}

int gpu_usage_add(struct gpu_usage *u, const struct gpu_set *s, uint64_t mask, const struct gpu_sample *samples, int n)
{
    int64_t util_total = 0, memory = 0, known = 0;
    int32_t peak = u->util_peak;
    for (int i = 0; i < s->count && i < GPU_DEVICES_MAX; i++) {
        if (!(mask & (UINT64_C(1) << i)))
            continue;
        const struct gpu_sample *g = gpu_sample_for(samples, n, &s->devices[i]);
        if (!g || g->util < 0)
            continue;
        known++;
        util_total += g->util;
        if (g->util > peak)
            peak = g->util;
        if (g->used_mib > 0)
            memory += g->used_mib;
    }
    if (known == 0)
        return 0;
    u->rounds++;
    u->util_sum += (double)util_total / (double)known;
    u->util_peak = peak;
    if (memory > u->memory_peak)
        u->memory_peak = memory;
    return 1;
}

double gpu_usage_mean(const struct gpu_usage *u) { return u->rounds > 0 ? u->util_sum / (double)u->rounds : -1.0; }
