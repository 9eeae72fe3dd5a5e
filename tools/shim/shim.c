/* caldera-shim: the supervisor every task runs under, so a task outlives the job server and its
 * exit status is still known: it runs the task, writes its log, waits and appends the status to a file. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shim_log.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* The server hands the exits file over as this descriptor (O_APPEND, opened by the server so a
 * task running as another user needs no right to it). */
#define EXITS_FD 3

#define CHUNK_MAX 16384     /* one read from a pipe; kubelet's longest line (longer ones go as P records) */
#define DRAIN_MAX (4 << 20) /* after the task's end, at most this much more is read from its pipes */

/* Usage: caldera-shim [--max-log-bytes=N] POD ATTEMPT EXE ARGV0 [ARG...]
 *
 * The shim is the process the job server starts, watches and signals, the leader of the task's
 * session and process group. It runs EXE with ARGV0... and the shim's own environment, and takes
 * its own fd 1 as the attempt's log: the task's stdout and stderr are pipes the shim copies into it
 * as CRI records (shim_log.c), within N bytes (0 or absent: unbounded). When the task has ended it
 * reads what the pipes still hold (not waiting for a process the task left behind), and appends one
 * line to EXITS_FD:
 *     POD ATTEMPT SHIM_PID exit CODE TIME_MS        the task exited with CODE
 *     POD ATTEMPT SHIM_PID signal SIG TIME_MS       a signal ended it
 *     POD ATTEMPT SHIM_PID exec-error ERRNO TIME_MS it could not be executed
 * (TIME_MS: when, in milliseconds since the epoch)
 * then ends the same way the task did (the same code, or the same signal), so a server that is
 * still its parent reads the task's status from the shim's. The shim itself never takes the signals
 * a stop sends the process group (its task receives them too): it keeps every signal blocked, all
 * its life, and ends when its task has ended, or by SIGKILL. It installs no handler, so the
 * dispositions it was started with (the server resets them all to the default) are the task's, and
 * its vfork child needs no reset of its own: one system call (the mask) instead of about 120 per
 * task (a handler per signal here, and each put back in the child). It is not dumpable: a task running as the same user can neither trace it nor open
 * its descriptors (the log, the exits file) through /proc. */

/* Signals that reached the shim before its task existed were meant for the task: pass them on.
 * Only those (early): one sent to the group once the task exists reaches the task by itself. */
static void forward_pending(pid_t task, const sigset_t *early)
{
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGCHLD && sigismember(early, sig) == 1)
            kill(task, sig);
}

/* One write: O_APPEND keeps concurrent shims' lines whole. */
static void record(const char *pod, const char *attempt, const char *what, int value)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long long ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    char line[1024];
    int n = snprintf(line, sizeof line, "%s %s %d %s %d %lld\n", pod, attempt, (int)getpid(), what, value, ms);
    if (n > 0 && n < (int)sizeof line) {
        while (write(EXITS_FD, line, (size_t)n) < 0 && errno == EINTR)
            ;
    }
}

/* Leaves as the task left: by its signal (no core file of the shim's own), or with its code. */
__attribute__((noreturn)) static void end_like(int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
        _exit(128 + sig); /* a signal whose default is to continue (SIGCHLD, SIGURG, ...) */
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* Descriptors 0-2 open (a shim started by hand may lack some), so a pipe never lands on them. */
static void fill_stdio(void)
{
    int fd;
    while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= 2)
        ;
    if (fd > 2)
        close(fd);
}

/* The log is the shim's fd 1 (the server's doing), kept above the stdio numbers, close-on-exec. */
static int take_log(void)
{
    int fd = fcntl(1, F_DUPFD_CLOEXEC, 4);
    return fd >= 0 ? fd : open("/dev/null", O_WRONLY | O_CLOEXEC);
}

static char chunk[CHUNK_MAX];

/* One read from a pipe into the log; 0 once it is done with (its end, or an error). */
static int copy_once(int fd, enum shim_stream stream)
{
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n > 0) {
        shim_log_chunk(stream, chunk, (size_t)n);
        return 1;
    }
    return n < 0 && (errno == EINTR || errno == EAGAIN) ? 1 : 0;
}

/* Copies the pipes into the log until the task has ended (its status in *status). A pipe that
 * closes early (the task closed its stdout) is dropped; the pidfd says when the task is gone, and
 * without one (a kernel before 5.3) a tenth of a second's poll asks waitpid. */
static void pump(pid_t child, struct pollfd pipes[2], int *status)
{
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    struct pollfd fds[3] = {pipes[0], pipes[1], {.fd = pidfd, .events = POLLIN}};
    for (;;) {
        int n = poll(fds, 3, pidfd >= 0 ? -1 : 100);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2 && n > 0; i++)
            if (fds[i].fd >= 0 && fds[i].revents && !copy_once(fds[i].fd, i ? SHIM_STDERR : SHIM_STDOUT)) {
                close(fds[i].fd);
                fds[i].fd = -1;
            }
        if ((pidfd < 0 || (n > 0 && fds[2].revents)) && waitpid(child, status, WNOHANG) == child)
            goto ended;
    }
    while (waitpid(child, status, 0) < 0) { /* poll failed: wait without copying */
        if (errno != EINTR) {
            *status = 1 << 8; /* cannot happen: the child is ours */
            break;
        }
    }
