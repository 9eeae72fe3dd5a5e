/* Starting attempts off the core thread: making an attempt's cgroup, its log file and the process
 * costs the kernel about a millisecond, most of it waiting on file systems. Launcher threads take
 * start requests (the spec copied), run process_start and hand back each outcome through an
 * eventfd the core polls, so the core keeps scheduling and reaping meanwhile. */
#ifndef CALDERA_LAUNCHER_H
#define CALDERA_LAUNCHER_H

#include <stdint.h>

#include "scheduler/runtime/process.h"

struct launcher;

/* What became of one request; token is the caller's. */
struct launch_result {
    uint64_t token;
    int rc;                        /* 0: started (proc and started filled), -1: why says */
    struct process proc;
    struct attempt_started started;
    char why[512];
};

/* Starts nthreads launcher threads. Returns NULL when it cannot. */
struct launcher *launcher_new(int nthreads);
/* Stops the threads after the requests already queued, then frees it (its results are dropped:
 * collect them first). */
void launcher_free(struct launcher *l);
/* The descriptor that becomes readable when results wait (an eventfd). */
int launcher_fd(const struct launcher *l);
/* Queues a start; the spec and everything it points to are copied. Returns 0, or -1 (out of memory). */
int launcher_submit(struct launcher *l, uint64_t token, const struct attempt_spec *spec);
/* Takes the results that are ready (they stay in order of completion); n gets their count, the
 * caller frees the array. NULL when none. */
struct launch_result *launcher_collect(struct launcher *l, int *n);
/* Requests queued or running. */
int launcher_pending(struct launcher *l);

#endif
