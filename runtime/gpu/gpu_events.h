/* NVML's events of this machine's GPUs (nvmlEventSetWait_v2): Xid critical errors, as the NVIDIA
 * device plugin's health check reads them, and which Xids it ignores as an application's own. */
#ifndef CALDERA_RUNTIME_GPU_EVENTS_H
#define CALDERA_RUNTIME_GPU_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/gpu/gpu_discover.h"

struct gpu_events;

/* A critical Xid on a GPU: its UUID, the Xid, and the MIG device's GPU and compute instance ids
 * (0xFFFFFFFF when the event names none: the whole GPU). */
struct gpu_xid_event {
    char uuid[GPU_UUID_MAX];
    unsigned long long xid;
    unsigned int gpu_instance, compute_instance;
};

/* Loads NVML and registers Xid critical error (and ECC, as the plugin does) events on every GPU that
 * supports them. Returns the event set, or NULL with a sentence in err (no NVML, no event support). */
struct gpu_events *gpu_events_open(const struct gpu_discovery *where, char *err, size_t errlen);
/* Waits up to timeout_ms for the next event: 1 with *out filled for an Xid critical error, 0 on a
 * timeout or an event of another kind, -1 when NVML fails (a sentence in err). */
int gpu_events_wait(struct gpu_events *e, unsigned int timeout_ms, struct gpu_xid_event *out, char *err, size_t errlen);
/* Frees the event set and unloads NVML (NULL: nothing). */
void gpu_events_close(struct gpu_events *e);

/* The Xids the device plugin ignores, its application errors (the GPU stays healthy): 13 graphics
 * engine exception, 31 GPU memory page fault, 43 GPU stopped processing, 45 preemptive cleanup,
 * 68 video processor exception, 109 context switch timeout. */
bool gpu_xid_is_application_error(unsigned long long xid);

#endif
