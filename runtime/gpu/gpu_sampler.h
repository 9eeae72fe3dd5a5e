/* Reading this machine's GPUs' utilisation and memory through NVML, again and again: the library is
 * loaded and initialised once (dlopen, as discovery does) and each read asks every device. */
#ifndef CALDERA_RUNTIME_GPU_SAMPLER_H
#define CALDERA_RUNTIME_GPU_SAMPLER_H

#include <stddef.h>

#include "model/gpu_usage.h"
#include "runtime/gpu/gpu_discover.h"

struct gpu_sampler;

/* Loads and initialises NVML (where->nvml_library). Returns NULL with a sentence in err when it
 * cannot (no driver, a library without the functions used) or is told not to ("none"). */
struct gpu_sampler *gpu_sampler_open(const struct gpu_discovery *where, char *err, size_t errlen);
/* Reads up to max devices into out: each one's index, UUID, model, utilisation and memory (a value
 * NVML refuses is -1). Returns how many, or -1 with a sentence in err when the device count fails. */
int gpu_sampler_read(struct gpu_sampler *s, struct gpu_sample *out, int max, char *err, size_t errlen);
/* Shuts NVML down and unloads it (NULL: nothing). */
void gpu_sampler_close(struct gpu_sampler *s);

#endif
