/* caldera-shim: the supervisor every task runs under, so a task outlives the job server and its
 * exit status is still known: it runs the task, waits for it and appends the status to a file. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The server hands the exits file over as this descriptor (O_APPEND, opened by the server so a
 * task running as another user needs no right to it). */
#define EXITS_FD 3

/* Usage: caldera-shim POD ATTEMPT EXE ARGV0 [ARG...]
 *
 * The shim is the process the job server starts, watches and signals, the leader of the task's
 * session and process group. It runs EXE with ARGV0... and the shim's own environment, waits, and
 * appends one line to EXITS_FD:
 *     POD ATTEMPT SHIM_PID exit CODE TIME_MS        the task exited with CODE
 *     POD ATTEMPT SHIM_PID signal SIG TIME_MS       a signal ended it
 *     POD ATTEMPT SHIM_PID exec-error ERRNO TIME_MS it could not be executed
 * (TIME_MS: when, in milliseconds since the epoch)
 * then ends the same way the task did (the same code, or the same signal), so a server that is
 * still its parent reads the task's status from the shim's. The shim itself ignores the signals a
 * stop sends the process group (its task receives them too): it ends when its task has ended, or
 * by SIGKILL. */

static void on_signal(int sig) { (void)sig; }

/* Catchable signals get a handler that does nothing: signals sent to the whole group are meant for
 * the task. A handler, not SIG_IGN, because an ignored disposition would pass on to the task
 * through exec; a handled one goes back to the default there. */
static void shield_from_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig = 1; sig < NSIG; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP || sig == SIGCHLD || sig == SIGSEGV || sig == SIGBUS ||
            sig == SIGFPE || sig == SIGILL || sig == SIGABRT)
            continue;
        sigaction(sig, &sa, NULL); /* numbers in the gap glibc reserves fail harmlessly */
    }
}

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

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: caldera-shim POD ATTEMPT EXE ARGV0 [ARG...]\n");
        return 2;
    }
    const char *pod = argv[1], *attempt = argv[2], *exe = argv[3];
    char **task_argv = argv + 4;
    int have_exits = fcntl(EXITS_FD, F_SETFD, FD_CLOEXEC) == 0; /* never the task's */
    /* A stop can come at any moment, even before the task runs. The server execs the shim with every
     * signal blocked (and this blocks them again for a shim started by hand): one sent before the
     * task exists stays pending here and is handed to the task below; one sent while the vfork child
     * runs is pending in it too, and meets the task's default handlers once it unblocks. */
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &all, NULL);
    shield_from_signals();

    sigset_t early;
    if (sigpending(&early) != 0)
        sigemptyset(&early);
    volatile int exec_errno = 0; /* the vfork child shares this memory until it execs */
    pid_t child = vfork();
    if (child == 0) { /* its own copy of the handlers (no CLONE_SIGHAND): back to the defaults */
        for (int sig = 1; sig < NSIG; sig++)
            if (sig != SIGKILL && sig != SIGSTOP)
                signal(sig, SIG_DFL);
        sigprocmask(SIG_SETMASK, &none, NULL); /* a pending stop ends it here, as it would the task */
        execv(exe, task_argv);
        exec_errno = errno;
        _exit(127);
    }
    if (child > 0)
        forward_pending(child, &early);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (child < 0) {
        fprintf(stderr, "caldera-shim: cannot start %s: %s\n", exe, strerror(errno));
        if (have_exits)
            record(pod, attempt, "exec-error", errno);
        return 127;
    }
    int status;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) {
            status = 1 << 8; /* cannot happen: the child is ours */
            break;
        }
    }
    if (exec_errno) {
        fprintf(stderr, "caldera-shim: exec %s: %s\n", exe, strerror(exec_errno));
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
    end_like(status);
}
