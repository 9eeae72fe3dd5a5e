/* A stand-in for the NVIDIA driver's libnvidia-ml.so.1, built by the Makefile as a shared object for
 * the GPU tests: two H100s with fixed UUIDs, memory and PCI addresses (buses 0x17 and 0x65).
 * FAKE_NVML_INIT_ERROR=N makes nvmlInit_v2 fail with NVML error N, as a broken driver does.
 * FAKE_NVML_UTIL="37,80" and FAKE_NVML_USED_MIB="1024,2048" set each device's utilisation (percent)
 * and memory used (MiB), read at every call (default 0); "@FILE" reads the list from FILE instead, so
 * a test can change what a running server's sampling sees.
 * FAKE_NVML_COUNT="1" (or "@FILE") shows only the first N GPUs: a GPU that falls off the bus.
 * FAKE_NVML_MIG="3,0" (or "@FILE") puts GPUs in MIG mode: an entry is that GPU's number of MIG devices
 * (1g.10gb instances, GPU instance ids 7, 8, ...), "-" or no entry leaves it a full GPU; "0" is MIG
 * enabled with no instance.
 * FAKE_NVML_XID_FILE=FILE: each line "GPU XID [GI CI]" appended to FILE is one Xid critical error
 * event on that GPU (GI and CI name a MIG device), which nvmlEventSetWait_v2 returns once (it polls
 * the file until its timeout). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

struct nvml_device_attributes {
    unsigned int multiprocessor_count, shared_copy_engines, shared_decoders, shared_encoders, shared_jpegs, shared_ofas,
        gpu_instance_slices, compute_instance_slices;
    unsigned long long memory_size_mb;
};

struct nvml_event_data {
    nvml_device device;
    unsigned long long event_type, event_data;
    unsigned int gpu_instance_id, compute_instance_id;
};

/* An event set: the events registered per GPU and how many lines of the Xid file it has returned. */
struct event_set {
    unsigned long long registered[2];
    long delivered;
};

#define DEVICES 2
#define MIG_MAX 7
#define MIG_MEMORY_MB 9856ULL /* an H100's 1g.10gb */
#define GPU_MEMORY_MIB 81559ULL
/* Handles: GPU i is slots[i][0], its MIG device j slots[i][1 + j]. */
static int slots[DEVICES][1 + MIG_MAX];
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
int nvmlDeviceGetMigMode(nvml_device device, unsigned int *current, unsigned int *pending);
int nvmlDeviceGetMaxMigDeviceCount(nvml_device device, unsigned int *count);
int nvmlDeviceGetMigDeviceHandleByIndex(nvml_device device, unsigned int index, nvml_device *mig);
int nvmlDeviceGetGpuInstanceId(nvml_device device, unsigned int *id);
int nvmlDeviceGetComputeInstanceId(nvml_device device, unsigned int *id);
int nvmlDeviceGetAttributes_v2(nvml_device device, struct nvml_device_attributes *attributes);
int nvmlEventSetCreate(void **set);
int nvmlEventSetFree(void *set);
int nvmlDeviceGetSupportedEventTypes(nvml_device device, unsigned long long *types);
int nvmlDeviceRegisterEvents(nvml_device device, unsigned long long types, void *set);
int nvmlEventSetWait_v2(void *set, struct nvml_event_data *data, unsigned int timeout_ms);

/* The GPU a handle belongs to, and which of its MIG devices it is (-1: the GPU itself). */
static int which(nvml_device device) { return (int)(((int *)device - &slots[0][0]) / (1 + MIG_MAX)); }
static int mig_of(nvml_device device) { return (int)(((int *)device - &slots[0][0]) % (1 + MIG_MAX)) - 1; }

/* The text of environment variable `name`, or of the file it names after '@'; NULL when unset. */
static const char *text_of(const char *name, char *buf, size_t len)
{
    const char *s = getenv(name);
    if (!s || s[0] != '@')
        return s;
    FILE *f = fopen(s + 1, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return buf;
}

/* GPU `device`'s number of MIG devices, -1 when it is not in MIG mode. */
static int mig_instances(int device)
{
    char buf[256];
    const char *s = text_of("FAKE_NVML_MIG", buf, sizeof buf);
    for (int i = 0; s && i < device; i++) {
        s = strchr(s, ',');
        if (s)
            s++;
    }
    if (!s || *s < '0' || *s > '9')
        return -1;
    int n = atoi(s);
    return n > MIG_MAX ? MIG_MAX : n;
}

static unsigned int visible_devices(void)
{
    char buf[32];
    const char *s = text_of("FAKE_NVML_COUNT", buf, sizeof buf);
    int n = s ? atoi(s) : DEVICES;
    return n < 0 ? 0 : n > DEVICES ? DEVICES : (unsigned int)n;
}

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
    *count = visible_devices();
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvml_device *device)
{
    if (index >= visible_devices())
        return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *device = &slots[index][0];
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
    if (mig_of(device) >= 0)
        snprintf(uuid, length, "MIG-%d%d000000-aaaa-bbbb-cccc-dddddddddddd", which(device), mig_of(device));
    else
        snprintf(uuid, length, "%s", uuids[which(device)]);
    return 0;
}

