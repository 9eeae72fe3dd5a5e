/* The launcher (runtime/launcher.h) with real processes: every start reported before its exit, exit
 * statuses exact, a failed start named, the core's copy able to signal a task until its zombie is
 * released, exits left to the caller still collected, an attempt's times around what its task did,
 * nothing left behind; and attempt copies that outlive the caller's buffers. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "runtime/attempt_copy.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/launcher.h"
#include "tests/lib/task_fixture.h"
#include "tests/lib/test.h"

#define TASKS 40

/* Takes results until want of them are in (at most 10 s), appending to *all in order. */
static int collect(struct launcher *l, struct launch_result **all, int have, int want)
{
    int64_t until = clock_mono_ms() + 10000;
    while (have < want && clock_mono_ms() < until) {
        launcher_flush(l);
        launcher_wait(l, 100);
        for (struct launch_result *r = launcher_take(l), *next; r; r = next) {
            next = r->next;
            all[have++] = r;
        }
    }
    return have;
}

static void queue_task(struct launcher *l, int slot, const char *name, char *const *argv)
{
    struct task t;
    task_init(&t, name, argv);
    struct attempt_copy *copy = attempt_copy(&t.spec);
    REQUIRE(copy);
    memset(&t, 0x5a, sizeof t); /* the copy must not point into it */
    launcher_queue(l, slot, copy);
}

static void test_every_start_comes_before_its_exit_with_its_status(void)
{
    struct launcher *l = launcher_new(3);
    REQUIRE(l);
    static char codes[TASKS][16];
    static char *argv[TASKS][4];
    for (int i = 0; i < TASKS; i++) {
        char name[64];
        snprintf(name, sizeof name, "launch-%d", i);
        snprintf(codes[i], sizeof codes[i], "exit %d", i * 6);
        argv[i][0] = "sh";
        argv[i][1] = "-c";
        argv[i][2] = codes[i];
        argv[i][3] = NULL;
        queue_task(l, i, name, argv[i]);
    }
    struct launch_result *all[2 * TASKS];
    int n = collect(l, all, 0, 2 * TASKS);
    CHECK_INT(n, 2 * TASKS);
    bool started[TASKS] = {false}, exited[TASKS] = {false};
    pid_t pids[TASKS] = {0};
    for (int i = 0; i < n; i++) {
        struct launch_result *r = all[i];
        REQUIRE(r->slot >= 0 && r->slot < TASKS);
        if (r->kind == LAUNCH_STARTED) {
            CHECK(!started[r->slot] && !exited[r->slot]);
            started[r->slot] = true;
            pids[r->slot] = r->proc.pid;
            CHECK(r->proc.pid > 0);
            CHECK_INT(r->proc.pidfd, -1); /* the reaper's */
            CHECK(r->started.pid == r->proc.pid);
        } else {
            CHECK_INT(r->kind, LAUNCH_EXITED);
            CHECK(started[r->slot]); /* never an exit before its start */
            exited[r->slot] = true;
            CHECK_INT(r->exit.exit_code, r->slot * 6);
            CHECK_INT(r->exit.signal, 0);
            CHECK(r->pidfd >= 0);
            /* a zombie until released: its pid is still its own */
            CHECK(kill(pids[r->slot], 0) == 0);
            launcher_release(l, r->pidfd);
        }
        free(r);
    }
    launcher_free(l); /* the reaper releases what it was given before it stops */
    for (int i = 0; i < TASKS; i++) {
        CHECK(started[i] && exited[i]);
        CHECK(waitpid(pids[i], NULL, WNOHANG) < 0 && errno == ECHILD); /* reaped */
    }
    CHECK(process_runtime_flush(5000) == 0);
    char cgroup[200];
    snprintf(cgroup, sizeof cgroup, "%s/launch-0.1", task_job());
    CHECK(cgroup_layout()->mode == CGROUP_NONE || !task_cgroup_left(cgroup));
}

static void test_a_failed_start_says_why(void)
{
    struct launcher *l = launcher_new(1);
    REQUIRE(l);
    char *argv[] = {"no-such-program-here", NULL};
    queue_task(l, 7, "launch-missing", argv);
    struct launch_result *all[1];
    REQUIRE(collect(l, all, 0, 1) == 1);
    CHECK_INT(all[0]->kind, LAUNCH_FAILED);
    CHECK_INT(all[0]->slot, 7);
    CHECK(strstr(all[0]->why, "executable file not found") != NULL);
    free(all[0]);
    launcher_free(l);
}

