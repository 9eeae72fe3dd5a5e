/* Companion processes, started with the runtime's spawner into the task's cgroup as the task's user:
 * their tokens, ports, logs, signals and exits. */
#include "runtime/companion.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cgroup/cgroup.h"
#include "runtime/oci_args.h"
#include "runtime/oci_runtime.h"
#include "runtime/process.h"
#include "runtime/spawn.h"

static int open_log(const char *path, char *why, size_t why_len)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            snprintf(why, why_len, "cannot make %s: %s", dir, strerror(errno));
            return -1;
        }
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(why, why_len, "cannot open the companion's log %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_uid != geteuid()) {
        close(fd);
        snprintf(why, why_len, "the companion's log %s is not a file of the server's", path);
        return -1;
    }
    if (fd < 3) { /* the child dups it onto 1 and 2 */
        int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        close(fd);
        fd = high;
    }
    return fd;
}

int companion_spawn(const struct companion_spec *spec, struct companion_proc *out, char *why, size_t why_len)
{
    process_runtime_init();
    *out = (struct companion_proc){.pid = -1, .pidfd = -1, .start_ticks = -1};
    bool root = geteuid() == 0;
    if (!root && spec->uid >= 0 && (uid_t)spec->uid != geteuid()) {
        snprintf(why, why_len, "cannot run as uid %d: the job server is not root", (int)spec->uid);
        return -1;
    }
    int log_fd = open_log(spec->log_path, why, why_len);
    if (log_fd < 0)
        return -1;
    struct cgroup_join join = {.count = 0};
    /* beside an OCI container, in its supervisor's cgroup (v2 allows no process beside child cgroups) */
    char nested[CGROUP_NAME_MAX + 32];
    const char *cgroup = spec->cgroup_name;
    if (cgroup && oci_cgroup_is_container(cgroup)) {
        snprintf(nested, sizeof nested, "%s/" OCI_SUPERVISOR_CGROUP, cgroup);
        cgroup = nested;
    }
    if (cgroup && cgroup[0] && cgroup_layout()->mode != CGROUP_NONE &&
        cgroup_join_existing(cgroup, &join, why, why_len) != 0) {
        close(log_fd);
        return -1;
    }
    struct spawn_request req = {
        .path = spec->program,
        .argv = spec->argv,
        .envp = spec->envp,
        .cgroup_procs = join.procs_fd,
        .cgroup_count = join.count,
        .cgroup_dir = -1,
        .log_fd = log_fd,
        .exits_fd = -1,
        .chdir_to = spec->chdir_to,
        .switch_user = root && (spec->uid >= 0 || spec->gid >= 0),
        .uid = spec->uid,
        .gid = spec->gid,
    };
    struct spawn_failure failure;
    pid_t pid;
    int pidfd;
    int rc = spawn_process(&req, &pid, &pidfd, &failure);
    cgroup_join_close(&join);
    close(log_fd);
    if (rc != 0) {
        const char *step = failure.step == SPAWN_JOIN_CGROUP ? "join the task's cgroup"
                           : failure.step == SPAWN_CHDIR     ? "change to the working directory"
                           : failure.step == SPAWN_EXEC      ? "exec"
                           : failure.step == SPAWN_SETUID || failure.step == SPAWN_SETGID ||
                                   failure.step == SPAWN_SETGROUPS
                               ? "switch user"
                               : "start";
        snprintf(why, why_len, "cannot %s (%s): %s", step, spec->program, strerror(failure.err));
        return -1;
    }
    out->pid = pid;
    out->pidfd = pidfd;
    out->start_ticks = process_start_ticks(pid);
    return 0;
}

bool companion_signal(const struct companion_proc *p, int sig)
{
    if (p->pid <= 0)
        return false;
    if (p->pidfd < 0 && (p->start_ticks < 0 || process_start_ticks(p->pid) != p->start_ticks))
        return false; /* gone, or the pid is someone else's now */
    if (kill(-p->pid, sig) != 0 && errno == ESRCH)
        kill(p->pid, sig);
    return true;
}

bool companion_gone(const struct companion_proc *p)
{
    if (p->pid <= 0)
        return true;
    if (p->pidfd < 0)
        return p->start_ticks < 0 || process_start_ticks(p->pid) != p->start_ticks;
    struct pollfd pfd = {.fd = p->pidfd, .events = POLLIN};
    return poll(&pfd, 1, 0) == 1;
}

bool companion_exited(struct companion_proc *p, int *status)
{
    *status = -1;
    if (!companion_gone(p))
        return false;
    if (p->pid <= 0 || p->pidfd < 0)
        return true; /* not ours to reap */
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PIDFD, (id_t)p->pidfd, &info, WEXITED | WNOHANG) == 0 && info.si_pid != 0)
        *status = info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status;
    return true;
}

void companion_release(struct companion_proc *p)
{
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->pidfd = -1;
}

int companion_token_new(char out[COMPANION_TOKEN_LEN + 1])
{
    unsigned char raw[COMPANION_TOKEN_LEN / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)n;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[COMPANION_TOKEN_LEN] = '\0';
    return 0;
}

int companion_token_write(const char *path, const char *token, int32_t uid, int32_t gid, char *why, size_t why_len)
{
    unlink(path); /* a name left there (an earlier start's, a planted link) is replaced, never followed */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(why, why_len, "cannot create the token file %s: %s", path, strerror(errno));
        return -1;
    }
    size_t len = strlen(token);
    bool ok = write(fd, token, len) == (ssize_t)len;
    if (ok && geteuid() == 0 && (uid >= 0 || gid >= 0))
        ok = fchown(fd, uid >= 0 ? (uid_t)uid : (uid_t)-1, gid >= 0 ? (gid_t)gid : (gid_t)-1) == 0;
    int err = errno;
    close(fd);
    if (!ok) {
        unlink(path);
        snprintf(why, why_len, "cannot write the token file %s: %s", path, strerror(err));
        return -1;
    }
    return 0;
}

static bool port_binds(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

int companion_port_alloc(int first, int last, int *next, bool (*taken)(void *ctx, int port), void *ctx)
{
    if (first <= 0 || last < first)
        return -1;
    int span = last - first + 1;
    int start = *next >= first && *next <= last ? *next : first;
    for (int i = 0; i < span; i++) {
        int port = first + (start - first + i) % span;
        if ((taken && taken(ctx, port)) || !port_binds(port))
            continue;
        *next = port < last ? port + 1 : first;
        return port;
    }
    return -1;
}
