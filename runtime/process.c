/* The process runtime for the core: an attempt is prepared in the parent (task_setup.c), given a
 * cgroup (cgroup_*.c), spawned into it (spawn.c), signalled as a tree and reaped with its usage. */
#include "runtime/process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/log.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/exits_reserve.h"
#include "runtime/oci_args.h"
#include "runtime/oci_launch.h"
#include "runtime/oci_runtime.h"
#include "runtime/pod_mounts.h"
#include "runtime/spawn.h"
#include "runtime/task_setup.h"

#define CAP_SYS_ADMIN_BIT 21

static pthread_once_t runtime_once = PTHREAD_ONCE_INIT;
static bool mount_namespaces;         /* CAP_SYS_ADMIN: hosts_file and ssh_dir can be bound */
static unsigned long unnamed_cgroups; /* attempts that came without a cgroup name */
static char shim_path[4096];          /* the supervisor, "" when there is none */
static char shim_warning[4300];
static struct process_limits task_limits = {PROCESS_DEFAULT_MAX_LOG_BYTES, PROCESS_DEFAULT_PIDS_MAX};

static bool has_cap_sys_admin(void)
{
    char *status = NULL;
    bool has = false;
    if (read_file("/proc/self/status", 1 << 16, &status, NULL) == 0) {
        const char *eff = strstr(status, "\nCapEff:");
        has = eff && (strtoull(eff + 8, NULL, 16) >> CAP_SYS_ADMIN_BIT & 1);
    }
    free(status);
    return has;
}

/* $CALDERA_SHIM (empty: none), else caldera-shim in the server executable's directory. */
static void find_supervisor(void)
{
    const char *env = getenv("CALDERA_SHIM");
    if (env) {
        snprintf(shim_path, sizeof shim_path, "%s", env);
    } else {
        char exe[4096];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            snprintf(shim_path, sizeof shim_path, "%.*s/caldera-shim", (int)(slash - exe), exe);
    }
    if (shim_path[0] && access(shim_path, X_OK) == 0)
        return;
    snprintf(shim_warning, sizeof shim_warning,
             "no task supervisor (%s%s): tasks run directly and a restarted server cannot adopt them",
             shim_path[0] ? shim_path : "CALDERA_SHIM is empty", shim_path[0] ? " is not executable" : "");
    shim_path[0] = '\0';
}

static void init_runtime(void)
{
    const struct cgroup_layout *L = cgroup_layout();
    mount_namespaces = has_cap_sys_admin();
    find_supervisor();
    if (shim_warning[0])
        log_warn("%s", shim_warning);
    if (L->summary[0])
        log_info("%s", L->summary);
    if (L->warning[0])
        log_warn("%s%s%s%s", L->warning, L->detail[0] ? " (" : "", L->detail, L->detail[0] ? ")" : "");
    if (!mount_namespaces)
        log_info("no CAP_SYS_ADMIN: hosts files and ssh keys are not bound into tasks");
}

void process_runtime_init(void) { pthread_once(&runtime_once, init_runtime); }

bool process_can_mount(void)
{
    process_runtime_init();
    return mount_namespaces;
}

void process_runtime_set_limits(const struct process_limits *limits) { task_limits = *limits; }

int64_t process_pids_max(int64_t pod_pids_max)
{
    int64_t server = task_limits.pids_max;
    return pod_pids_max > 0 && (server <= 0 || pod_pids_max < server) ? pod_pids_max : server;
}

const char *process_runtime_warning(void)
{
    process_runtime_init();
    const char *w = cgroup_layout()->warning;
    return w[0] ? w : shim_warning[0] ? shim_warning : NULL;
}

const char *process_supervisor_warning(void)
{
    process_runtime_init();
    return shim_warning[0] ? shim_warning : NULL;
}

int64_t process_start_ticks(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    for (int field = 2; p && *p && field < 22; p++)
        if (*p == ' ')
            field++;
    return p && *p ? strtoll(p, NULL, 10) : -1;
}

/* Without root, a task runs as the server or not at all. */
static int check_identity(const struct attempt_spec *spec, bool root, char *why, size_t why_len)
{
    if (root)
        return 0;
    if (spec->uid >= 0 && (uid_t)spec->uid != geteuid()) {
        snprintf(why, why_len, "cannot run as uid %d: the job server is not root", (int)spec->uid);
        return -1;
    }
    if (spec->gid >= 0 && (gid_t)spec->gid != getegid()) {
        snprintf(why, why_len, "cannot run as gid %d: the job server is not root", (int)spec->gid);
        return -1;
    }
    return 0;
}