ended:
    if (pidfd >= 0)
        close(pidfd);
    pipes[0].fd = fds[0].fd;
    pipes[1].fd = fds[1].fd;
}

/* What the task wrote before it ended is still in the pipes: read what is there now, and no more
 * than DRAIN_MAX, then stop (a process it left behind may hold the pipes open and keep writing). */
static void drain(struct pollfd pipes[2])
{
    long total = 0;
    for (int i = 0; i < 2; i++) {
        if (pipes[i].fd < 0)
            continue;
        fcntl(pipes[i].fd, F_SETFL, O_NONBLOCK);
        ssize_t n;
        while (total < DRAIN_MAX && ((n = read(pipes[i].fd, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR)))
            if (n > 0) {
                shim_log_chunk(i ? SHIM_STDERR : SHIM_STDOUT, chunk, (size_t)n);
                total += n;
            }
        close(pipes[i].fd);
    }
}

static void log_failure(const char *what, const char *exe, int err)
{
    char text[4200];
    snprintf(text, sizeof text, "caldera-shim: %s %s: %s", what, exe, strerror(err));
    shim_log_message(text);
    shim_log_finish();
}

/* A whole number of bytes (by hand: strtoll would bring musl's number scanner); anything else is 0. */
static long long parse_max_log_bytes(const char *arg)
{
    long long n = 0;
    for (const char *c = arg; *c; c++) {
        if (*c < '0' || *c > '9' || n > (1LL << 50))
            return 0;
        n = n * 10 + (*c - '0');
    }
    return n;
}

int main(int argc, char **argv)
{
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); /* first: the task runs as our user */
    long long max_log_bytes = 0;
    if (argc > 1 && strncmp(argv[1], "--max-log-bytes=", 16) == 0) {
        max_log_bytes = parse_max_log_bytes(argv[1] + 16);
        argc--;
        argv++;
    }
    if (argc < 5) {
        fprintf(stderr, "usage: caldera-shim [--max-log-bytes=N] POD ATTEMPT EXE ARGV0 [ARG...]\n");
        return 2;
    }
    const char *pod = argv[1], *attempt = argv[2], *exe = argv[3];
    char **task_argv = argv + 4;
    int have_exits = fcntl(EXITS_FD, F_SETFD, FD_CLOEXEC) == 0; /* never the task's */
    /* A stop can come at any moment, even before the task runs. The server execs the shim with every
     * signal blocked (and this blocks them again for a shim started by hand), and they stay blocked
     * here: one sent before the task exists stays pending and is handed to the task below; one sent
     * while the vfork child runs is pending in it too, and meets the default action once it
     * unblocks. */
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &all, NULL);
    fill_stdio();
    shim_log_open(take_log(), max_log_bytes);
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        int pipe_errno = errno;
        log_failure("cannot start", exe, pipe_errno);
        if (have_exits)
            record(pod, attempt, "exec-error", pipe_errno);
        return 127;
    }

    sigset_t early;
    if (sigpending(&early) != 0)
        sigemptyset(&early);
    volatile int exec_errno = 0; /* the vfork child shares this memory until it execs */
    pid_t child = vfork();
    if (child == 0) {                                     /* the default dispositions: the shim sets none */
        sigprocmask(SIG_SETMASK, &none, NULL);            /* a pending stop ends it here, as it would the task */
        if (dup2(out[1], 1) == 1 && dup2(err[1], 2) == 2) /* its own descriptor table: ours stay */
            execv(exe, task_argv);
        exec_errno = errno;
        _exit(127);
    }
    if (child > 0)
        forward_pending(child, &early);
    close(out[1]);
    close(err[1]);
    if (child < 0) {
        int vfork_errno = errno;
        log_failure("cannot start", exe, vfork_errno);
        if (have_exits)
            record(pod, attempt, "exec-error", vfork_errno);
        return 127;
    }
    struct pollfd pipes[2] = {{.fd = out[0], .events = POLLIN}, {.fd = err[0], .events = POLLIN}};
    int status;
    pump(child, pipes, &status);
    if (exec_errno) {
        log_failure("exec", exe, exec_errno);
        if (have_exits)
            record(pod, attempt, "exec-error", exec_errno);
        return 127;
    }
    if (have_exits) {
        if (WIFSIGNALED(status))
            record(pod, attempt, "signal", WTERMSIG(status));
        else
            record(pod, attempt, "exit", WIFEXITED(status) ? WEXITSTATUS(status) : 1);
        close(EXITS_FD);
    }
    drain(pipes);
    shim_log_finish();
    end_like(status);
}
