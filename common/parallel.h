/* Work cut into pieces that run side by side on this machine's cores: a pool of helper threads (one
 * fewer than the CPUs the process may use, at most 15), started at first use and shared by all callers. */
#ifndef CALDERA_PARALLEL_H
#define CALDERA_PARALLEL_H

#include <stddef.h>

#define PARALLEL_MAX_HELPERS 15

struct parallel_batch;

/* The CPUs this process may run on (its affinity), at least 1. */
int parallel_cpus(void);
/* How many helpers the pool has or would start: 0 on one CPU (then splitting work only costs). */
int parallel_helpers(void);
/* How many parts to cut `size` units of work into: the caller's and one per helper, but none smaller
 * than min_part (at least 1). */
int parallel_parts(size_t size, size_t min_part);
/* Queues run(ctx, i) for every i in [0, n) for the helpers, starting them on first use. NULL when
 * memory runs out; the caller then runs the pieces itself. */
struct parallel_batch *parallel_start(int n, void (*run)(void *ctx, int i), void *ctx);
/* Runs on the calling thread every piece of the batch no helper has taken yet (so a batch finishes
 * even when the other cores are busy or no helper could be started), waits for the others, and frees
 * the batch. */
void parallel_wait(struct parallel_batch *b);

#endif
