/* Sampling this machine's GPUs while the server runs: every period, NVML's utilisation and memory of
 * each device, posted to the core, which adds them to the attempts holding the devices. */
#ifndef CALDERA_DAEMON_GPU_SAMPLING_H
#define CALDERA_DAEMON_GPU_SAMPLING_H

#include <stdint.h>

#include "scheduler/core/core.h"

struct gpu_sampling;

/* Starts a thread that loads NVML (runtime/gpu/gpu_sampler.h; CALDERA_NVML_LIBRARY names another)
 * and posts every period_ms what it reads of the GPUs (core_post_gpu_samples). Nothing is started
 * (NULL) for a period of 0; the thread ends at once, saying why, when NVML cannot be loaded. */
struct gpu_sampling *gpu_sampling_start(struct core *core, int64_t period_ms);
/* Stops and frees it (NULL: nothing). */
void gpu_sampling_stop(struct gpu_sampling *s);

#endif
