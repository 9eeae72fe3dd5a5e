/* Watching this machine's GPUs for Xid errors while the server runs: a thread waits on NVML's events
 * and, as the NVIDIA device plugin does, marks a device unhealthy on a critical Xid it does not ignore. */
#ifndef CALDERA_DAEMON_GPU_XID_H
#define CALDERA_DAEMON_GPU_XID_H

#include "model/gpu.h"
#include "scheduler/core/core.h"

struct gpu_xid_watch;

/* Starts a thread that waits on NVML's Xid events of the GPUs (CALDERA_NVML_LIBRARY names another
 * library) and posts each critical one to the core as the device's health (core_post_gpu_health):
 * the device of `known` (copied: node `node_name`'s devices) with that UUID, or for a MIG device
 * the parent's UUID and the event's GPU and compute instance (all the parent's MIG devices when the
 * event names none). Nothing is started (NULL, said in the log) when `known` is empty or NVML cannot
 * give events. */
struct gpu_xid_watch *gpu_xid_start(struct core *core, const char *node_name, const struct gpu_set *known);
/* Stops (within a second: NVML's wait has that timeout) and frees it (NULL: nothing). */
void gpu_xid_stop(struct gpu_xid_watch *w);

#endif