static void describe_failure(const struct spawn_failure *f, const struct spawn_request *req, const char *cgroup,
                             const struct attempt_spec *spec, char *why, size_t why_len)
{
    const char *err = strerror(f->err);
    char label[CGROUP_PATH_MAX];
    switch (f->step) {
    case SPAWN_JOIN_CGROUP:
        cgroup_join_label(f->index, cgroup, label, sizeof label);
        snprintf(why, why_len, "cannot join cgroup %s: %s", label, err);
        break;
    case SPAWN_SETSID: snprintf(why, why_len, "cannot start a session for the process: %s", err); break;
    case SPAWN_UNSHARE: snprintf(why, why_len, "cannot give the task a mount namespace of its own: %s", err); break;
    case SPAWN_MOUNT_PRIVATE: snprintf(why, why_len, "cannot make the task's mounts private: %s", err); break;
    case SPAWN_BIND_HOSTS: snprintf(why, why_len, "cannot bind %s over /etc/hosts: %s", req->hosts_file, err); break;
    case SPAWN_BIND_SSH:
        snprintf(why, why_len, "cannot bind %s over %s: %s", req->ssh_dir, req->ssh_target, err);
        break;
    case SPAWN_BIND_VOLUME:
        snprintf(why, why_len, "cannot bind the volume directory %s at %s: %s", req->bind_sources[f->index],
                 req->bind_targets[f->index], err);
        break;
    case SPAWN_MOUNT_TARGET:
        snprintf(why, why_len, "cannot mount a volume at %s: %s", spec->mounts[f->index].target,
                 f->err == ELOOP || f->err == ENOTDIR ? "it passes through a symbolic link or a file: not followed"
                 : f->err == ENOENT                   ? "no such directory on the node (an emptyDir is mounted over "
                                                        "one that exists)"
                                                      : err);
        break;
    case SPAWN_MOUNT_VOLUME:
        snprintf(why, why_len, "cannot mount the volume %s at %s: %s",
                 spec->mounts[f->index].source ? spec->mounts[f->index].source : "(tmpfs)",
                 spec->mounts[f->index].target, err);
        break;
    case SPAWN_STDIN: snprintf(why, why_len, "cannot open /dev/null as stdin: %s", err); break;
    case SPAWN_STDOUT: snprintf(why, why_len, "cannot send stdout and stderr to %s: %s", spec->log_path, err); break;
    case SPAWN_EXITS_FD:
        snprintf(why, why_len, "cannot hand %s to the task's supervisor: %s", spec->exits_path, err);
        break;
    case SPAWN_CHDIR: /* as the task's user: a directory it may not enter is refused */
        if (f->err == ENOENT)
            snprintf(why, why_len, "workingDir %s does not exist on this node", spec->chdir_to);
        else
            snprintf(why, why_len, "cannot change to workingDir %s: %s", spec->chdir_to, err);
        break;
    case SPAWN_NO_NEW_PRIVS:
        snprintf(why, why_len, "cannot keep the task from gaining privileges through exec: %s", err);
        break;
    case SPAWN_SETGROUPS:
    case SPAWN_SETGID: snprintf(why, why_len, "cannot run as gid %d: %s", (int)spec->gid, err); break;
    case SPAWN_SETUID: snprintf(why, why_len, "cannot run as uid %d: %s", (int)spec->uid, err); break;
    case SPAWN_SIGNALS: snprintf(why, why_len, "cannot reset the task's signal handling: %s", err); break;
    case SPAWN_EXEC:
        snprintf(why, why_len, "exec: \"%s\": %s", spec->oci_image || !spec->argv ? req->path : spec->argv[0], err);
        break;
    case SPAWN_CLONE:
    case SPAWN_OK:
    default: snprintf(why, why_len, "cannot start the process: %s", err); break;
    }
}

/* The attempt's cgroup: the controller names it; one it did not name still gets one. */
static void choose_cgroup_name(const struct attempt_spec *spec, char *name, size_t len)
{
    if (spec->cgroup_name && spec->cgroup_name[0])
        snprintf(name, len, "%s", spec->cgroup_name);
    else
        snprintf(name, len, "server-%d/%lu", (int)getpid(), ++unnamed_cgroups);
}

