/* caldera-shim run by hand as the server runs it (every signal blocked, the exits file as fd 3, the
 * log as fd 1): the task's exit and signal in the exits line and in the shim's own status, a group
 * stop reaching the task while the shim outlives it, a stop pending before the task existed handed
 * to the task, and the task starting with no signal blocked or ignored. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/test.h"

#define WAIT_MS 10000

struct run {
    pid_t pid;
    char exits[64], log[64];
};

static const char *shim_path(void)
{
    const char *env = getenv("CALDERA_SHIM");
    return env && env[0] ? env : "build/asan/bin/caldera-shim";
}

/* Starts the shim in a process group of its own as the server does, every disposition at its default
 * and every signal blocked (pending: a signal raised before the exec, 0 for none), its log and exits
 * files fresh. Returns false when it cannot. */
static bool start(struct run *r, int pending, char *const task[])
{
    snprintf(r->exits, sizeof r->exits, "/tmp/caldera-shim-exits-XXXXXX");
    snprintf(r->log, sizeof r->log, "/tmp/caldera-shim-log-XXXXXX");
    int exits = mkstemp(r->exits), log = mkstemp(r->log);
    if (exits < 0 || log < 0)
        return false;
    char *argv[16] = {(char *)shim_path(), "pod-0", "1"};
    int n = 3;
    for (int i = 0; task[i] && n < 15; i++)
        argv[n++] = task[i];
    argv[n] = NULL;
    r->pid = fork();
    if (r->pid == 0) {
        setpgid(0, 0);
        /* the defaults, as the server's child sets them: by the system call, since glibc's sigaction
         * refuses its own 32 and 33 (which the CI harness hands down ignored) */
        static const unsigned long default_action[4];
        for (int sig = 1; sig <= 64; sig++)
            if (sig != SIGKILL && sig != SIGSTOP)
                syscall(SYS_rt_sigaction, sig, default_action, NULL, 8);
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);
        if (pending)
            raise(pending); /* stays pending through exec */
        if (dup2(log, 1) != 1 || dup2(exits, 3) != 3)
            _exit(126);
        execv(argv[0], argv);
        _exit(126);
    }
    close(exits);
    close(log);
    if (r->pid > 0)
        setpgid(r->pid, r->pid); /* both sides, so the group exists before either goes on */
    return r->pid > 0;
}

/* The shim's wait status, or -1 when it did not end within ms. */
static int wait_for(const struct run *r, int ms)
{
    for (int waited = 0; waited < ms; waited += 10) {
        int status;
        if (waitpid(r->pid, &status, WNOHANG) == r->pid)
            return status;
        usleep(10 * 1000);
    }
    kill(-r->pid, SIGKILL);
    waitpid(r->pid, NULL, 0);
    return -1;
}

/* The exits file's line without its pid and time: "pod-0 1 exit 3". */
static void exits_line(const struct run *r, char *out, size_t len)
{
    char *text = NULL, pod[32] = "", attempt[32] = "", what[32] = "";
    int pid = 0, value = 0;
    out[0] = '\0';
    if (read_file(r->exits, 4096, &text, NULL) == 0 &&
        sscanf(text, "%31s %31s %d %31s %d", pod, attempt, &pid, what, &value) == 5)
        snprintf(out, len, "%s %s %s %d", pod, attempt, what, value);
    free(text);
}

static char *log_of(const struct run *r)
{
    char *text = NULL;
    return read_file(r->log, 1 << 20, &text, NULL) == 0 ? text : strdup("");
}

static void cleanup(const struct run *r)
{
    unlink(r->exits);
    unlink(r->log);
}

static void the_task_s_exit_is_recorded_and_passed_on(void)
{
    struct run r;
    char *task[] = {"/bin/sh", "sh", "-c", "echo out; exit 3", NULL};
    REQUIRE(start(&r, 0, task));
    int status = wait_for(&r, WAIT_MS);
    CHECK(WIFEXITED(status));
    CHECK_INT(WEXITSTATUS(status), 3);
    char line[128];
    exits_line(&r, line, sizeof line);
    CHECK_STR(line, "pod-0 1 exit 3");
    char *log = log_of(&r);
    CHECK_CONTAINS(log, " stdout F out\n");
    free(log);
    cleanup(&r);
}

/* Whether the shim is still running after ms (it is not reaped). */
static bool still_running(const struct run *r, int ms)
{
    for (int waited = 0; waited < ms; waited += 10) {
        siginfo_t info = {0};
        if (waitid(P_PID, (id_t)r->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == r->pid)
            return false;
        usleep(10 * 1000);
    }
    return true;
}

/* Waits until the log holds text. */
static bool log_says(const struct run *r, const char *text)
{
    for (int waited = 0; waited < WAIT_MS; waited += 10) {
        char *log = log_of(r);
        bool found = strstr(log, text) != NULL;
        free(log);
        if (found)
            return true;
        usleep(10 * 1000);
    }
    return false;
}

/* The task and then the shim end by SIGTERM, and the exits line says so. */
static void ends_by_sigterm(const struct run *r)
{
    int status = wait_for(r, WAIT_MS);
    CHECK(WIFSIGNALED(status));
    CHECK_INT(WIFSIGNALED(status) ? WTERMSIG(status) : 0, SIGTERM);
    char line[128];
    exits_line(r, line, sizeof line);
    CHECK_STR(line, "pod-0 1 signal 15");
    cleanup(r);
}

/* A stop to the group: the task ends by it; the shim, which never takes it, records it and ends the
 * same way. Signals to the shim alone do nothing to either. */
static void a_group_stop_ends_the_task_and_the_shim_outlives_it(void)
{
    struct run r;
    char *task[] = {"/bin/sh", "sh", "-c", "echo up; exec sleep 30", NULL};
    REQUIRE(start(&r, 0, task));
    REQUIRE(log_says(&r, " stdout F up\n"));
    kill(r.pid, SIGTERM); /* the shim alone */
    kill(r.pid, SIGINT);
    kill(r.pid, SIGHUP);
    CHECK(still_running(&r, 300));
    kill(-r.pid, SIGTERM); /* the group, as a stop sends it */
    ends_by_sigterm(&r);
}

/* A stop that came before the task existed (pending in the shim) is the task's. */
static void a_stop_pending_before_the_task_is_handed_to_it(void)
{
    struct run r;
    char *task[] = {"/bin/sleep", "sleep", "30", NULL};
    REQUIRE(start(&r, SIGTERM, task));
    ends_by_sigterm(&r);
}

/* The shim runs with every signal blocked; its task starts with none blocked or ignored. */
static void the_task_starts_with_no_signal_blocked_or_ignored(void)
{
    struct run r;
    char *task[] = {"/bin/grep", "grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status", NULL};
    REQUIRE(start(&r, 0, task));
    int status = wait_for(&r, WAIT_MS);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *log = log_of(&r);
    CHECK_CONTAINS(log, "SigBlk:\t0000000000000000\n");
    CHECK_CONTAINS(log, "SigIgn:\t0000000000000000\n");
    free(log);
    cleanup(&r);
}

TEST_MAIN(TEST_CASE(the_task_s_exit_is_recorded_and_passed_on),
          TEST_CASE(a_group_stop_ends_the_task_and_the_shim_outlives_it),
          TEST_CASE(a_stop_pending_before_the_task_is_handed_to_it),
          TEST_CASE(the_task_starts_with_no_signal_blocked_or_ignored))
