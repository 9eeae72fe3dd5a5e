/* The process runtime on cgroup v2: /sys/fs/cgroup when it is cgroup2, else a hybrid machine's
 * unified mount (no controllers there, but membership, cgroup.kill and cpu.stat work the same). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>

#include "common/fs.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/process.h"
#include "tests/lib/task_fixture.h"
#include "tests/lib/test.h"

static bool is_cgroup2(const char *path)
{
    struct statfs fs;
    return statfs(path, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

/* True when the runtime runs on v2 here; the first call picks the hierarchy. */
static bool on_v2(void)
{
    static int decided = -1;
    if (decided < 0) {
        if (!is_cgroup2("/sys/fs/cgroup") && is_cgroup2("/sys/fs/cgroup/unified"))
            setenv("CALDERA_CGROUP2_ROOT", "/sys/fs/cgroup/unified", 1);
        process_runtime_init();
        decided = cgroup_layout()->mode == CGROUP_V2;
    }
    return decided;
}

#define SKIP_UNLESS_V2() SKIP_IF(!on_v2(), "no writable cgroup2 hierarchy here (%s)", cgroup_layout()->detail)

static void test_runs_in_a_v2_cgroup_and_leaves_none(void)
{
    SKIP_UNLESS_V2();
    char *argv[] = {"sh", "-c", "cat /proc/self/cgroup", NULL};
    struct task t;
    task_init(&t, "v2where", argv);
    REQUIRE_STARTED(&t);
    char want[256];
    snprintf(want, sizeof want, "0::/caldera/%s", t.cgroup);
    CHECK_STR(t.started.cgroup, want);
    REQUIRE(task_wait(&t, 5000));
    CHECK_INT(t.exit.exit_code, 0);
    char *log = task_log(&t);
    CHECK_CONTAINS(log, want);
    free(log);
    CHECK(!task_cgroup_left(t.cgroup));
    CHECK(!task_cgroup_left(task_job()));
}

static void test_cgroup_kill_reaches_a_process_that_left_the_group(void)
{
    SKIP_UNLESS_V2();
    char *argv[] = {"sh", "-c", "setsid sleep 1000 & echo $! > escaped.pid; exec sleep 1000", NULL};
    struct task t;
    task_init(&t, "v2tree", argv);
    REQUIRE_STARTED(&t);
    long escaped = task_read_number_file(&t, "escaped.pid", 5000);
    REQUIRE(escaped > 0);
    process_signal(&t.proc, SIGKILL);
    REQUIRE(task_wait(&t, 5000));
    CHECK_INT(t.exit.exit_code, 137);
    /* cgroup.kill signals every member at once, but each dies on its own time: wait (bounded) */
    for (int i = 0; i < 200 && (task_pid_alive((pid_t)escaped) || task_cgroup_left(t.cgroup)); i++)
        usleep(10000);
    CHECK(!task_pid_alive((pid_t)escaped));
    CHECK(!task_cgroup_left(t.cgroup));
}

static void test_sigterm_reaches_every_process_once(void)
{
    SKIP_UNLESS_V2();
    task_case_sigterm_reaches_every_process_once("v2term");
}

static void test_cpu_time_comes_from_cpu_stat(void)
{
    SKIP_UNLESS_V2();
    char *argv[] = {"sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done", NULL};
    struct task t;
    task_init(&t, "v2cpu", argv);
    REQUIRE_STARTED(&t);
    REQUIRE(task_wait(&t, 20000));
    CHECK_INT(t.exit.exit_code, 0);
    CHECK(t.exit.cpu_usec > 20000);
    CHECK(!task_cgroup_left(t.cgroup));
}

static void test_lost_task_is_found_by_its_v2_cgroup(void)
{
    SKIP_UNLESS_V2();
    task_case_lost_task_is_killed_with_its_cgroup("v2lost");
}

static void test_exec_failure_leaves_no_v2_cgroup(void)
{
    SKIP_UNLESS_V2();
    char *argv[] = {"no-such-command-xyz", NULL};
    struct task t;
    task_init(&t, "v2fail", argv);
    CHECK(task_start(&t) != 0);
    CHECK_STR(t.why, "exec: \"no-such-command-xyz\": executable file not found in $PATH");
    char *wd_argv[] = {"true", NULL};
    task_init(&t, "v2fail2", wd_argv);
    t.spec.chdir_to = "/no/such/dir";
    CHECK(task_start(&t) != 0);
    CHECK(!task_cgroup_left(task_job()));
}

static void test_cgroups_the_task_made_go_with_it(void)
{
    SKIP_UNLESS_V2();
    task_case_cgroups_the_task_made_go_with_it("v2nested");
}

TEST_MAIN(TEST_CASE(test_runs_in_a_v2_cgroup_and_leaves_none),
          TEST_CASE(test_cgroup_kill_reaches_a_process_that_left_the_group),
          TEST_CASE(test_sigterm_reaches_every_process_once), TEST_CASE(test_cpu_time_comes_from_cpu_stat),
          TEST_CASE(test_lost_task_is_found_by_its_v2_cgroup), TEST_CASE(test_cgroups_the_task_made_go_with_it),
          TEST_CASE(test_exec_failure_leaves_no_v2_cgroup))
