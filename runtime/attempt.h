/* What the runtime is asked to start and what it reports back: an attempt's spec, how it started
 * and how it ended. The controller (scheduler/controller) fills and reads these. */
#ifndef CALDERA_RUNTIME_ATTEMPT_H
#define CALDERA_RUNTIME_ATTEMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/gpu_usage.h"

/* What a started attempt is: the command, its environment, where it runs and logs, its cgroup
 * limits, whom it runs as, and the files bound into its view of the machine. */
#define ATTEMPT_VOLUMES_MAX 32 /* the Job's TASK_VOLUMES_MAX (model/job.h) */
/* A pod volume (model/job.h pod_mount) as the runtime mounts it in the task's own mount namespace. */
#define ATTEMPT_MOUNTS_MAX 32
/* A file of a configMap or secret volume, written by the runtime when the attempt starts. */
struct attempt_file {
    char *path; /* relative to the volume's directory, no "..", no leading '/' */
    char *data;
    size_t len;
    int mode;
};

struct attempt_mount {
    const char *source; /* hostPath's path, or the emptyDir's directory (made by the runtime); NULL: a tmpfs */
    const char *target; /* mountPath: reached without following a symbolic link */
    bool read_only;
    bool empty_dir;     /* source is the pod's own directory, made for the task's user */
    bool fresh;         /* the pod's first attempt: an earlier pod's emptyDir of the same name is removed */
    int host_type;      /* enum host_path_type, checked (and made: ...OrCreate) as Kubernetes does */
    int64_t tmpfs_size; /* bytes, 0: the kernel's default */
    /* A configMap or secret volume: source is its directory (empty_dir true), made anew at each
     * attempt with these files, bound read-only. */
    bool files_volume;
    int nfiles;
    const struct attempt_file *files;
};

struct attempt_spec {
    char *const *argv;
    char *const *envp;
    const char *work_dir;    /* the job's working directory (shared by its replicas) */
    const char *chdir_to;    /* where the process starts: the container's workingDir, else work_dir */
    const char *log_path;    /* absolute path of this attempt's log file */
    const char *cgroup_name; /* unique per attempt, e.g. "<job uid>/<pod>.<attempt>" (under caldera/) */
    int64_t memory_limit;    /* bytes; 0 = none */
    int64_t cpu_limit_milli; /* millicores; 0 = none */
    int64_t pids_max;        /* the pod's caldera.io/pids-max; 0: the server's --task-pids-max */
    const char *cpuset_cpus; /* cpuset.cpus of its cgroup (static CPU manager policy), NULL: the parent's */
    const char *cpuset_mems; /* cpuset.mems, NULL: the parent's */
    int32_t uid, gid;        /* run as these when >= 0 (the server must be root); -1: as the server */
    const char *hosts_file;  /* bind-mounted over /etc/hosts in a mount namespace of its own, or NULL */
    const char *ssh_dir;     /* bind-mounted over the user's ~/.ssh likewise, or NULL */
    const char *exits_path;  /* the job's exits file, where the supervisor records the status; NULL: no
                                 supervisor (the process runs directly) */
    const char *pod;         /* with attempt, how the supervisor names its line in exits_path */
    uint32_t attempt;
    int32_t exits_pending;              /* lines that may still come into exits_path (the job's attempts running, this
                                 one included): room is kept for them (runtime/exits_reserve.h) */
    int nvolumes;                       /* the Job's spec.volumes: directories made if missing (owned by the task's */
    const char *const *volume_dirs;     /* user when it made them), each bound at its mount path when */
    const char *const *volume_targets;  /* that exists on the node and the server can bind, else NULL */
    int nmounts;                        /* the pod's hostPath and emptyDir volumes: mounted, or the attempt */
    const struct attempt_mount *mounts; /* fails (the gateway refuses them where mounts cannot be made) */
    const char *oci_image;              /* runtimeClassName oci: run argv in this image through podman
                                          (runtime/oci_launch.c); NULL: argv runs as a process on the node */
    int ngpus;                          /* the GPU devices bound to the attempt: their indexes and UUIDs */
    const int32_t *gpu_index;           /* ("" when unknown), passed into an OCI container */
    const char *const *gpu_uuid;
};

struct attempt_started {
    int32_t pid;
    int64_t pid_start; /* start time in clock ticks since boot, to recognise the pid later */
    char cgroup[256];  /* where it runs: "memory:/caldera/..." style description, "" without cgroups */
    bool isolated;     /* hosts_file/ssh_dir were bound (root with mount namespaces) */
    int64_t start_ms;  /* wall clock as the start returned: the process made and its program executed (the
                          clone waits for the exec); 0 when unknown (the controller's time is used) */
};

/* How a replica's attempt ended. */
struct replica_exit {
    int32_t exit_code;     /* the process's exit status, or 128 + signal */
    int signal;            /* the signal that ended it, 0 when it exited */
    bool oom;              /* the cgroup's OOM killer killed a process of it */
    int64_t end_ms;        /* wall clock as its exit was collected (waitid, by the thread whose epoll saw it) */
    int64_t peak_memory;   /* bytes, from the cgroup; 0 when unknown */
    int64_t cpu_usec;      /* CPU time used, from the cgroup; 0 when unknown */
    struct gpu_usage gpu;  /* what its GPUs showed while it ran (the core's sampling; rounds 0: none) */
    bool unknown;          /* an adopted attempt ended and nothing says how (exit_code -1) */
    int exec_errno;        /* the supervisor could not execute the task (exit_code 127): why */
    uint8_t oci_failure;   /* an OCI container podman could not start: enum oci_start_failure, 0: it ran */
    char oci_message[240]; /* then podman's words ("Error: ...") */
};

#endif
