/* The process runtime: one attempt = one process tree, started in a session and a cgroup of its
 * own (memory, cpu and pids under caldera/, cgroup v1 or v2), as the job's uid/gid, with stdout and
 * stderr into the attempt's log, watched through a pidfd; OOM kills and usage read from the cgroup. */
#ifndef CALDERA_PROCESS_H
#define CALDERA_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "scheduler/controller/controller.h"

struct process {
    pid_t pid;           /* also the process group id: every attempt leads its own session */
    int pidfd;           /* readable once the process has exited */
    int64_t start_ticks; /* /proc/<pid>/stat start time, to recognise the pid after a restart */
    char cgroup_name[200]; /* the attempt's cgroup below caldera/, "" without cgroups */
};

/* Finds out once what the machine allows: cgroup v2 (unified) or v1 controllers, writable or not,
 * mount namespaces (root). Logs one warning when limits cannot be enforced. Safe to call again, from
 * any thread. $CALDERA_CGROUP2_ROOT names a cgroup2 mount to use instead of /sys/fs/cgroup. */
void process_runtime_init(void);
/* NULL when cgroups work, else a sentence for /healthz ("cgroups not writable: tasks run without
 * limits"). */
const char *process_runtime_warning(void);
/* Ended attempts' cgroups are removed on a cleaner thread; this waits (at most timeout_ms) until
 * every removal asked so far is done. Returns 0, or -1 on timeout. */
int process_runtime_flush(int timeout_ms);

/* Creates the work and log directories (owned by the attempt's uid/gid), the attempt's cgroup
 * with its limits, resolves argv[0] on the attempt's own PATH, and starts it: the child joins its
 * cgroup, session and mount namespace and switches user before exec, so nothing of it ever runs
 * outside its limits. Returns 0, or -1 with a sentence in why ("exec: \"foo\": executable file
 * not found in $PATH", "workingDir /x does not exist on this node", "cannot run as uid 1000: the
 * job server is not root"). */
int process_start(const struct attempt_spec *spec, struct process *out, struct attempt_started *started, char *why,
                  size_t why_len);
/* Sends sig to the attempt's whole process tree (its process group and every process of its
 * cgroup). A process known by its pid alone (pidfd -1, no cgroup_name: a task of an earlier run of
 * the server) is found in its cgroup through /proc; after SIGKILL that cgroup is removed later. */
void process_signal(const struct process *p, int sig);
/* Reaps an exited process (its pidfd is readable): exit status, OOM from the cgroup's oom_kill
 * count, peak memory and CPU time; kills what is left of the tree and removes the cgroup; closes
 * the pidfd. Returns 0, or -1 when it has not exited yet. */
int process_reap(struct process *p, struct replica_exit *ex);
/* A process's start time in clock ticks since boot, or -1 when it does not exist. */
int64_t process_start_ticks(pid_t pid);

#endif
