/* The process runtime: one attempt = one process tree, started in a session and a cgroup of its
 * own (memory, cpu and pids under caldera/, cgroup v1 or v2), as the job's uid/gid, with stdout and
 * stderr into the attempt's log, watched through a pidfd; OOM kills and usage read from the cgroup. */
#ifndef CALDERA_PROCESS_H
#define CALDERA_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtime/attempt.h"
#include "runtime/census.h"
#include "runtime/exit_record.h"

struct process {
    pid_t pid;             /* also the process group id: every attempt leads its own session */
    int pidfd;             /* readable once the process has exited */
    int64_t start_ticks;   /* /proc/<pid>/stat start time, to recognise the pid after a restart */
    char cgroup_name[200]; /* the attempt's cgroup below caldera/, "" without cgroups */
    char *exit_record;     /* supervised: "<exits file>\n<pod> <attempt> <pid> ", where its status will be */
    bool adopted;          /* started by an earlier run: not this server's child, no wait status */
    char *oci_name;        /* an OCI attempt (runtime/oci_launch.h): its container, removed at the end */
    char *oci_log;         /* and its log, where podman's start errors are read */
    int64_t oci_memory;    /* and its memory limit (bytes, 0: none), to tell an OOM kill on cgroup v1 */
};

/* The process the runtime starts is the task's supervisor, caldera-shim (tools/shim): it leads the
 * session, runs the task, ends with the task's status and appends that status to the job's exits
 * file, so the task outlives a server that stops or crashes and its end is still known. The shim
 * is found through $CALDERA_SHIM, else next to the server's executable; without it tasks run
 * directly and cannot be adopted again. NULL when the shim is there, else a sentence. */
const char *process_supervisor_warning(void);

/* Limits every attempt gets, from the server's options (--max-log-bytes, --task-pids-max). */
#define PROCESS_DEFAULT_MAX_LOG_BYTES (64LL << 20)
#define PROCESS_DEFAULT_PIDS_MAX 4096
struct process_limits {
    int64_t max_log_bytes; /* an attempt's log, as its supervisor writes it (tools/shim); 0: unbounded */
    int64_t pids_max;      /* pids.max of an attempt's cgroup (processes and threads); 0: no limit */
};
/* Before the first start (daemon/main.c); the defaults above otherwise. */
void process_runtime_set_limits(const struct process_limits *limits);
/* pids.max for an attempt whose pod asks for pod_pids_max (0: nothing): the pod's when lower than
 * the server's, else the server's; 0 when neither limits. */
int64_t process_pids_max(int64_t pod_pids_max);

/* Finds out once what the machine allows: cgroup v2 (unified) or v1 controllers, writable or not,
 * mount namespaces (root). Logs one warning when limits cannot be enforced. Safe to call again, from
 * any thread. $CALDERA_CGROUP2_ROOT names a cgroup2 mount to use instead of /sys/fs/cgroup. */
void process_runtime_init(void);
/* Whether tasks can get mount namespaces of their own (CAP_SYS_ADMIN): pod volumes need them. */
bool process_can_mount(void);
/* NULL when cgroups and the supervisor work, else a sentence for /healthz ("cgroups not writable:
 * tasks run without limits"; the cgroup sentence first when both fail). */
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
/* Reaps an exited process this server started (its pidfd is readable; adopted ones:
 * process_reap_adopted): exit status, OOM from the cgroup's oom_kill
 * count, peak memory and CPU time; kills what is left of the tree and removes the cgroup; closes
 * the pidfd. Returns 0, or -1 when it has not exited yet. */
int process_reap(struct process *p, struct replica_exit *ex);
/* process_reap off the core thread (runtime/launcher.c): the same exit, usage and end of the tree,
 * but the process stays a zombie, so its pid (and process group) cannot be given to another while
 * the core may still signal it; p->pidfd stays open for process_release. Returns 0, or -1 while it
 * runs. */
int process_collect(struct process *p, struct replica_exit *ex);
/* Reaps the zombie of a collected process and closes its pidfd. */
void process_release(int pidfd);
/* An attempt of an earlier run of the server, recorded as running when that run ended. */
struct process_adoption {
    pid_t pid; /* the supervisor's pid and start time, as recorded at its start */
    int64_t start_ticks;
    const char *cgroup_name; /* the name it was started with ("" without cgroups) */
    const char *exits_path;  /* its job's exits file */
    const char *pod;
    uint32_t attempt;
    /* NULL, or what ran when recovery began (runtime/census.h): an attempt whose pid and cgroup it
     * knows to be gone is not looked up one by one */
    const struct process_census *census;
};

enum process_found {
    PROCESS_ADOPTED, /* still running: *out watches it like a process this run started */
    PROCESS_EXITED,  /* it ended meanwhile and its exits file says how: *ex */
    PROCESS_LOST,    /* gone without a trace of its status (what remained of it is killed) */
};

/* Finds an attempt of an earlier run again: the same pid with the same start time is the same
 * process (a pid the kernel gave to something else since is not), adopted through a pidfd of its
 * own; an ended one's status comes from the exits file and its usage from its cgroup, which is
 * then removed. */
enum process_found process_adopt(const struct process_adoption *a, struct process *out, struct replica_exit *ex);
/* process_reap for an adopted process (not this server's child, so no wait status): how it ended
 * comes from its exits file, ex->unknown when that says nothing. Returns -1 while it runs. */
int process_reap_adopted(struct process *p, struct replica_exit *ex);
/* Lets go of a process without ending it (a stop that keeps tasks): closes its pidfd. */
void process_forget(struct process *p);
/* Waits at most timeout_ms for the process to exit (its pidfd readable). Returns true when it has. */
bool process_wait_exit(const struct process *p, int timeout_ms);
/* Kills and removes cgroups below caldera/ that no attempt of this run owns: tasks an earlier run
 * started but never got to record (it crashed between the start and the commit). keep(name) says
 * which names are owned. Returns how many were removed. */
int process_sweep_orphans(bool (*keep)(void *ctx, const char *cgroup_name), void *ctx);
/* A process's start time in clock ticks since boot, or -1 when it does not exist. */
int64_t process_start_ticks(pid_t pid);

#endif