static void test_the_callers_copy_signals_the_task(void)
{
    struct launcher *l = launcher_new(2);
    REQUIRE(l);
    char *argv[] = {"sleep", "30", NULL};
    queue_task(l, 0, "launch-sleep", argv);
    struct launch_result *all[2];
    REQUIRE(collect(l, all, 0, 1) == 1);
    REQUIRE(all[0]->kind == LAUNCH_STARTED);
    process_signal(&all[0]->proc, SIGKILL);
    REQUIRE(collect(l, all, 1, 2) == 2);
    CHECK_INT(all[1]->kind, LAUNCH_EXITED);
    CHECK_INT(all[1]->exit.signal, SIGKILL);
    CHECK_INT(all[1]->exit.exit_code, 128 + SIGKILL);
    launcher_release(l, all[1]->pidfd);
    free(all[0]);
    free(all[1]);
    launcher_free(l);
}

static void test_freeing_it_lets_tasks_run_on(void)
{
    struct launcher *l = launcher_new(1);
    REQUIRE(l);
    char *argv[] = {"sleep", "30", NULL};
    queue_task(l, 0, "launch-kept", argv);
    struct launch_result *all[1];
    REQUIRE(collect(l, all, 0, 1) == 1);
    REQUIRE(all[0]->kind == LAUNCH_STARTED);
    launcher_free(l); /* as a server stopping with --keep-tasks: the task is not ended */
    pid_t pid = all[0]->proc.pid;
    CHECK(task_pid_alive(pid));
    process_signal(&all[0]->proc, SIGKILL);
    CHECK(waitpid(pid, NULL, 0) == pid);
    if (all[0]->proc.cgroup_name[0])
        cgroup_remove(all[0]->proc.cgroup_name);
    CHECK(!task_cgroup_left(all[0]->proc.cgroup_name));
    free(all[0]);
}

static void test_the_caller_starts_and_collects_a_lone_task_itself(void)
{
    struct launcher *l = launcher_new(1);
    REQUIRE(l);
    char *argv[] = {"sh", "-c", "exit 3", NULL};
    queue_task(l, 5, "launch-alone", argv);
    CHECK(launcher_help(l)); /* the one kept order: started here, no spawner woken */
    CHECK(!launcher_help(l));
    struct pollfd pfd = {.fd = launcher_reap_fd(l), .events = POLLIN};
    poll(&pfd, 1, 500);
    launcher_help_reap(l); /* the exit, here or by the reaper: collected once either way */
    struct launch_result *all[2];
    REQUIRE(collect(l, all, 0, 2) == 2);
    CHECK_INT(all[0]->kind, LAUNCH_STARTED);
    CHECK_INT(all[0]->slot, 5);
    CHECK_INT(all[1]->kind, LAUNCH_EXITED);
    CHECK_INT(all[1]->slot, 5);
    CHECK_INT(all[1]->exit.exit_code, 3);
    launcher_release(l, all[1]->pidfd);
    free(all[0]);
    free(all[1]);
    launcher_free(l);
}

/* Exits left to a caller that said it would collect them are still collected when it does not
 * (a core that got busy): the reaper takes what is left after its wait, each exit once. */
static void test_exits_left_to_the_caller_are_collected_without_it(void)
{
    struct launcher *l = launcher_new(1);
    REQUIRE(l);
    launcher_caller_helps(l, true);
    char *argv[] = {"sh", "-c", "exit 4", NULL};
    queue_task(l, 0, "launch-left-0", argv);
    queue_task(l, 1, "launch-left-1", argv);
    struct launch_result *all[4];
    REQUIRE(collect(l, all, 0, 4) == 4);
    int exits = 0;
    for (int i = 0; i < 4; i++) {
        if (all[i]->kind == LAUNCH_EXITED) {
            exits++;
            CHECK_INT(all[i]->exit.exit_code, 4);
            launcher_release(l, all[i]->pidfd);
        }
        free(all[i]);
    }
    CHECK_INT(exits, 2);
    launcher_free(l);
}

/* Opens the FIFO at path for writing once its reader has it open (at most 10 s). Returns the fd, or -1. */
static int open_gate(const char *path)
{
    for (int64_t until = clock_mono_ms() + 10000; clock_mono_ms() < until; usleep(10000)) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0 || errno != ENXIO) /* ENXIO: no reader yet */
            return fd;
    }
    return -1;
}

/* An attempt's times bracket what its process did, whichever thread starts and collects it: the
 * start is taken once the process runs (after the order, before the result is posted), the end once
 * it has exited (after the last thing it did, before the result is taken). The task waits on a FIFO
 * until its start was reported, then writes its own clock and exits, so start <= that clock <= end
 * holds however slow the machine is. */