/* Everything the child will need, made in the parent: dirs, command, log, ssh target, cgroup. */
struct prepared {
    char exe[4096];
    char ssh_target[4096];
    char cgroup[CGROUP_NAME_MAX];
    int log_fd, exits_fd;
    struct task_dirs dirs;
    struct cgroup_join join;
    bool isolate;
    int nbinds;               /* volumes bound at their mount paths */
    struct pod_mounts mounts; /* the pod's hostPath and emptyDir volumes */
    const char *bind_sources[ATTEMPT_VOLUMES_MAX], *bind_targets[ATTEMPT_VOLUMES_MAX];
    char **argv; /* with the supervisor: its argv, the task's after it; else NULL */
    bool oci;    /* runtimeClassName oci: the task is `podman run ...` (oci_launch.h) */
    struct oci_launch launch;
    char attempt_text[16];
    char max_log_arg[48]; /* --max-log-bytes=N */
};

static void release_prepared(struct prepared *pp)
{
    if (pp->log_fd >= 0)
        close(pp->log_fd);
    if (pp->exits_fd >= 0)
        close(pp->exits_fd);
    task_dirs_close(&pp->dirs);
    free(pp->argv);
    if (pp->oci)
        oci_launch_release(&pp->launch);
    pp->oci = false;
    pp->log_fd = pp->exits_fd = -1;
    pp->argv = NULL;
}

/* caldera-shim [--max-log-bytes=N] POD ATTEMPT EXE ARGV0 [ARG...], with the exits file open for it.
 * A file that cannot be opened only costs adoption: the task runs directly. */
static int wrap_in_supervisor(const struct attempt_spec *spec, char *const *task_argv, struct prepared *pp)
{
    if (!shim_path[0] || !spec->exits_path || !spec->pod)
        return 0;
    pp->exits_fd = task_open_exits(spec, &pp->dirs);
    if (pp->exits_fd < 0) {
        log_warn("cannot open %s for the task's supervisor (%s): %s runs unsupervised", spec->exits_path,
                 strerror(errno), spec->pod);
        return 0;
    }
    /* Best effort: without the room, an exit during a full disk may leave no line. */
    exits_file_reserve(pp->exits_fd, spec->exits_pending);
    size_t n = 0;
    while (task_argv[n])
        n++;
    pp->argv = malloc((n + 6) * sizeof *pp->argv);
    if (!pp->argv)
        return -1;
    snprintf(pp->attempt_text, sizeof pp->attempt_text, "%u", spec->attempt);
    char **a = pp->argv;
    *a++ = shim_path;
    if (task_limits.max_log_bytes > 0) {
        snprintf(pp->max_log_arg, sizeof pp->max_log_arg, "--max-log-bytes=%lld", (long long)task_limits.max_log_bytes);
        *a++ = pp->max_log_arg;
    }
    *a++ = (char *)spec->pod;
    *a++ = pp->attempt_text;
    *a++ = pp->exe;
    memcpy(a, task_argv, (n + 1) * sizeof *pp->argv);
    return 0;
}

/* An OCI attempt's cgroup holds the container's below it: its supervisor and the podman client go
 * into a child of their own (cgroup v2 allows no process beside child cgroups), whose cgroup.procs
 * replace the attempt's in join; on v2 the attempt's controllers are enabled for its children. */
