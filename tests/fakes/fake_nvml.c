/* A stand-in for the NVIDIA driver's libnvidia-ml.so.1, built by the Makefile as a shared object for
 * the GPU tests: two H100s with fixed UUIDs, memory and PCI addresses (buses 0x17 and 0x65).
 * FAKE_NVML_INIT_ERROR=N makes nvmlInit_v2 fail with NVML error N, as a broken driver does.
 * FAKE_NVML_UTIL="37,80" and FAKE_NVML_USED_MIB="1024,2048" set each device's utilisation (percent)
 * and memory used (MiB), read at every call (default 0); "@FILE" reads the list from FILE instead, so
 * a test can change what a running server's sampling sees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *nvml_device;

struct nvml_memory {
    unsigned long long total, free, used;
};

struct nvml_pci_info {
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
};

struct nvml_utilization {
    unsigned int gpu, memory;
};

#define DEVICES 2
static int devices[DEVICES];
static const char *const uuids[DEVICES] = {"GPU-11111111-2222-3333-4444-555555555555",
                                           "GPU-66666666-7777-8888-9999-000000000000"};
static const unsigned int buses[DEVICES] = {0x17, 0x65};

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned int *count);
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvml_device *device);
int nvmlDeviceGetName(nvml_device device, char *name, unsigned int length);
int nvmlDeviceGetUUID(nvml_device device, char *uuid, unsigned int length);
int nvmlDeviceGetMemoryInfo(nvml_device device, struct nvml_memory *memory);
int nvmlDeviceGetPciInfo_v3(nvml_device device, struct nvml_pci_info *pci);
int nvmlDeviceGetUtilizationRates(nvml_device device, struct nvml_utilization *rates);

static int which(nvml_device device) { return (int)((int *)device - devices); }

/* The device's entry of a comma-separated list in environment variable `name` (or in the file it
 * names after '@'), 0 when absent. */
static unsigned long long setting(const char *name, int device)
{
    const char *s = getenv(name);
    char text[256];
    if (s && s[0] == '@') {
        FILE *f = fopen(s + 1, "r");
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f)
            fclose(f);
        text[n] = '\0';
        s = text;
    }
    for (int i = 0; s && i < device; i++) {
        s = strchr(s, ',');
        if (s)
            s++;
    }
    return s ? strtoull(s, NULL, 10) : 0;
}

int nvmlInit_v2(void)
{
    const char *fail = getenv("FAKE_NVML_INIT_ERROR");
    return fail ? atoi(fail) : 0;
}

int nvmlShutdown(void) { return 0; }

int nvmlDeviceGetCount_v2(unsigned int *count)
{
    *count = DEVICES;
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvml_device *device)
{
    if (index >= DEVICES)
        return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *device = &devices[index];
    return 0;
}

int nvmlDeviceGetName(nvml_device device, char *name, unsigned int length)
{
    (void)device;
    snprintf(name, length, "NVIDIA H100 80GB HBM3");
    return 0;
}

int nvmlDeviceGetUUID(nvml_device device, char *uuid, unsigned int length)
{
    snprintf(uuid, length, "%s", uuids[which(device)]);
    return 0;
}

int nvmlDeviceGetMemoryInfo(nvml_device device, struct nvml_memory *memory)
{
    memory->total = 81559ULL << 20;
    memory->used = setting("FAKE_NVML_USED_MIB", which(device)) << 20;
    if (memory->used > memory->total)
        memory->used = memory->total;
    memory->free = memory->total - memory->used;
    return 0;
}

int nvmlDeviceGetPciInfo_v3(nvml_device device, struct nvml_pci_info *pci)
{
    memset(pci, 0, sizeof *pci);
    pci->bus = buses[which(device)];
    snprintf(pci->bus_id, sizeof pci->bus_id, "00000000:%02X:00.0", pci->bus);
    return 0;
}

int nvmlDeviceGetUtilizationRates(nvml_device device, struct nvml_utilization *rates)
{
    rates->gpu = (unsigned int)setting("FAKE_NVML_UTIL", which(device));
    rates->memory = 0;
    return 0;
}
