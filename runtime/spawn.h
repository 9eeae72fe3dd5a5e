/* The spawner: clone(CLONE_VM | CLONE_VFORK) onto a stack of its own, as posix_spawn does, with a child
 * that joins its cgroups, isolates its mounts, switches user, then changes directory (raw syscalls). */
#ifndef CALDERA_RUNTIME_SPAWN_H
#define CALDERA_RUNTIME_SPAWN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The child's steps, in order; the one that failed comes back in struct spawn_failure. */
enum spawn_step {
    SPAWN_OK,
    SPAWN_CLONE, /* in the parent: clone itself failed */
    SPAWN_SETSID,
    SPAWN_JOIN_CGROUP,
    SPAWN_UNSHARE,
    SPAWN_MOUNT_PRIVATE,
    SPAWN_BIND_HOSTS,
    SPAWN_BIND_SSH,
    SPAWN_BIND_VOLUME,
    SPAWN_MOUNT_TARGET, /* a pod volume's mountPath could not be reached (a symbolic link: ELOOP) */
    SPAWN_MOUNT_VOLUME, /* a pod volume could not be mounted */
    SPAWN_STDIN,
    SPAWN_STDOUT,
    SPAWN_EXITS_FD,
    SPAWN_SETGROUPS,
    SPAWN_SETGID,
    SPAWN_SETUID,
    SPAWN_NO_NEW_PRIVS,
    SPAWN_CHDIR,
    SPAWN_SIGNALS,
    SPAWN_EXEC,
};

/* A pod volume mounted in the child's namespace (runtime/pod_mounts.c prepares it): a clone of the
 * source's mount tree or a new tmpfs, made read-only when asked, moved onto the target reached one
 * name at a time from / without following a symbolic link. */
struct spawn_mount {
    const char *source;     /* NULL: a tmpfs */
    bool source_nofollow;   /* the source's last name may not be a symbolic link (an emptyDir) */
    const char *tmpfs_size; /* tmpfs options as text, or NULL */
    const char *tmpfs_uid, *tmpfs_gid;
    const char *target_names; /* the target's names, each NUL-terminated */
    int ntarget_names;
    bool read_only;
};

/* Everything the child needs, prepared by the parent: the child only reads it. */
struct spawn_request {
    const char *path; /* the resolved executable */
    char *const *argv;
    char *const *envp;
    const int *cgroup_procs; /* open cgroup.procs files: the child writes "0" (itself) into each */
    int cgroup_count;
    int cgroup_dir;         /* the cgroup v2 directory to be born in (clone3 CLONE_INTO_CGROUP), or -1: then
                       the child joins through cgroup_procs */
    const char *hosts_file; /* bound read-only over /etc/hosts, or NULL */
    const char *ssh_dir;    /* bound read-only over ssh_target, or NULL */
    const char *ssh_target;
    const char *const *bind_sources; /* bound read-write over bind_targets (the Job's volumes) */
    const char *const *bind_targets;
    int bind_count;
    const struct spawn_mount *mounts; /* the pod's volumes, after the binds */
    int mount_count;
    int log_fd;   /* >= 3, close-on-exec: becomes stdout and stderr */
    int exits_fd; /* close-on-exec, becomes descriptor 3 (the supervisor's exits file); -1: none */
    const char *chdir_to;
    bool switch_user; /* set groups, gid and uid (the server is root) */
    int32_t uid, gid; /* -1: keep the server's */
};

struct spawn_failure {
    enum spawn_step step;
    int index; /* SPAWN_JOIN_CGROUP: which of cgroup_procs; SPAWN_BIND_VOLUME: which bind; SPAWN_MOUNT_*: which mount */
    int err;   /* errno of the failed step */
};

/* Starts the child in a session of its own. Returns 0 with its pid and a pidfd (close-on-exec), or
 * -1 with what failed (a child that failed has been waited for). */
int spawn_process(const struct spawn_request *req, pid_t *pid, int *pidfd, struct spawn_failure *failure);

#endif
