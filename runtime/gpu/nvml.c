/* GPU discovery through NVML (nvml_api.h: loaded with dlopen, so the server builds and runs without
 * the driver): each device's index, UUID, memory and NUMA node, and the product's name. A GPU in MIG
 * mode gives its MIG devices instead (the device plugin's `single` strategy). */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
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

/* The MIG profile's name as GPU feature discovery writes it (go-nvlib's MigProfile): "1g.10gb", or
 * "1c.2g.20gb" when the compute instance has fewer slices than its GPU instance. Its GB are the
 * instance's share of the parent's memory rounded up to eighths, times the parent's memory in GB
 * rounded up, rounded. Media extensions ("+me") are not in the attributes and are left out. */
void gpu_mig_profile_name(unsigned int gi_slices, unsigned int ci_slices, unsigned long long memory_mb,
                          unsigned long long parent_bytes, char *buf, size_t len)
{
    unsigned long long eighths = parent_bytes ? (memory_mb * 1048576ULL * 8 + parent_bytes - 1) / parent_bytes : 0;
    unsigned long long parent_gb = (parent_bytes + (1ULL << 30) - 1) >> 30;
    unsigned long long gb = (eighths * parent_gb + 4) / 8;
    if (ci_slices == gi_slices)
        snprintf(buf, len, "%ug.%llugb", gi_slices, gb);
    else
        snprintf(buf, len, "%uc.%ug.%llugb", ci_slices, gi_slices, gb);
}

/* What discovery saw of MIG across the GPUs, for the product label: GFD's single strategy names
 * the one profile, or "INVALID" when GPUs with and without MIG, or two profiles, are mixed, or a GPU
 * in MIG mode has no MIG device. */
struct mig_survey {
    int full_gpus, mig_gpus;
    char profile[32];
    bool mixed_profiles, empty_mig;
};

/* The MIG notes are warnings the first time and debug lines at each recheck after (gpu_watch.c runs
 * discovery again every --gpu-recheck). */
static atomic_bool mig_noted;

static bool mig_enabled(const struct nvml_api *api, nvml_device dev)
{
    unsigned int current = 0, pending = 0;
    return api->mig_mode && api->mig_count && api->mig_handle &&
           api->mig_mode(dev, &current, &pending) == NVML_SUCCESS && current == NVML_DEVICE_MIG_ENABLE;
}

/* GPU i's MIG devices (the parent d as read) as devices of their own, numbered 100 * (i + 1) + j so
 * no GPU's index is taken. Returns how many, or -1 (err set). */
