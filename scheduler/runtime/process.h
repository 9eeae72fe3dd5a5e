/* The process runtime: one attempt = one process tree started with posix_spawn in a session of its
 * own, stdout and stderr into the attempt's log file, watched through a pidfd. */
#ifndef CALDERA_PROCESS_H
#define CALDERA_PROCESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "scheduler/controller/controller.h"

struct process {
    pid_t pid;          /* also the process group id: every attempt leads its own session */
    int pidfd;          /* readable once the process has exited */
    int64_t start_ticks;/* /proc/<pid>/stat start time, to recognise the pid after a restart */
};

/* Creates the work and log directories, resolves argv[0] on the attempt's own PATH, and spawns.
 * Returns 0, or -1 with a sentence in why ("exec: \"foo\": executable file not found in $PATH",
 * "workingDir /x does not exist on this node"). */
int process_start(const struct attempt_spec *spec, struct process *out, char *why, size_t why_len);
/* Sends sig to the attempt's whole process group. */
void process_signal(const struct process *p, int sig);
/* Reaps an exited process (its pidfd is readable) and closes the pidfd. Returns 0, or -1 when it
 * has not exited yet. */
int process_reap(struct process *p, struct replica_exit *ex);
/* A process's start time in clock ticks since boot, or -1 when it does not exist. */
int64_t process_start_ticks(pid_t pid);

#endif
