/* Watching this machine's GPUs while the server runs: every period, discovery again (runtime/gpu/),
 * and a Node Event when a GPU the default node was made with is no longer seen, or is back. */
#ifndef CALDERA_DAEMON_GPU_WATCH_H
#define CALDERA_DAEMON_GPU_WATCH_H

#include <stdint.h>

#include "model/gpu.h"
#include "scheduler/core/core.h"

struct gpu_watch;

/* Starts a thread that re-discovers the GPUs every period_ms and posts to the core the health of each
 * device of `known` (copied: node `node_name`'s) that goes (reason GPUUnavailable: out of the node's
 * allocatable, a Warning Event) or comes back (GPUAvailable). Nothing is started (NULL) for a period
 * of 0 or no GPU. */
struct gpu_watch *gpu_watch_start(struct core *core, const char *node_name, const struct gpu_set *known,
                                  int64_t period_ms);
/* Stops and frees it (NULL: nothing). */
void gpu_watch_stop(struct gpu_watch *w);

#endif