static int read_mig_devices(const struct nvml_api *api, nvml_device dev, const struct gpu_device *parent,
                            unsigned long long parent_bytes, struct machine *m, struct mig_survey *survey, char *err,
                            size_t errlen)
{
    unsigned int max = 0;
    if (api->mig_count(dev, &max) != NVML_SUCCESS)
        max = 0;
    int found = 0;
    for (unsigned int j = 0; j < max; j++) {
        if (m->gpus.count >= GPU_DEVICES_MAX) {
            log_warn("GPU %d: MIG devices past the node's %d are left out", (int)parent->index, GPU_DEVICES_MAX);
            break;
        }
        nvml_device mig;
        nvml_return rc = api->mig_handle(dev, j, &mig);
        if (rc == NVML_ERROR_NOT_FOUND)
            continue; /* no instance at that place */
        if (rc != NVML_SUCCESS) {
            snprintf(err, errlen, "nvmlDeviceGetMigDeviceHandleByIndex(%d, %u) failed with NVML error %d",
                     (int)parent->index, j, rc);
            return -1;
        }
        struct gpu_device d = {.index = 100 * (parent->index + 1) + (int32_t)j, .numa = parent->numa, .mig = true};
        snprintf(d.parent_uuid, sizeof d.parent_uuid, "%s", parent->uuid);
        if (api->uuid(mig, d.uuid, sizeof d.uuid) != NVML_SUCCESS)
            d.uuid[0] = '\0';
        unsigned int id;
        d.gpu_instance = api->gpu_instance_id && api->gpu_instance_id(mig, &id) == NVML_SUCCESS ? id : NVML_NO_INSTANCE;
        d.compute_instance = api->compute_instance_id && api->compute_instance_id(mig, &id) == NVML_SUCCESS
                                 ? id
                                 : NVML_NO_INSTANCE;
        struct nvml_device_attributes attr;
        struct nvml_memory mem;
        char profile[32] = "";
        if (api->attributes && api->attributes(mig, &attr) == NVML_SUCCESS) {
            d.memory_mib = (int64_t)attr.memory_size_mb;
            gpu_mig_profile_name(attr.gpu_instance_slices, attr.compute_instance_slices, attr.memory_size_mb,
                                 parent_bytes, profile, sizeof profile);
        } else if (api->memory && api->memory(mig, &mem) == NVML_SUCCESS) {
            d.memory_mib = (int64_t)(mem.total >> 20);
        }
        if (!survey->profile[0])
            snprintf(survey->profile, sizeof survey->profile, "%s", profile);
        else if (strcmp(survey->profile, profile) != 0)
            survey->mixed_profiles = true;
        if (gpu_set_add(&m->gpus, &d) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        found++;
    }
    return found;
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
    struct mig_survey survey = {0};
    char product[NVML_NAME_BUFFER] = "";
    for (unsigned int i = 0; i < count && m->gpus.count < GPU_DEVICES_MAX; i++) {
        nvml_device dev;
        if ((rc = api->handle(i, &dev)) != NVML_SUCCESS) {
            snprintf(err, errlen, "nvmlDeviceGetHandleByIndex_v2(%u) failed with NVML error %d", i, rc);
            return -1;
        }
        struct gpu_device d = {.index = (int32_t)i, .numa = -1};
        char name[NVML_NAME_BUFFER] = "";
        if (api->uuid(dev, d.uuid, sizeof d.uuid) != NVML_SUCCESS)
            d.uuid[0] = '\0';
        if (api->name(dev, name, sizeof name) == NVML_SUCCESS && !product[0])
            snprintf(product, sizeof product, "%s", name);
        struct nvml_memory mem = {0};
        if (api->memory && api->memory(dev, &mem) == NVML_SUCCESS)
            d.memory_mib = (int64_t)(mem.total >> 20);
        struct nvml_pci_info pci;
        if (api->pci && api->pci(dev, &pci) == NVML_SUCCESS)
            d.numa = pci_numa(where->root, &pci);
        if (mig_enabled(api, dev)) {
            int found = read_mig_devices(api, dev, &d, mem.total, m, &survey, err, errlen);
            if (found < 0)
                return -1;
            survey.mig_gpus++;
            survey.empty_mig = survey.empty_mig || found == 0;
            if (found == 0)
                log_msg(atomic_load(&mig_noted) ? LOG_DEBUG : LOG_WARN,
                        "GPU %u (%s) has MIG enabled but no MIG devices: it gives the node no GPU", i,
                        d.uuid[0] ? d.uuid : "no UUID");
            continue;
        }
        survey.full_gpus++;
        if (gpu_set_add(&m->gpus, &d) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    if (survey.mig_gpus == 0 || !product[0])
        snprintf(m->gpu_product, sizeof m->gpu_product, "%s", product);
    else if (survey.full_gpus > 0 || survey.mixed_profiles || survey.empty_mig || !survey.profile[0]) {
        log_msg(atomic_load(&mig_noted) ? LOG_DEBUG : LOG_WARN,
                "GPUs with and without MIG, a GPU in MIG mode with no MIG device, or MIG devices of more than one "
                "profile: the node's product label says MIG-INVALID, as GPU feature discovery's single strategy "
                "does");
        snprintf(m->gpu_product, sizeof m->gpu_product, "%s MIG INVALID", product);
    } else
        snprintf(m->gpu_product, sizeof m->gpu_product, "%s MIG %s", product, survey.profile);
    if (survey.mig_gpus > 0)
        atomic_store(&mig_noted, true);
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
