/* Starting a terminal's shell (forkpty, a clean signal state and descriptor table, cwd, TERM) and
 * signalling its whole session: the group first, then each /proc entry whose session matches. */
#include "tools/terminal/procs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* In the child, between fork and exec: only async-signal-safe calls, and _exit on failure. */
static void become_shell(const char *shell, const char *cwd)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL); /* libwebsockets ignores SIGPIPE; the shell's pipelines must not */
    if (close_range(3, ~0U, 0) != 0)
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
    if (cwd[0] && chdir(cwd) != 0) {
        static const char msg[] = "caldera-terminal: cannot enter the working directory\r\n";
        (void)!write(2, msg, sizeof msg - 1);
        _exit(126);
    }
    setenv("TERM", "xterm-256color", 1);
    setenv("COLORTERM", "truecolor", 1);
    if (cwd[0])
        setenv("PWD", cwd, 1);
    execl(shell, shell, (char *)NULL);
    static const char msg[] = "caldera-terminal: cannot run the shell\r\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
}

pid_t procs_spawn_shell(const char *shell, const char *cwd, int cols, int rows, int *master, char *err, size_t errlen)
{
    struct winsize ws = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
    int fd = -1;
    pid_t pid = forkpty(&fd, NULL, NULL, &ws);
    if (pid < 0) {
        snprintf(err, errlen, "forkpty: %s", strerror(errno));
        return -1;
    }
    if (pid == 0)
        become_shell(shell, cwd);
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        snprintf(err, errlen, "pty: %s", strerror(errno));
        close(fd);
        kill(pid, SIGKILL);
        return -1; /* the sweep reaps it */
    }
    *master = fd;
    return pid;
}

/* The session id in /proc/PID/stat (fields after the command's closing parenthesis: state, ppid,
 * pgrp, session), or -1. */
static pid_t session_of(const char *pid_name)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%s/stat", pid_name);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    const char *close_paren = strrchr(line, ')');
    char state;
    int ppid, pgrp, sid;
    if (!close_paren || sscanf(close_paren + 1, " %c %d %d %d", &state, &ppid, &pgrp, &sid) != 4)
        return -1;
    return (pid_t)sid;
}

int procs_signal_session(pid_t sid, int sig)
{
    if (sid <= 1)
        return 0;
    kill(-sid, sig);
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        if (session_of(e->d_name) == sid) {
            kill((pid_t)atoi(e->d_name), sig);
            found++;
        }
    }
    closedir(d);
    return found;
}
