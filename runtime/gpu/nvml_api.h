/* NVML loaded with dlopen, so the server builds and runs without the driver: the few entry points
 * discovery (MIG devices included), sampling and the Xid event watch use, declared here with NVML's
 * own signatures, structures and constants. */
#ifndef CALDERA_RUNTIME_GPU_NVML_API_H
#define CALDERA_RUNTIME_GPU_NVML_API_H

#include <stddef.h>

typedef int nvml_return;      /* nvmlReturn_t: NVML_SUCCESS is 0 */
typedef void *nvml_device;    /* nvmlDevice_t: an opaque handle */
typedef void *nvml_event_set; /* nvmlEventSet_t */
#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_TIMEOUT 10
#define NVML_DEVICE_MIG_ENABLE 1
#define NVML_EVENT_XID_CRITICAL 0x8ULL   /* nvmlEventTypeXidCriticalError */
#define NVML_EVENT_SINGLE_BIT_ECC 0x1ULL /* nvmlEventTypeSingleBitEccError */
#define NVML_EVENT_DOUBLE_BIT_ECC 0x2ULL /* nvmlEventTypeDoubleBitEccError */
#define NVML_NO_INSTANCE 0xFFFFFFFFu     /* an event's GPU/compute instance id when it names none */
#define NVML_NAME_BUFFER 96              /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define NVML_UUID_BUFFER 96              /* NVML_DEVICE_UUID_V2_BUFFER_SIZE */

struct nvml_memory { /* nvmlMemory_t */
    unsigned long long total, free, used;
};

struct nvml_pci_info { /* nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it */
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
};

struct nvml_utilization { /* nvmlUtilization_t */
    unsigned int gpu, memory;
};

struct nvml_device_attributes { /* nvmlDeviceAttributes_t, as nvmlDeviceGetAttributes_v2 fills it */
    unsigned int multiprocessor_count, shared_copy_engines, shared_decoders, shared_encoders, shared_jpegs, shared_ofas,
        gpu_instance_slices, compute_instance_slices;
    unsigned long long memory_size_mb;
};

struct nvml_event_data { /* nvmlEventData_t */
    nvml_device device;
    unsigned long long event_type, event_data; /* event_data: the Xid for an Xid event */
    unsigned int gpu_instance_id, compute_instance_id;
};

/* The library and its entry points; init, shutdown, count and handle are always there once
 * nvml_api_open() succeeds, any other may be NULL (its user checks). */
struct nvml_api {
    void *lib;
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*count)(unsigned int *);
    nvml_return (*handle)(unsigned int, nvml_device *);
    nvml_return (*name)(nvml_device, char *, unsigned int);
    nvml_return (*uuid)(nvml_device, char *, unsigned int);
    nvml_return (*memory)(nvml_device, struct nvml_memory *);
    nvml_return (*pci)(nvml_device, struct nvml_pci_info *);
    nvml_return (*utilization)(nvml_device, struct nvml_utilization *);
    /* MIG */
    nvml_return (*mig_mode)(nvml_device, unsigned int *current, unsigned int *pending);
    nvml_return (*mig_count)(nvml_device, unsigned int *);
    nvml_return (*mig_handle)(nvml_device, unsigned int, nvml_device *);
    nvml_return (*gpu_instance_id)(nvml_device, unsigned int *);
    nvml_return (*compute_instance_id)(nvml_device, unsigned int *);
    nvml_return (*attributes)(nvml_device, struct nvml_device_attributes *);
    /* events */
    nvml_return (*event_set_create)(nvml_event_set *);
    nvml_return (*event_set_free)(nvml_event_set);
    nvml_return (*supported_events)(nvml_device, unsigned long long *);
    nvml_return (*register_events)(nvml_device, unsigned long long, nvml_event_set);
    nvml_return (*event_wait)(nvml_event_set, struct nvml_event_data *, unsigned int timeout_ms);
};

/* Loads library, finds the entry points and initialises NVML once its user's needs are met
 * (needs(api) true; NULL: none beyond the four always needed; `user` names it in the sentence:
 * "%s lacks the NVML functions <user> uses"). Returns 0; -2 when the library cannot be loaded;
 * -1 when it lacks functions or nvmlInit_v2 fails; a sentence in err either way. */
int nvml_api_open(const char *library, const char *user, int (*needs)(const struct nvml_api *api), struct nvml_api *api,
                  char *err, size_t errlen);
/* Shuts NVML down and unloads it. */
void nvml_api_close(struct nvml_api *api);

#endif
