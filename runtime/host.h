/* This machine as the scheduler sees it: its name and architecture, the CPUs and memory this
 * process may use, the data directory's disk. Read once at start-up; the default node is made of it. */
#ifndef CALDERA_RUNTIME_HOST_H
#define CALDERA_RUNTIME_HOST_H

#include <stddef.h>

#include "model/node.h"

/* The host name and architecture (uname). Never fails. */
void host_identify(struct machine *out);

/* The CPUs this process may use, memory (the smaller of MemTotal and this process's cgroup limit)
 * and the size of data_dir's file system (0 when it cannot be read). Returns 0, or -1 with a
 * sentence in err when the CPU count or memory cannot be read. */
int host_resources(struct machine *out, const char *data_dir, char *err, size_t errlen);

/* This machine's GPUs into out->gpus and out->gpu_product (runtime/gpu/: NVML, else the driver's
 * files; CALDERA_NVML_LIBRARY and CALDERA_GPU_ROOT point elsewhere for tests). Never fails: problems
 * are logged and a machine without GPUs has none. The caller frees out->gpus. */
void host_gpus(struct machine *out);

#endif