static void test_an_attempts_times_bracket_what_it_did(void)
{
    struct launcher *l = launcher_new(1);
    REQUIRE(l);
    char gate[600], at[600], script[1400];
    snprintf(gate, sizeof gate, "%s/launch-times-gate", task_root());
    snprintf(at, sizeof at, "%s/launch-times/work/at", task_root());
    unlink(gate);
    REQUIRE(mkfifo(gate, 0600) == 0);
    snprintf(script, sizeof script, "read go < '%s' && date +%%s%%3N > at", gate);
    char *argv[] = {"sh", "-c", script, NULL};
    int64_t ordered = clock_wall_ms();
    queue_task(l, 2, "launch-times", argv);
    struct launch_result *all[2];
    REQUIRE(collect(l, all, 0, 1) == 1);
    REQUIRE(all[0]->kind == LAUNCH_STARTED);
    int64_t reported = clock_wall_ms(), started = all[0]->started.start_ms;
    CHECK(ordered <= started && started <= reported);
    int fd = open_gate(gate);
    REQUIRE(fd >= 0);
    CHECK(write(fd, "go\n", 3) == 3);
    close(fd);
    REQUIRE(collect(l, all, 1, 2) == 2);
    int64_t taken = clock_wall_ms(), ended = all[1]->exit.end_ms;
    REQUIRE(all[1]->kind == LAUNCH_EXITED);
    CHECK_INT(all[1]->exit.exit_code, 0);
    char *data = NULL;
    size_t len = 0;
    REQUIRE(read_file(at, 64, &data, &len) == 0);
    long long did = atoll(data);
    free(data);
    CHECK(did > 1000000000000LL); /* milliseconds since the epoch */
    CHECK(started <= did && did <= ended && ended <= taken);
    launcher_release(l, all[1]->pidfd);
    free(all[0]);
    free(all[1]);
    launcher_free(l);
    unlink(gate);
}

static void test_a_copy_owns_its_strings(void)
{
    char *argv[] = {"echo", "hi", NULL};
    struct task t;
    task_init(&t, "copy", argv);
    const char *dirs[] = {"/tmp/a", "/tmp/b"}, *targets[] = {"/data", NULL}, *uuids[] = {"GPU-1"};
    int32_t index[] = {3};
    t.spec.nvolumes = 2;
    t.spec.volume_dirs = dirs;
    t.spec.volume_targets = targets;
    t.spec.ngpus = 1;
    t.spec.gpu_index = index;
    t.spec.gpu_uuid = uuids;
    CHECK(attempt_copyable(&t.spec));
    struct attempt_copy *c = attempt_copy(&t.spec);
    REQUIRE(c);
    CHECK(c->spec.log_path != t.spec.log_path);
    CHECK_STR(c->spec.log_path, t.log);
    CHECK_STR(c->spec.pod, "copy");
    CHECK_STR(c->spec.argv[1], "hi");
    CHECK(c->spec.argv != t.spec.argv);
    CHECK_STR(c->spec.volume_dirs[1], "/tmp/b");
    CHECK(c->spec.volume_targets[1] == NULL);
    CHECK_STR(c->spec.gpu_uuid[0], "GPU-1");
    CHECK_INT(c->spec.gpu_index[0], 3);
    CHECK(c->spec.hosts_file == NULL);
    attempt_copy_free(c);
    struct attempt_mount m = {0};
    t.spec.nmounts = 1;
    t.spec.mounts = &m;
    CHECK(!attempt_copyable(&t.spec)); /* pod volumes start where they are asked */
    t.spec.nmounts = 0;
    t.spec.oci_image = "busybox";
    CHECK(!attempt_copyable(&t.spec));
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        {"every_start_comes_before_its_exit_with_its_status", test_every_start_comes_before_its_exit_with_its_status},
        {"a_failed_start_says_why", test_a_failed_start_says_why},
        {"the_callers_copy_signals_the_task", test_the_callers_copy_signals_the_task},
        {"freeing_it_lets_tasks_run_on", test_freeing_it_lets_tasks_run_on},
        {"the_caller_starts_and_collects_a_lone_task_itself", test_the_caller_starts_and_collects_a_lone_task_itself},
        {"exits_left_to_the_caller_are_collected_without_it", test_exits_left_to_the_caller_are_collected_without_it},
        {"an_attempts_times_bracket_what_it_did", test_an_attempts_times_bracket_what_it_did},
        {"a_copy_owns_its_strings", test_a_copy_owns_its_strings},
    };
    return test_run(cases, (int)(sizeof cases / sizeof cases[0]), argc, argv);
}
