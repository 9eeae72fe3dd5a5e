/* GPU sampling through NVML loaded with dlopen: utilisation (nvmlDeviceGetUtilizationRates) and
 * memory (nvmlDeviceGetMemoryInfo) of every device, with NVML's own signatures and structures. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/gpu/gpu_sampler.h"

typedef int nvml_return;   /* nvmlReturn_t: NVML_SUCCESS is 0 */
typedef void *nvml_device; /* nvmlDevice_t */
#define NVML_SUCCESS 0

struct nvml_memory { /* nvmlMemory_t */
    unsigned long long total, free, used;
};

struct nvml_utilization { /* nvmlUtilization_t */
    unsigned int gpu, memory;
};

struct gpu_sampler {
    void *lib;
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*count)(unsigned int *);
    nvml_return (*handle)(unsigned int, nvml_device *);
    nvml_return (*name)(nvml_device, char *, unsigned int);
    nvml_return (*uuid)(nvml_device, char *, unsigned int);
    nvml_return (*memory)(nvml_device, struct nvml_memory *);
    nvml_return (*utilization)(nvml_device, struct nvml_utilization *);
};

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
    s->lib = dlopen(where->nvml_library, RTLD_NOW | RTLD_LOCAL);
    if (!s->lib) {
        const char *why = dlerror();
        snprintf(err, errlen, "cannot load %s: %s", where->nvml_library, why ? why : "unknown error");
        free(s);
        return NULL;
    }
    *(void **)&s->init = dlsym(s->lib, "nvmlInit_v2");
    *(void **)&s->shutdown = dlsym(s->lib, "nvmlShutdown");
    *(void **)&s->count = dlsym(s->lib, "nvmlDeviceGetCount_v2");
    *(void **)&s->handle = dlsym(s->lib, "nvmlDeviceGetHandleByIndex_v2");
    *(void **)&s->name = dlsym(s->lib, "nvmlDeviceGetName");
    *(void **)&s->uuid = dlsym(s->lib, "nvmlDeviceGetUUID");
    *(void **)&s->memory = dlsym(s->lib, "nvmlDeviceGetMemoryInfo");
    *(void **)&s->utilization = dlsym(s->lib, "nvmlDeviceGetUtilizationRates");
    nvml_return rc = -1;
    if (!s->init || !s->shutdown || !s->count || !s->handle || !s->memory || !s->utilization)
        snprintf(err, errlen, "%s lacks the NVML functions sampling uses", where->nvml_library);
    else if ((rc = s->init()) != NVML_SUCCESS)
        snprintf(err, errlen, "nvmlInit_v2 failed with NVML error %d", rc);
    if (rc != NVML_SUCCESS) {
        dlclose(s->lib);
        free(s);
        return NULL;
    }
    return s;
}

int gpu_sampler_read(struct gpu_sampler *s, struct gpu_sample *out, int max, char *err, size_t errlen)
{
    unsigned int count = 0;
    nvml_return rc = s->count(&count);
    if (rc != NVML_SUCCESS) {
        snprintf(err, errlen, "nvmlDeviceGetCount_v2 failed with NVML error %d", rc);
        return -1;
    }
    int n = 0;
    for (unsigned int i = 0; i < count && n < max; i++) {
        nvml_device dev;
        if (s->handle(i, &dev) != NVML_SUCCESS)
            continue;
        struct gpu_sample *g = &out[n++];
        *g = (struct gpu_sample){.index = (int32_t)i, .util = -1, .used_mib = -1, .free_mib = -1};
        if (!s->uuid || s->uuid(dev, g->uuid, sizeof g->uuid) != NVML_SUCCESS)
            g->uuid[0] = '\0';
        if (!s->name || s->name(dev, g->model, sizeof g->model) != NVML_SUCCESS)
            g->model[0] = '\0';
        struct nvml_utilization u;
        if (s->utilization(dev, &u) == NVML_SUCCESS)
            g->util = (int32_t)(u.gpu > 100 ? 100 : u.gpu);
        struct nvml_memory m;
        if (s->memory(dev, &m) == NVML_SUCCESS) {
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
    s->shutdown();
    dlclose(s->lib);
    free(s);
}
