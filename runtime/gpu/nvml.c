/* GPU discovery through NVML (nvml_api.h: loaded with dlopen, so the server builds and runs without
 * the driver): each device's index, UUID, memory and NUMA node, and the product's name. */
#include <stdio.h>
#include <string.h>

#include "runtime/gpu/gpu_discover.h"
#include "runtime/gpu/nvml_api.h"

/* Discovery needs each device's name and UUID; memory and PCI place are read when NVML has them. */
static int discovery_needs(const struct nvml_api *api) { return api->name && api->uuid; }

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
    struct nvml_api api;
    int found = nvml_api_open(where->nvml_library, "Caldera", discovery_needs, &api, err, errlen);
    if (found == 0) {
        found = read_devices(&api, where, m, err, errlen);
        nvml_api_close(&api);
    }
    if (found < 0) {
        gpu_set_clear(&m->gpus);
        m->gpu_product[0] = '\0';
    }
    return found;
}
