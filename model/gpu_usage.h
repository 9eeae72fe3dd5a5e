/* What the GPU sampler reads of each device (utilisation, memory used and free) and the pure sums an
 * attempt keeps of its devices' samples: mean and peak utilisation, peak memory used. */
#ifndef CALDERA_GPU_USAGE_H
#define CALDERA_GPU_USAGE_H

#include <stdint.h>

#include "model/gpu.h"

/* One device at one moment, as NVML reports it. */
struct gpu_sample {
    int32_t index;              /* NVML's device index */
    char uuid[GPU_UUID_MAX];    /* "" when unknown */
    char model[96];             /* "NVIDIA H100 80GB HBM3", "" when unknown */
    int32_t util;               /* percent of the last sample period a kernel ran, -1 when unknown */
    int64_t used_mib, free_mib; /* -1 when unknown */
};

/* An attempt's devices over its life: one entry per sampling round that saw any of them. */
struct gpu_usage {
    int64_t rounds;      /* rounds summed */
    double util_sum;     /* each round's mean utilisation over the attempt's devices */
    int32_t util_peak;   /* the highest utilisation any of its devices showed, percent */
    int64_t memory_peak; /* the highest memory used of its devices together in one round, MiB */
};

/* The sample of the node device d: the one with d's UUID, else (no sample has it: a virtual node
 * listing this machine's devices by index) the one with d's index; NULL when none. */
const struct gpu_sample *gpu_sample_for(const struct gpu_sample *samples, int n, const struct gpu_device *d);

/* Adds one round: the samples of the mask's devices of s. Devices without a sample, or whose
 * utilisation is unknown, are left out; a round where none is known adds nothing. Returns whether
 * the round counted. */
int gpu_usage_add(struct gpu_usage *u, const struct gpu_set *s, uint64_t mask, const struct gpu_sample *samples, int n);

/* The mean utilisation over the rounds, percent; -1 with none. */
double gpu_usage_mean(const struct gpu_usage *u);

#endif
