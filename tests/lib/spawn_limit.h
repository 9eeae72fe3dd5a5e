/* What the machine allows: how many /bin/true processes a second it can start and reap with
 * posix_spawn + waitpid, from as many threads as the calling thread may run on, the yardstick of the
 * end-to-end benchmark; and pinning the calling thread (and what it starts) to its first n CPUs. */
#ifndef CALDERA_SPAWN_LIMIT_H
#define CALDERA_SPAWN_LIMIT_H

/* The CPUs this thread may run on (sched_getaffinity), at least 1. */
int spawn_limit_cpus(void);
/* Spawns and reaps /bin/true from `threads` threads (they run where the calling thread may), each in
 * a loop, for seconds; returns the processes a second (median of rounds rounds), or -1 when a spawn
 * failed. */
double spawn_limit_per_s(int threads, double seconds, int rounds);
/* The loop under it: `threads` threads each call one(ctx, thread, n) for n = 0, 1, ... for seconds;
 * returns the calls a second (median of rounds rounds), or -1 when one returned non-zero. */
double spawn_rounds(int threads, double seconds, int rounds, int (*one)(void *ctx, int thread, long n), void *ctx);
/* Restricts this thread, and what it starts from now on, to the first n of the CPUs it was allowed
 * at the first call (n <= 0: all of them again). Returns 0, or -1. */
int spawn_limit_pin(int n);

#endif