static int nest_for_container(const char *cgroup, struct cgroup_join *join, char *why, size_t why_len)
{
    const struct cgroup_layout *L = cgroup_layout();
    cgroup_join_close(join);
    if (L->mode == CGROUP_V2) {
        char dir[CGROUP_PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", L->h[0].parent, cgroup);
        if (cgroup_enable_controllers(dir, L->h[0].controllers) != 0) {
            snprintf(why, why_len, "cannot enable the controllers of cgroup %s for its container: %s", dir,
                     strerror(errno));
            return -1;
        }
    }
    char child[CGROUP_NAME_MAX];
    if (snprintf(child, sizeof child, "%s/" OCI_SUPERVISOR_CGROUP, cgroup) >= (int)sizeof child) {
        snprintf(why, why_len, "the cgroup name %s is too long for a container", cgroup);
        return -1;
    }
    struct cgroup_limits none = {0, 0, 0, NULL, NULL};
    return cgroup_create(child, &none, join, why, why_len);
}

static int prepare(const struct attempt_spec *spec, bool root, struct prepared *pp, char *why, size_t why_len)
{
    bool switch_user = root && (spec->uid >= 0 || spec->gid >= 0);
    pp->log_fd = pp->exits_fd = -1;
    pp->dirs = (struct task_dirs){-1, -1};
    pp->argv = NULL;
    pp->join.count = 0;
    pp->cgroup[0] = '\0';
    int binds[ATTEMPT_VOLUMES_MAX];
    pp->nbinds = 0;
    pp->mounts.count = 0;
    if (spec->nvolumes > ATTEMPT_VOLUMES_MAX) {
        snprintf(why, why_len, "a pod may have at most %d volumes", ATTEMPT_VOLUMES_MAX);
        return -1;
    }
    if (check_identity(spec, root, why, why_len) != 0 ||
        task_prepare_dirs(spec, switch_user, &pp->dirs, why, why_len) != 0)
        return -1;
    pp->oci = false;
    if (task_prepare_volumes(spec, switch_user, binds, &pp->nbinds, why, why_len) != 0 ||
        (!spec->oci_image &&
         task_resolve_command(spec->argv[0], spec->envp, pp->exe, sizeof pp->exe, why, why_len) != 0)) {
        release_prepared(pp);
        return -1;
    }
    /* a container's volumes are podman's to mount: the server only makes and checks their sources */
    if (spec->nmounts > 0 &&
        ((!mount_namespaces && !spec->oci_image) ||
         pod_mounts_prepare(spec, switch_user, spec->oci_image != NULL, &pp->mounts, why, why_len) != 0)) {
        if (!mount_namespaces && !spec->oci_image) /* the gateway refuses such pods: an earlier server's */
            snprintf(why, why_len,
                     "the server cannot give tasks a mount namespace (no CAP_SYS_ADMIN) for the pod's volumes");
        release_prepared(pp);
        return -1;
    }
    if (!mount_namespaces || spec->oci_image)
        pp->nbinds = 0; /* the variables still name the directories; podman binds them in a container */
    for (int i = 0; i < pp->nbinds; i++) {
        pp->bind_sources[i] = spec->volume_dirs[binds[i]];
        pp->bind_targets[i] = spec->volume_targets[binds[i]];
    }
    pp->isolate = (spec->hosts_file || spec->ssh_dir || pp->nbinds > 0 || pp->mounts.count > 0) && mount_namespaces &&
                  !spec->oci_image;
    if ((pp->isolate && spec->ssh_dir &&
         task_ssh_target(spec->uid, spec->gid, pp->ssh_target, sizeof pp->ssh_target, why, why_len) != 0) ||
        (pp->log_fd = task_open_log(spec, &pp->dirs, why, why_len)) < 0) {
        release_prepared(pp);
        return -1;
    }
    bool cgroups = cgroup_layout()->mode != CGROUP_NONE;
    if (cgroups)
        choose_cgroup_name(spec, pp->cgroup, sizeof pp->cgroup);
    if (spec->oci_image) {
        if (oci_launch_prepare(spec, pp->cgroup, process_pids_max(spec->pids_max), &pp->mounts, &pp->launch, why,
                               why_len) != 0) {
            release_prepared(pp);
            return -1;
        }
        pp->oci = true;
        snprintf(pp->exe, sizeof pp->exe, "%s", pp->launch.program);
    }
    if (wrap_in_supervisor(spec, pp->oci ? pp->launch.argv : spec->argv, pp) != 0) {
        snprintf(why, why_len, "out of memory");
        if (pp->oci)
            unlink(pp->launch.env_file);
        release_prepared(pp);
        return -1;
    }
    if (cgroups) {
        struct cgroup_limits lim = {.memory = spec->memory_limit,
                                    .cpu_milli = spec->cpu_limit_milli,
                                    .pids = process_pids_max(spec->pids_max),
                                    .cpus = spec->cpuset_cpus,
                                    .mems = spec->cpuset_mems};
        if (cgroup_create(pp->cgroup, &lim, &pp->join, why, why_len) != 0 ||
            (pp->oci && nest_for_container(pp->cgroup, &pp->join, why, why_len) != 0)) {
            cgroup_join_close(&pp->join);
            if (pp->oci) {
                cgroup_remove(pp->cgroup);
                unlink(pp->launch.env_file);
            }
            release_prepared(pp);
            return -1;
        }
    }
    return 0;
}

int process_start(const struct attempt_spec *spec, struct process *out, struct attempt_started *started, char *why,
                  size_t why_len)
{
    process_runtime_init();
    *out = (struct process){.pid = -1, .pidfd = -1, .start_ticks = -1, .exit_record = NULL, .adopted = false};
    *started = (struct attempt_started){0};
    bool root = geteuid() == 0;
    struct prepared pp;
    if (prepare(spec, root, &pp, why, why_len) != 0)
        return -1;
    /* born in its cgroup where the kernel can (v2): nothing to join (spawn.h) */
    int cgroup_dir = pp.cgroup[0] && !pp.oci ? cgroup_open_dir(pp.cgroup) : -1;
    struct spawn_request req = {
        .path = pp.argv ? pp.argv[0] : pp.exe,
        .argv = pp.argv  ? pp.argv
                : pp.oci ? pp.launch.argv
                         : spec->argv,
        .envp = pp.oci ? pp.launch.envp : spec->envp,
        .cgroup_procs = pp.join.procs_fd,
        .cgroup_count = pp.join.count,
        .cgroup_dir = cgroup_dir,
        .hosts_file = pp.isolate ? spec->hosts_file : NULL,
        .ssh_dir = pp.isolate ? spec->ssh_dir : NULL,
        .ssh_target = pp.ssh_target,
        .bind_sources = pp.bind_sources,
        .bind_targets = pp.bind_targets,
        .bind_count = pp.nbinds,
        .mounts = pp.mounts.mounts,
        .mount_count = pp.isolate ? pp.mounts.count : 0,
        .log_fd = pp.log_fd,
        .exits_fd = pp.exits_fd,
        .chdir_to = spec->chdir_to,
        /* podman runs as root (rootful) and gives the container the user itself (--user) */
        .switch_user = root && (spec->uid >= 0 || spec->gid >= 0) && !pp.oci,
        .uid = spec->uid,
        .gid = spec->gid,
    };
    struct spawn_failure failure;
    pid_t pid;
    int pidfd;
    int rc = spawn_process(&req, &pid, &pidfd, &failure);
    int64_t running_ms = clock_wall_ms(); /* the attempt's start: the child has executed its program */
    cgroup_join_close(&pp.join);
    if (cgroup_dir >= 0)
        close(cgroup_dir);
    bool supervised = pp.argv != NULL, oci = pp.oci;
    char oci_env_file[sizeof pp.launch.env_file], oci_name[sizeof pp.launch.name];
    snprintf(oci_env_file, sizeof oci_env_file, "%s", oci ? pp.launch.env_file : "");
    snprintf(oci_name, sizeof oci_name, "%s", oci ? pp.launch.name : "");
    if (rc != 0)
        describe_failure(&failure, &req, pp.cgroup, spec, why, why_len);
    release_prepared(&pp);
    if (rc != 0) {
        if (pp.cgroup[0])
            cgroup_remove(pp.cgroup);
        if (oci)
            unlink(oci_env_file);
        return -1;
    }
    if (oci) {
        out->oci_name = strdup(oci_name);
        out->oci_log = strdup(spec->log_path);
        out->oci_memory = spec->memory_limit;
    }
    out->pid = pid;
    out->pidfd = pidfd;
    out->start_ticks = process_start_ticks(pid);
    if (supervised) /* where an exec failure will be told; without it the task still runs */
        out->exit_record = process_exit_record(spec->exits_path, spec->pod, spec->attempt, pid);
    snprintf(out->cgroup_name, sizeof out->cgroup_name, "%s", pp.cgroup);
    started->pid = pid;
    started->pid_start = out->start_ticks;
    cgroup_describe(pp.cgroup, started->cgroup, sizeof started->cgroup);
    started->isolated = pp.isolate;
    started->start_ms = running_ms;
    return 0;
}

void process_signal(const struct process *p, int sig)
{
    if (p->pid <= 0)
        return;
    /* A task of an earlier run of the server (found again at recovery) comes without its cgroup:
     * read it from /proc before the signal can make the process vanish. */
    char lost[CGROUP_NAME_MAX] = "";
    const char *cgroup = p->cgroup_name;
    if (!cgroup[0] && p->pidfd < 0 && cgroup_name_of_pid(p->pid, lost, sizeof lost) == 0)
        cgroup = lost;
    if (kill(-p->pid, sig) != 0 && errno == ESRCH)
        kill(p->pid, sig); /* the leader may have left its group; reach it directly */
    /* The cgroup catches what left the process group (setsid, setpgid); members of the group were
     * signalled already, and a second SIGTERM could read as "force quit" to some programs. */
    if (cgroup[0])
        cgroup_signal(cgroup, sig, p->pid);
    if (cgroup == lost && sig == SIGKILL)
        oci_or_cgroup_remove_async(lost);
}

/* How an exited process ended, its usage, and its tree ended: process_reap and process_collect.
 * flags WNOWAIT leaves it a zombie, its pid still its own. */
static int collect_exit(struct process *p, int flags, struct replica_exit *ex)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (p->pidfd < 0 || waitid(P_PIDFD, (id_t)p->pidfd, &info, WEXITED | WNOHANG | flags) != 0 || info.si_pid == 0)
        return -1;
    memset(ex, 0, sizeof *ex);
    if (info.si_code == CLD_EXITED) {
        ex->exit_code = info.si_status;
    } else {
        ex->signal = info.si_status;
        ex->exit_code = 128 + info.si_status;
    }
    ex->end_ms = clock_wall_ms();
    process_read_exec_error(p->exit_record, ex);
    if (p->oci_log && !ex->signal)
        oci_read_start_failure(p->oci_log, ex);
    if (p->cgroup_name[0]) {
        struct cgroup_usage usage;
        cgroup_read_usage(p->cgroup_name, &usage);
        ex->oom = usage.oom_kills > 0;
        /* v1 counts an OOM kill only in the container's own cgroup, which podman --rm has removed: a
         * container SIGKILLed at its memory limit was the OOM killer's doing (v2 counts it above) */
        if (p->oci_name && !ex->oom && ex->signal == 0 && ex->exit_code == 128 + SIGKILL && p->oci_memory > 0 &&
            usage.peak_memory >= p->oci_memory)
            ex->oom = true;
        ex->peak_memory = usage.peak_memory;
        ex->cpu_usec = usage.cpu_usec;
        /* The attempt ends with its main process: whatever it left running goes with it now; the
         * cgroup's removal (which waits for those to die) on the cleaner thread. */
        cgroup_signal(p->cgroup_name, SIGKILL, 0);
        if (!p->oci_name)
            cgroup_remove_async(p->cgroup_name);
    }
    if (p->oci_name) { /* the container goes first, then its cgroup (oci_runtime.c) */
        char env_file[4200];
        snprintf(env_file, sizeof env_file, "%s.env", p->oci_log ? p->oci_log : "");
        oci_remove_async(p->oci_name, p->cgroup_name, p->oci_log ? env_file : NULL);
    }
    p->cgroup_name[0] = '\0';
    return 0;
}

