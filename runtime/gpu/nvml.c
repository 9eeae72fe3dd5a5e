/* GPU discovery through NVML, loaded with dlopen so the server builds and runs without the driver.
 * Only the few entry points used are declared here, with NVML's own signatures and structures. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "runtime/gpu/gpu_discover.h"

typedef int nvml_return;   /* nvmlReturn_t: NVML_SUCCESS is 0 */
typedef void *nvml_device; /* nvmlDevice_t: an opaque handle */
#define NVML_SUCCESS 0
#define NVML_NAME_BUFFER 96 /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define NVML_UUID_BUFFER 96 /* NVML_DEVICE_UUID_V2_BUFFER_SIZE */

struct nvml_memory { /* nvmlMemory_t */
    unsigned long long total, free, used;
};

struct nvml_pci_info { /* nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it */
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
};

struct nvml_api {
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*count)(unsigned int *);
    nvml_return (*handle)(unsigned int, nvml_device *);
    nvml_return (*name)(nvml_device, char *, unsigned int);
    nvml_return (*uuid)(nvml_device, char *, unsigned int);
    nvml_return (*memory)(nvml_device, struct nvml_memory *);
    nvml_return (*pci)(nvml_device, struct nvml_pci_info *);
};

static int load_api(void *lib, struct nvml_api *api)
{
    *(void **)&api->init = dlsym(lib, "nvmlInit_v2");
    *(void **)&api->shutdown = dlsym(lib, "nvmlShutdown");
    *(void **)&api->count = dlsym(lib, "nvmlDeviceGetCount_v2");
    *(void **)&api->handle = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    *(void **)&api->name = dlsym(lib, "nvmlDeviceGetName");
    *(void **)&api->uuid = dlsym(lib, "nvmlDeviceGetUUID");
    *(void **)&api->memory = dlsym(lib, "nvmlDeviceGetMemoryInfo");
    *(void **)&api->pci = dlsym(lib, "nvmlDeviceGetPciInfo_v3");
    return api->init && api->shutdown && api->count && api->handle && api->name && api->uuid ? 0 : -1;
}

/* sysfs spells a PCI address with a 4-digit domain in lower case; NVML's busId has 8 digits. */
static int pci_numa(const char *root, const struct nvml_pci_info *pci)
{
    char id[32];
    snprintf(id, sizeof id, "%04x:%02x:%02x.0", pci->domain & 0xffffu, pci->bus & 0xffu, pci->device & 0xffu);
    return gpu_pci_numa_node(root, id);
}

static int read_devices(const struct nvml_api *api, const struct gpu_discovery *where, struct machine *m, char *err,
                        size_t errlen)
{
    unsigned int count = 0;
    nvml_return rc = api->count(&count);
    if (rc != NVML_SUCCESS) {
        snprintf(err, errlen, "nvmlDeviceGetCount_v2 failed with NVML error %d", rc);
        return -1;
    }
    for (unsigned int i = 0; i < count && i < GPU_DEVICES_MAX; i++) {
        nvml_device dev;
        if ((rc = api->handle(i, &dev)) != NVML_SUCCESS) {
            snprintf(err, errlen, "nvmlDeviceGetHandleByIndex_v2(%u) failed with NVML error %d", i, rc);
            return -1;
        }
        struct gpu_device d = {.index = (int32_t)i, .numa = -1};
        char name[NVML_NAME_BUFFER] = "";
        if (api->uuid(dev, d.uuid, sizeof d.uuid) != NVML_SUCCESS)
            d.uuid[0] = '\0';
        if (api->name(dev, name, sizeof name) == NVML_SUCCESS && !m->gpu_product[0])
            snprintf(m->gpu_product, sizeof m->gpu_product, "%s", name);
        struct nvml_memory mem;
        if (api->memory && api->memory(dev, &mem) == NVML_SUCCESS)
            d.memory_mib = (int64_t)(mem.total >> 20);
        struct nvml_pci_info pci;
        if (api->pci && api->pci(dev, &pci) == NVML_SUCCESS)
            d.numa = pci_numa(where->root, &pci);
        if (gpu_set_add(&m->gpus, &d) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    return m->gpus.count;
}

int gpu_discover_nvml(const struct gpu_discovery *where, struct machine *m, char *err, size_t errlen)
{
    gpu_set_clear(&m->gpus);
    m->gpu_product[0] = '\0';
    void *lib = dlopen(where->nvml_library, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(err, errlen, "cannot load %s: %s", where->nvml_library, why ? why : "unknown error");
        return -2;
    }
    struct nvml_api api;
    int found = -1;
    if (load_api(lib, &api) != 0) {
        snprintf(err, errlen, "%s lacks the NVML functions Caldera uses", where->nvml_library);
    } else {
        nvml_return rc = api.init();
        if (rc != NVML_SUCCESS) {
            snprintf(err, errlen, "nvmlInit_v2 failed with NVML error %d", rc);
        } else {
            found = read_devices(&api, where, m, err, errlen);
            api.shutdown();
        }
    }
    dlclose(lib);
    if (found < 0) {
        gpu_set_clear(&m->gpus);
        m->gpu_product[0] = '\0';
    }
    return found;
}
