/* The process runtime. posix_spawn (vfork-fast) with file actions does the redirection and chdir;
 * POSIX_SPAWN_SETSID gives each attempt its own session and process group, so one kill reaches the
 * whole tree and a server restart does not take the tasks with it. */
#include "scheduler/runtime/process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"

int64_t process_start_ticks(pid_t pid)
{
    char path[64], *data = NULL;
    int64_t ticks = -1;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (read_file(path, 4096, &data, NULL) == 0) {
        const char *p = strrchr(data, ')'); /* the command name may hold spaces and parentheses */
        for (int field = 2; p && *p && field < 22; p++)
            if (*p == ' ')
                field++;
        if (p)
            ticks = strtoll(p, NULL, 10);
    }
    free(data);
    return ticks;
}

static const char *env_lookup(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; envp && envp[i]; i++)
        if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
            return envp[i] + n + 1;
    return NULL;
}

/* argv[0] as execvp would find it, but on the attempt's PATH rather than the server's. */
static int resolve_command(const char *cmd, char *const *envp, char *out, size_t len, char *why, size_t why_len)
{
    if (strchr(cmd, '/')) {
        if (access(cmd, X_OK) != 0) {
            snprintf(why, why_len, "exec: \"%s\": %s", cmd, strerror(errno));
            return -1;
        }
        snprintf(out, len, "%s", cmd);
        return 0;
    }
    const char *path = env_lookup(envp, "PATH");
    for (const char *dir = path; dir && *dir;) {
        const char *end = strchr(dir, ':');
        size_t dlen = end ? (size_t)(end - dir) : strlen(dir);
        snprintf(out, len, "%.*s/%s", (int)dlen, dlen ? dir : ".", cmd);
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        dir = end ? end + 1 : NULL;
    }
    snprintf(why, why_len, "exec: \"%s\": executable file not found in $PATH", cmd);
    return -1;
}

static int prepare_dirs(const struct attempt_spec *spec, char *why, size_t why_len)
{
    char log_dir[4096];
    snprintf(log_dir, sizeof log_dir, "%s", spec->log_path);
    char *slash = strrchr(log_dir, '/');
    if (slash)
        *slash = '\0';
    if (mkdir_p(spec->work_dir, 0755) != 0 || mkdir_p(log_dir, 0755) != 0) {
        snprintf(why, why_len, "cannot create the job's directories under %s: %s", log_dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(spec->chdir_to, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, why_len, "workingDir %s does not exist on this node", spec->chdir_to);
        return -1;
    }
    return 0;
}

int process_start(const struct attempt_spec *spec, struct process *out, char *why, size_t why_len)
{
    char exe[4096];
    if (prepare_dirs(spec, why, why_len) != 0 || resolve_command(spec->argv[0], spec->envp, exe, sizeof exe, why, why_len) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, spec->log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addchdir_np(&fa, spec->chdir_to);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    pid_t pid;
    int err = posix_spawn(&pid, exe, &fa, &attr, spec->argv, spec->envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (err != 0) {
        snprintf(why, why_len, "exec: \"%s\": %s", spec->argv[0], strerror(err));
        return -1;
    }
    int fd = pidfd_open(pid, 0);
    if (fd < 0) {
        int e = errno;
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
        snprintf(why, why_len, "pidfd_open: %s", strerror(e));
        return -1;
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    out->pid = pid;
    out->pidfd = fd;
    out->start_ticks = process_start_ticks(pid);
    return 0;
}

void process_signal(const struct process *p, int sig)
{
    if (kill(-p->pid, sig) != 0 && errno == ESRCH)
        kill(p->pid, sig); /* the leader may have left its group; reach it directly */
}

int process_reap(struct process *p, struct replica_exit *ex)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PIDFD, (id_t)p->pidfd, &info, WEXITED | WNOHANG) != 0 || info.si_pid == 0)
        return -1;
    memset(ex, 0, sizeof *ex);
    if (info.si_code == CLD_EXITED) {
        ex->exit_code = info.si_status;
    } else {
        ex->signal = info.si_status;
        ex->exit_code = 128 + info.si_status;
    }
    ex->end_ms = clock_wall_ms();
    close(p->pidfd);
    p->pidfd = -1;
    return 0;
}