int nvmlDeviceGetMemoryInfo(nvml_device device, struct nvml_memory *memory)
{
    memory->total = (mig_of(device) >= 0 ? MIG_MEMORY_MB : GPU_MEMORY_MIB) << 20;
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

int nvmlDeviceGetMigMode(nvml_device device, unsigned int *current, unsigned int *pending)
{
    *current = *pending = mig_instances(which(device)) >= 0 ? 1 : 0;
    return 0;
}

int nvmlDeviceGetMaxMigDeviceCount(nvml_device device, unsigned int *count)
{
    *count = mig_instances(which(device)) >= 0 ? MIG_MAX : 0;
    return 0;
}

int nvmlDeviceGetMigDeviceHandleByIndex(nvml_device device, unsigned int index, nvml_device *mig)
{
    if ((int)index >= mig_instances(which(device)))
        return 6; /* NVML_ERROR_NOT_FOUND */
    *mig = &slots[which(device)][1 + index];
    return 0;
}

int nvmlDeviceGetGpuInstanceId(nvml_device device, unsigned int *id)
{
    if (mig_of(device) < 0)
        return 2;
    *id = 7 + (unsigned int)mig_of(device);
    return 0;
}

int nvmlDeviceGetComputeInstanceId(nvml_device device, unsigned int *id)
{
    if (mig_of(device) < 0)
        return 2;
    *id = 0;
    return 0;
}

int nvmlDeviceGetAttributes_v2(nvml_device device, struct nvml_device_attributes *attributes)
{
    if (mig_of(device) < 0)
        return 3; /* NVML_ERROR_NOT_SUPPORTED: a full GPU */
    memset(attributes, 0, sizeof *attributes);
    attributes->multiprocessor_count = 16;
    attributes->gpu_instance_slices = attributes->compute_instance_slices = 1;
    attributes->memory_size_mb = MIG_MEMORY_MB;
    return 0;
}

int nvmlEventSetCreate(void **set)
{
    *set = calloc(1, sizeof(struct event_set));
    return *set ? 0 : 7; /* NVML_ERROR_INSUFFICIENT_MEMORY */
}

int nvmlEventSetFree(void *set)
{
    free(set);
    return 0;
}

int nvmlDeviceGetSupportedEventTypes(nvml_device device, unsigned long long *types)
{
    (void)device;
    *types = 0xbULL; /* Xid critical, single and double bit ECC */
    return 0;
}

int nvmlDeviceRegisterEvents(nvml_device device, unsigned long long types, void *set)
{
    ((struct event_set *)set)->registered[which(device)] |= types;
    return 0;
}

/* Line `n` of the Xid file into data when it is there and names a registered GPU: 1; else 0. */
static int xid_line(struct event_set *set, long n, struct nvml_event_data *data)
{
    const char *path = getenv("FAKE_NVML_XID_FILE");
    FILE *f = path ? fopen(path, "r") : NULL;
    char line[128];
    long at = 0;
    int found = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strchr(line, '\n') == NULL)
            break; /* still being written */
        if (at++ < n)
            continue;
        unsigned int gpu = 0, gi = 0xFFFFFFFFu, ci = 0xFFFFFFFFu;
        unsigned long long xid = 0;
        int fields = sscanf(line, "%u %llu %u %u", &gpu, &xid, &gi, &ci);
        set->delivered++;
        if (fields >= 2 && gpu < DEVICES && (set->registered[gpu] & 0x8ULL)) {
            *data = (struct nvml_event_data){&slots[gpu][0], 0x8ULL, xid, gi, ci};
            found = 1;
        }
        break;
    }
    if (f)
        fclose(f);
    return found;
}

int nvmlEventSetWait_v2(void *set, struct nvml_event_data *data, unsigned int timeout_ms)
{
    struct event_set *es = set;
    for (unsigned int waited = 0;; waited += 20) {
        long before = es->delivered;
        if (xid_line(es, es->delivered, data))
            return 0;
        if (es->delivered != before)
            continue; /* a line for no registered GPU: read the next */
        if (waited >= timeout_ms)
            return 10; /* NVML_ERROR_TIMEOUT */
        struct timespec step = {0, 20 * 1000000L};
        nanosleep(&step, NULL);
    }
}