int process_reap(struct process *p, struct replica_exit *ex)
{
    if (collect_exit(p, 0, ex) != 0)
        return -1;
    process_forget(p);
    return 0;
}

int process_collect(struct process *p, struct replica_exit *ex)
{
    if (collect_exit(p, WNOWAIT, ex) != 0)
        return -1;
    int pidfd = p->pidfd;
    p->pidfd = -1;
    process_forget(p); /* all but the pidfd, which holds the zombie */
    p->pidfd = pidfd;
    return 0;
}

void process_release(int pidfd)
{
    siginfo_t info;
    if (pidfd < 0)
        return;
    memset(&info, 0, sizeof info);
    waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG);
    close(pidfd);
}

bool process_wait_exit(const struct process *p, int timeout_ms)
{
    if (p->pidfd < 0)
        return true;
    struct pollfd pfd = {.fd = p->pidfd, .events = POLLIN};
    int n;
    while ((n = poll(&pfd, 1, timeout_ms)) < 0 && errno == EINTR)
        ;
    return n == 1;
}

void process_forget(struct process *p)
{
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->pidfd = -1;
    free(p->exit_record);
    p->exit_record = NULL;
    free(p->oci_name);
    free(p->oci_log);
    p->oci_name = p->oci_log = NULL;
}

int process_runtime_flush(int timeout_ms)
{
    int oci = oci_cleanup_flush(timeout_ms); /* it queues cgroup removals of its own: first */
    return cgroup_cleaner_flush(timeout_ms) | oci;
}
