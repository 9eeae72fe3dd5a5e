/* GPU sampling through NVML (nvml_api.h, loaded with dlopen): utilisation
 * (nvmlDeviceGetUtilizationRates) and memory (nvmlDeviceGetMemoryInfo) of every device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/gpu/gpu_sampler.h"
#include "runtime/gpu/nvml_api.h"

struct gpu_sampler {
    struct nvml_api api;
};

static int sampling_needs(const struct nvml_api *api) { return api->memory && api->utilization; }

struct gpu_sampler *gpu_sampler_open(const struct gpu_discovery *where, char *err, size_t errlen)
{
    if (strcmp(where->nvml_library, "none") == 0) {
        snprintf(err, errlen, "NVML is turned off (CALDERA_NVML_LIBRARY=none)");
        return NULL;
    }
    struct gpu_sampler *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (nvml_api_open(where->nvml_library, "sampling", sampling_needs, &s->api, err, errlen) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

int gpu_sampler_read(struct gpu_sampler *s, struct gpu_sample *out, int max, char *err, size_t errlen)
{
    unsigned int count = 0;
    const struct nvml_api *api = &s->api;
    nvml_return rc = api->count(&count);
    if (rc != NVML_SUCCESS) {
        snprintf(err, errlen, "nvmlDeviceGetCount_v2 failed with NVML error %d", rc);
        return -1;
    }
    int n = 0;
    for (unsigned int i = 0; i < count && n < max; i++) {
        nvml_device dev;
        if (api->handle(i, &dev) != NVML_SUCCESS)
            continue;
        struct gpu_sample *g = &out[n++];
        *g = (struct gpu_sample){.index = (int32_t)i, .util = -1, .used_mib = -1, .free_mib = -1};
        if (!api->uuid || api->uuid(dev, g->uuid, sizeof g->uuid) != NVML_SUCCESS)
            g->uuid[0] = '\0';
        if (!api->name || api->name(dev, g->model, sizeof g->model) != NVML_SUCCESS)
            g->model[0] = '\0';
        struct nvml_utilization u;
        if (api->utilization(dev, &u) == NVML_SUCCESS)
            g->util = (int32_t)(u.gpu > 100 ? 100 : u.gpu);
        struct nvml_memory m;
        if (api->memory(dev, &m) == NVML_SUCCESS) {
            g->used_mib = (int64_t)(m.used >> 20);
            g->free_mib = (int64_t)(m.free >> 20);
        }
    }
    return n;
}

void gpu_sampler_close(struct gpu_sampler *s)
{
    if (!s)
        return;
    nvml_api_close(&s->api);
    free(s);
}
