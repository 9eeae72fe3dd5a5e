/* NVML loaded with dlopen (nvml_api.h): the entry points looked up once for discovery, sampling
 * and the Xid event watch, and NVML initialised and shut down. */
#include "runtime/gpu/nvml_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void find_entry_points(struct nvml_api *api)
{
    *(void **)&api->init = dlsym(api->lib, "nvmlInit_v2");
    *(void **)&api->shutdown = dlsym(api->lib, "nvmlShutdown");
    *(void **)&api->count = dlsym(api->lib, "nvmlDeviceGetCount_v2");
    *(void **)&api->handle = dlsym(api->lib, "nvmlDeviceGetHandleByIndex_v2");
    *(void **)&api->name = dlsym(api->lib, "nvmlDeviceGetName");
    *(void **)&api->uuid = dlsym(api->lib, "nvmlDeviceGetUUID");
    *(void **)&api->memory = dlsym(api->lib, "nvmlDeviceGetMemoryInfo");
    *(void **)&api->pci = dlsym(api->lib, "nvmlDeviceGetPciInfo_v3");
    *(void **)&api->utilization = dlsym(api->lib, "nvmlDeviceGetUtilizationRates");
    *(void **)&api->mig_mode = dlsym(api->lib, "nvmlDeviceGetMigMode");
    *(void **)&api->mig_count = dlsym(api->lib, "nvmlDeviceGetMaxMigDeviceCount");
    *(void **)&api->mig_handle = dlsym(api->lib, "nvmlDeviceGetMigDeviceHandleByIndex");
    *(void **)&api->gpu_instance_id = dlsym(api->lib, "nvmlDeviceGetGpuInstanceId");
    *(void **)&api->compute_instance_id = dlsym(api->lib, "nvmlDeviceGetComputeInstanceId");
    *(void **)&api->attributes = dlsym(api->lib, "nvmlDeviceGetAttributes_v2");
    *(void **)&api->event_set_create = dlsym(api->lib, "nvmlEventSetCreate");
    *(void **)&api->event_set_free = dlsym(api->lib, "nvmlEventSetFree");
    *(void **)&api->supported_events = dlsym(api->lib, "nvmlDeviceGetSupportedEventTypes");
    *(void **)&api->register_events = dlsym(api->lib, "nvmlDeviceRegisterEvents");
    *(void **)&api->event_wait = dlsym(api->lib, "nvmlEventSetWait_v2");
}

int nvml_api_open(const char *library, const char *user, int (*needs)(const struct nvml_api *api), struct nvml_api *api,
                  char *err, size_t errlen)
{
    memset(api, 0, sizeof *api);
    api->lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!api->lib) {
        const char *why = dlerror();
        snprintf(err, errlen, "cannot load %s: %s", library, why ? why : "unknown error");
        return -2;
    }
    find_entry_points(api);
    nvml_return rc = -1;
    if (!api->init || !api->shutdown || !api->count || !api->handle || (needs && !needs(api)))
        snprintf(err, errlen, "%s lacks the NVML functions %s uses", library, user);
    else if ((rc = api->init()) != NVML_SUCCESS)
        snprintf(err, errlen, "nvmlInit_v2 failed with NVML error %d", rc);
    if (rc != NVML_SUCCESS) {
        dlclose(api->lib);
        memset(api, 0, sizeof *api);
        return -1;
    }
    return 0;
}

void nvml_api_close(struct nvml_api *api)
{
    if (!api->lib)
        return;
    api->shutdown();
    dlclose(api->lib);
    memset(api, 0, sizeof *api);
}
