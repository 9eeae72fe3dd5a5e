/* Starting and reaping off the core thread: a pool of spawner threads takes the core's start orders
 * in batches (process_start: the attempt's files, its cgroup, the clone), and one reaper thread
 * watches every pidfd they made and collects the exits (status, cgroup usage) in batches. Both
 * report into one queue, in order (an attempt's start before its exit), that the core drains with
 * one wake-up; the core still decides every start and records every result. */
#ifndef CALDERA_LAUNCHER_H
#define CALDERA_LAUNCHER_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/attempt.h"
#include "runtime/attempt_copy.h"
#include "runtime/process.h"

enum launch_kind {
    LAUNCH_STARTED, /* proc (pid and cgroup name; the reaper holds the pidfd) and started */
    LAUNCH_FAILED,  /* why */
    LAUNCH_EXITED,  /* exit; the process is a zombie until launcher_release(pidfd) */
};

struct launch_result {
    struct launch_result *next;
    enum launch_kind kind;
    int slot; /* the caller's number for the attempt, as given to launcher_queue */
    struct process proc;
    struct attempt_started started;
    struct replica_exit exit;
    int pidfd;
    char why[512];
};

struct launcher;

/* Starts spawners spawner threads (at least 1) and the reaper. NULL when it cannot. */
struct launcher *launcher_new(int spawners);
/* How many spawners the machine's CPUs call for: $CALDERA_SPAWNERS when set (0: none, start on the
 * calling thread), else half the CPUs this process may run on, at least 2. */
int launcher_default_spawners(void);
/* Readable while results wait (an eventfd for the caller's epoll). */
int launcher_fd(const struct launcher *l);
/* Orders a start of spec (the launcher owns it from here). Kept until launcher_flush, or handed over
 * as a batch once enough are kept. */
void launcher_queue(struct launcher *l, int slot, struct attempt_copy *spec);
/* Reaps (in the reaper, with the next batch) an exited process whose LAUNCH_EXITED was handled. */
void launcher_release(struct launcher *l, int pidfd);
/* Hands what was queued and released over to the threads (one lock, one wake-up). */
void launcher_flush(struct launcher *l);
/* Starts one order on the calling thread: a caller that would only wait for its starts helps
 * instead. One or two orders kept are started here without a hand-over (a lone start costs no
 * thread's wake-up); more are handed over and one of those taken. False when none waits. */
bool launcher_help(struct launcher *l);
/* The reaper's epoll of exits: readable while exits wait to be collected. A caller with little to do
 * adds it to its own epoll (edge-triggered) and collects them itself with launcher_help_reap,
 * sparing a lone exit the reaper's hand-over. While it says so (launcher_caller_helps true: it is
 * about to wait, and will collect what comes), the reaper leaves exits to it for a moment, then
 * collects what is left; else it collects them at once, beside the caller's work. Each exit is
 * collected once, by whichever thread takes it first. */
int launcher_reap_fd(const struct launcher *l);
void launcher_help_reap(struct launcher *l);
void launcher_caller_helps(struct launcher *l, bool helps);
/* Every result so far, oldest first (the caller frees each with free()). */
struct launch_result *launcher_take(struct launcher *l);
/* Waits at most timeout_ms for results. */
void launcher_wait(const struct launcher *l, int timeout_ms);
/* Stops the threads. Processes still watched are let go (their pidfds closed), not ended. */
void launcher_free(struct launcher *l);

#endif
