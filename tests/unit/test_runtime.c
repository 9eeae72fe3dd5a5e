/* The process runtime with real processes in real cgroups: OOM kills, CPU limits, tree kills, users,
 * bound hosts and ssh files, exec failures, nothing left behind; and a spawn-rate figure. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/process.h"
#include "tests/lib/task_fixture.h"
#include "tests/lib/test.h"

#define MiB (1024LL * 1024)
#define NOBODY 65534

static bool has_controller(unsigned bit)
{
    const struct cgroup_layout *L = cgroup_layout();
    for (int i = 0; i < L->count; i++)
        if (L->h[i].controllers & bit)
            return true;
    return false;
}

static bool no_cgroups(void)
{
    process_runtime_init();
    return cgroup_layout()->mode == CGROUP_NONE;
}

static void write_text(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd >= 0) {
        ssize_t w = write(fd, text, strlen(text));
        (void)w;
        fchmod(fd, mode);
        close(fd);
    }
}

static void test_started_describes_its_cgroup(void)
{
    SKIP_IF(no_cgroups(), "%s", process_runtime_warning());
    char *argv[] = {"true", NULL};
    struct task t;
    task_init(&t, "started", argv);
    REQUIRE_STARTED(&t);
    CHECK(t.started.pid > 0);
    CHECK(t.started.pid_start > 0);
    char want[256];
    snprintf(want, sizeof want, ":/caldera/%s", t.cgroup);
    CHECK_CONTAINS(t.started.cgroup, want);
    CHECK(!t.started.isolated);
    CHECK(task_cgroup_left(t.cgroup));
    REQUIRE(task_wait(&t, 5000));
    CHECK_INT(t.exit.exit_code, 0);
    CHECK(!t.exit.oom);
    CHECK(!task_cgroup_left(t.cgroup));
    CHECK(!task_cgroup_left(task_job()));
}

static void test_task_starts_clean(void)
{
    /* The server ignores SIGPIPE and blocks signals in its threads, and may hold descriptors
     * without O_CLOEXEC: none of that may reach a task. */
    int leaked = open("/dev/null", O_RDONLY); /* deliberately not close-on-exec */
    REQUIRE(leaked >= 0);
    struct sigaction ignore = {.sa_handler = SIG_IGN}, saved_pipe;
    sigaction(SIGPIPE, &ignore, &saved_pipe);
    sigset_t usr1, saved_mask;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, &saved_mask);
    char script[256];
    snprintf(script, sizeof script,
             "grep -E '^Sig(Blk|Ign)' /proc/self/status; ls -l /proc/self/fd/0 | sed 's/.*-> //'; "
             "[ -e /proc/self/fd/%d ] && echo LEAKED; true",
             leaked);
    char *argv[] = {"sh", "-c", script, NULL};
    struct task t;
    task_init(&t, "clean", argv);
    int rc = task_start(&t);
    sigprocmask(SIG_SETMASK, &saved_mask, NULL);
    sigaction(SIGPIPE, &saved_pipe, NULL);
    close(leaked);
    REQUIRE(rc == 0);
    REQUIRE(task_wait(&t, 5000));
    char *log = task_log(&t);
    CHECK_CONTAINS(log, "SigBlk:\t0000000000000000\n");
    CHECK_CONTAINS(log, "SigIgn:\t0000000000000000\n");
    CHECK_CONTAINS(log, "/dev/null\n");
    CHECK(!strstr(log, "LEAKED"));
    free(log);
}

static void test_memory_overrun_is_oom_killed(void)
{
    SKIP_IF(no_cgroups() || !has_controller(CG_MEMORY), "no writable memory controller here");
    char *argv[] = {"tail", "/dev/zero", NULL}; /* one line that never ends: it grows until killed */
    struct task t;
    task_init(&t, "oom", argv);
    t.spec.memory_limit = 50 * MiB;
    REQUIRE_STARTED(&t);
    CHECK_CONTAINS(t.started.cgroup, "memory");
    REQUIRE(task_wait(&t, 15000));
    CHECK(t.exit.oom);
    CHECK_INT(t.exit.exit_code, 137);
    CHECK_INT(t.exit.signal, SIGKILL);
    CHECK(t.exit.peak_memory >= 45 * MiB);
    CHECK(t.exit.peak_memory <= 51 * MiB);
    CHECK(!task_cgroup_left(t.cgroup));
}

static void test_cpu_limit_holds_a_busy_loop(void)
{
    SKIP_IF(no_cgroups() || !has_controller(CG_CPU), "no writable cpu controller here");
    char *argv[] = {"sh", "-c", "while :; do :; done", NULL};
    struct task t;
    task_init(&t, "cpu", argv);
    t.spec.cpu_limit_milli = 200;
    int64_t began = clock_mono_ms();
    REQUIRE_STARTED(&t);
    usleep(1000 * 1000);
    process_signal(&t.proc, SIGKILL);
    int64_t wall_us = (clock_mono_ms() - began) * 1000;
    REQUIRE(task_wait(&t, 5000));
    CHECK_INT(t.exit.exit_code, 137);
    CHECK(!t.exit.oom);
    double share = (double)t.exit.cpu_usec / (double)wall_us;
    printf("# cpu limit 200m: %.0f%% of one cpu over %.2f s\n", share * 100, (double)wall_us / 1e6);
    CHECK(share >= 0.10);
    CHECK(share <= 0.40);
    CHECK(!task_cgroup_left(t.cgroup));
}

static void test_kill_reaches_a_process_that_left_the_group(void)
{
    SKIP_IF(no_cgroups(), "%s", process_runtime_warning());
    char *argv[] = {"sh", "-c", "setsid sleep 1000 & echo $! > escaped.pid; exec sleep 1000", NULL};
    struct task t;
    task_init(&t, "tree", argv);
    REQUIRE_STARTED(&t);
    long escaped = task_read_number_file(&t, "escaped.pid", 5000);
    REQUIRE(escaped > 0);
    for (int i = 0; i < 100 && getpgid((pid_t)escaped) != escaped; i++) /* until setsid has run */
        usleep(10000);
    CHECK_INT(getpgid((pid_t)escaped), escaped); /* out of the task's process group */
    process_signal(&t.proc, SIGKILL);
    REQUIRE(task_wait(&t, 5000));
    CHECK_INT(t.exit.exit_code, 137);
    CHECK(!task_cgroup_left(t.cgroup)); /* waits for the cleaner, which waits for the kills */
    CHECK(!task_pid_alive((pid_t)escaped));
}

static void test_sigterm_reaches_every_process_once(void)
{
    SKIP_IF(no_cgroups(), "%s", process_runtime_warning());
    task_case_sigterm_reaches_every_process_once("term");
}

static void test_reap_ends_what_the_task_left_running(void)
{
    SKIP_IF(no_cgroups(), "%s", process_runtime_warning());
    char *argv[] = {"sh", "-c", "setsid sleep 1000 & echo $! > daemon.pid", NULL};
    struct task t;
    task_init(&t, "leftover", argv);
    REQUIRE_STARTED(&t);
    long daemon = task_read_number_file(&t, "daemon.pid", 5000);
    REQUIRE(daemon > 0);
    REQUIRE(task_wait(&t, 5000));
    CHECK_INT(t.exit.exit_code, 0);
    CHECK(!task_cgroup_left(t.cgroup)); /* waits for the cleaner, which waits for the kills */
    CHECK(!task_pid_alive((pid_t)daemon));
}

static void test_lost_task_is_killed_with_its_cgroup(void)
{
    SKIP_IF(no_cgroups(), "%s", process_runtime_warning());
    task_case_lost_task_is_killed_with_its_cgroup("lost");
}

static void test_runs_as_nobody_in_its_own_work_dir(void)
{
    SKIP_IF(geteuid() != 0, "needs root to switch users");
    char *argv[] = {"sh", "-c", "id -u; id -g; id -G; touch made-by-task", NULL};
    struct task t;
    task_init(&t, "nobody", argv);
    t.spec.uid = NOBODY;
    t.spec.gid = NOBODY;
    REQUIRE_STARTED(&t);
    REQUIRE(task_wait(&t, 5000));
    CHECK_INT(t.exit.exit_code, 0);
    char *log = task_log(&t);
    CHECK_STR(log, "65534\n65534\n65534\n");
    free(log);
    char made[600];
    snprintf(made, sizeof made, "%s/made-by-task", t.work);
    struct stat st;
    CHECK(stat(made, &st) == 0 && st.st_uid == NOBODY && st.st_gid == NOBODY);
    CHECK(stat(t.work, &st) == 0 && st.st_uid == NOBODY && (st.st_mode & 07777) == 0700);
    /* the log is the server's: the task writes it through the descriptor it was given */
    CHECK(stat(t.log, &st) == 0 && st.st_uid == 0 && (st.st_mode & 07777) == 0600);
}

static void test_not_root_refuses_another_uid(void)
{
    SKIP_IF(geteuid() != 0, "needs root to become another user for the check");
    task_root(); /* made (and later removed) by this process, not the child */
    int pipefd[2];
    REQUIRE(pipe(pipefd) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        char *argv[] = {"true", NULL};
        struct task t;
        task_init(&t, "notroot", argv);
        t.spec.uid = 1000;
        int rc = setresgid(NOBODY, NOBODY, NOBODY) == 0 && setresuid(NOBODY, NOBODY, NOBODY) == 0 ? task_start(&t) : 0;
        ssize_t w = write(pipefd[1], rc == 0 ? "started" : t.why, rc == 0 ? 7 : strlen(t.why));
        (void)w;
        _exit(0);
    }
    close(pipefd[1]);
    char why[512] = "";
    ssize_t n = read(pipefd[0], why, sizeof why - 1);
    why[n > 0 ? n : 0] = '\0';
    close(pipefd[0]);
    waitpid(child, NULL, 0);
    CHECK_STR(why, "cannot run as uid 1000: the job server is not root");
}

static void test_hosts_file_is_bound_for_the_task_only(void)
{
    SKIP_IF(geteuid() != 0, "needs root for mount namespaces");
    char hosts[512];
    snprintf(hosts, sizeof hosts, "%s/hosts.txt", task_root());
    write_text(hosts, "127.0.0.1 localhost\n127.0.0.1 foo-bar-0.foo\n", 0644);
    char *argv[] = {"sh", "-c", "getent hosts foo-bar-0.foo; echo '10.0.0.1 x' >> /etc/hosts && echo WRITABLE", NULL};
    struct task t;
    task_init(&t, "hosts", argv);
    t.spec.hosts_file = hosts;
    REQUIRE_STARTED(&t);
    CHECK(t.started.isolated);
    REQUIRE(task_wait(&t, 5000));
    char *log = task_log(&t);
    CHECK_CONTAINS(log, "127.0.0.1");
    CHECK_CONTAINS(log, "foo-bar-0.foo");
    CHECK(!strstr(log, "WRITABLE")); /* read-only: one replica cannot rewrite the job's hosts */
    free(log);
    char *own = NULL;
    REQUIRE(read_file("/etc/hosts", 1 << 20, &own, NULL) == 0);
    CHECK(!strstr(own, "foo-bar-0.foo"));
    free(own);
}

/* The server runs with umask 077; its tasks get the usual 022. One whose mounts differ from the node's
 * (a bound file) runs with no_new_privs: no set-user-id program runs against its mounts as root. */
static void test_task_umask_and_no_new_privs(void)
{
    SKIP_IF(geteuid() != 0, "needs root for mount namespaces and to switch users");
    char hosts[512];
    snprintf(hosts, sizeof hosts, "%s/hosts-nnp.txt", task_root());
    write_text(hosts, "127.0.0.1 localhost\n", 0644);
    char *argv[] = {"sh", "-c", "umask; grep NoNewPrivs /proc/self/status", NULL};
    mode_t old = umask(077);
    struct task t;
    task_init(&t, "nnp", argv);
    t.spec.hosts_file = hosts;
    t.spec.uid = t.spec.gid = NOBODY;
    int rc = task_start(&t);
    umask(old);
    if (rc != 0)
        test_fail(__FILE__, __LINE__, "start: %s", t.why);
    REQUIRE(rc == 0);
    REQUIRE(task_wait(&t, 5000));
    char *log = task_log(&t);
    CHECK_STR(log, "0022\nNoNewPrivs:\t1\n");
    free(log);
}

/* Under the server's umask (077) the attempt's cgroup stays readable by its task (its limits, as a
 * container reads them) and root's alone to write: nothing of it is the task's. */
static void test_cgroup_is_readable_not_writable_by_the_task(void)
{
    SKIP_IF(geteuid() != 0, "needs root to switch users");
    const struct cgroup_layout *L = cgroup_layout();
    SKIP_IF(L->mode == CGROUP_NONE, "no writable cgroups here");
    char *argv[] = {"sleep", "5", NULL};
    mode_t old = umask(077);
    struct task t;
    task_init(&t, "cgmode", argv);
    t.spec.uid = t.spec.gid = NOBODY;
    int rc = task_start(&t);
    umask(old);
    REQUIRE(rc == 0);
    for (int i = 0; i < L->count; i++) {
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", L->h[i].parent, t.cgroup);
        CHECK(stat(path, &st) == 0 && st.st_uid == 0 && (st.st_mode & 07777) == 0755);
        CHECK(stat(L->h[i].parent, &st) == 0 && st.st_uid == 0 && (st.st_mode & 0022) == 0);
        snprintf(path, sizeof path, "%s/%s/cgroup.procs", L->h[i].parent, t.cgroup);
        CHECK(stat(path, &st) == 0 && st.st_uid == 0 && (st.st_mode & 0022) == 0);
    }
    process_signal(&t.proc, SIGKILL);
    CHECK(task_wait(&t, 5000));
}

static void test_ssh_dir_is_bound_for_the_task_only(void)
{
    SKIP_IF(geteuid() != 0, "needs root for mount namespaces");
    char ssh[512], key[600];
    snprintf(ssh, sizeof ssh, "%s/ssh-keys", task_root());
    REQUIRE(mkdir_p(ssh, 0700) == 0);
    snprintf(key, sizeof key, "%s/id_caldera_test_marker", ssh);
    write_text(key, "not a key\n", 0600);
    struct stat st;
    bool had_ssh_dir = stat("/root/.ssh", &st) == 0; /* the runtime makes the bind target if missing */
    char *argv[] = {"ls", "/root/.ssh", NULL};
    struct task t;
    task_init(&t, "ssh", argv);
    t.spec.ssh_dir = ssh;
    REQUIRE_STARTED(&t);
    CHECK(t.started.isolated);
    REQUIRE(task_wait(&t, 5000));
    CHECK_INT(t.exit.exit_code, 0);
    char *log = task_log(&t);
    CHECK_CONTAINS(log, "id_caldera_test_marker");
    free(log);
    CHECK(stat("/root/.ssh/id_caldera_test_marker", &st) != 0);
    if (!had_ssh_dir)
        rmdir("/root/.ssh");
}

static void expect_start_failure(const char *name, char *const *argv, const char *chdir_to, int uid, const char *why)
{
    struct task t;
    task_init(&t, name, argv);
    if (chdir_to)
        t.spec.chdir_to = chdir_to;
    t.spec.uid = uid;
    t.spec.gid = uid;
    CHECK(task_start(&t) != 0);
    CHECK_STR(t.why, why);
    CHECK(!task_cgroup_left(t.cgroup));
}

/* A failure execve itself finds: before the start returns without a supervisor; with one (it has
 * started), in the exit, as errno plus the supervisor's sentence in the log. */
static void expect_exec_failure(const char *name, char *const *argv, int uid, int err, const char *why)
{
    if (process_supervisor_warning()) {
        expect_start_failure(name, argv, NULL, uid, why);
        return;
    }
    struct task t;
    task_init(&t, name, argv);
    t.spec.uid = uid;
    t.spec.gid = uid;
    REQUIRE_STARTED(&t);
    REQUIRE(task_wait(&t, 5000));
    CHECK_INT(t.exit.exit_code, 127);
    CHECK_INT(t.exit.exec_errno, err);
    char *log = task_log(&t);
    CHECK_CONTAINS(log, strerror(err));
    free(log);
    CHECK(!task_cgroup_left(t.cgroup));
}

static void test_exec_failures_are_sentences(void)
{
    char *missing[] = {"no-such-command-xyz", NULL};
    expect_start_failure("missing", missing, NULL, -1,
                         "exec: \"no-such-command-xyz\": executable file not found in $PATH");

    char plain[512], garbage[512], root_only[512], why[700];
    snprintf(plain, sizeof plain, "%s/not-executable.sh", task_root());
    write_text(plain, "#!/bin/sh\n", 0644);
    char *plain_argv[] = {plain, NULL};
    snprintf(why, sizeof why, "exec: \"%s\": Permission denied", plain);
    if (geteuid() == 0) /* root's access(X_OK) passes any file with an x bit, not this one */
        expect_start_failure("plain", plain_argv, NULL, -1, why);

    /* Executable but no program: execve itself fails, in the child. */
    snprintf(garbage, sizeof garbage, "%s/garbage.bin", task_root());
    write_text(garbage, "this is not a program\n", 0755);
    char *garbage_argv[] = {garbage, NULL};
    snprintf(why, sizeof why, "exec: \"%s\": Exec format error", garbage);
    expect_exec_failure("garbage", garbage_argv, -1, ENOEXEC, why);

    char *true_argv[] = {"true", NULL};
    expect_start_failure("nowhere", true_argv, "/no/such/working/dir", -1,
                         "workingDir /no/such/working/dir does not exist on this node");

    if (geteuid() == 0) {
        /* Root may run it, nobody may not: the child finds out after switching user. */
        snprintf(root_only, sizeof root_only, "%s/root-only.sh", task_root());
        write_text(root_only, "#!/bin/sh\ntrue\n", 0700);
        char *root_only_argv[] = {root_only, NULL};
        snprintf(why, sizeof why, "exec: \"%s\": Permission denied", root_only);
        expect_exec_failure("rootonly", root_only_argv, NOBODY, EACCES, why);
        /* The workingDir is entered as the task's user: a root-only directory is refused to it. */
        char closed[512];
        snprintf(closed, sizeof closed, "%s/root-only-dir", task_root());
        REQUIRE(mkdir(closed, 0700) == 0 || errno == EEXIST);
        snprintf(why, sizeof why, "cannot change to workingDir %s: Permission denied", closed);
        expect_start_failure("closeddir", true_argv, closed, NOBODY, why);
    }
    CHECK(!task_cgroup_left(task_job()));
}

/* Spawn and reap /bin/true one after another: the runtime (cgroup, session, redirections) against
 * a bare posix_spawn. Printed, not asserted: this is a noisy VM. */
static void test_spawn_rate(void)
{
    enum { N = 300 };
    char *argv[] = {"/bin/true", NULL};
    int64_t began = clock_mono_ms();
    int ok = 0;
    for (int i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof name, "rate%d", i % 4);
        struct task t;
        task_init(&t, name, argv);
        /* a cgroup name of its own, as every attempt has: a reused one can meet the cleaner still
         * removing its namesake (ENODEV at the join) */
        snprintf(t.cgroup, sizeof t.cgroup, "%s/rate-%d.1", task_job(), i);
        if (task_start(&t) == 0 && task_wait(&t, 5000))
            ok++;
    }
    double runtime_rate = N * 1000.0 / (double)(clock_mono_ms() - began + 1);
    CHECK_INT(ok, N);
    began = clock_mono_ms();
    for (int i = 0; i < N; i++) {
        pid_t pid;
        if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, NULL) == 0)
            waitpid(pid, NULL, 0);
    }
    double bare_rate = N * 1000.0 / (double)(clock_mono_ms() - began + 1);
    const struct cgroup_layout *L = cgroup_layout();
    printf("# spawn+reap /bin/true: %.0f/s through the runtime (%s), %.0f/s bare posix_spawn+waitpid\n", runtime_rate,
           L->mode == CGROUP_V1   ? "cgroups v1"
           : L->mode == CGROUP_V2 ? "cgroups v2"
                                  : "no cgroups",
           bare_rate);
    CHECK(!task_cgroup_left(task_job()));
}

static void test_cgroups_the_task_made_go_with_it(void)
{
    SKIP_IF(no_cgroups(), "%s", process_runtime_warning());
    task_case_cgroups_the_task_made_go_with_it("nested");
}

/* A recorded pid is the same process only with the same start time: a wrong one is not adopted
 * (and nothing is done to the pid); the right one is watched, and its status read from the exits
 * file its supervisor wrote, as a server that is not its parent must. */
static void test_adopt_checks_the_start_time(void)
{
    SKIP_IF(process_supervisor_warning() != NULL, "needs caldera-shim ($CALDERA_SHIM)");
    char *argv[] = {"sleep", "30", NULL};
    struct task t;
    task_init(&t, "adoptee", argv);
    REQUIRE_STARTED(&t);
    struct process_adoption a = {t.proc.pid, t.proc.start_ticks + 1, "", t.exits, t.pod, 1};
    struct process adopted;
    struct replica_exit ex;
    CHECK(process_adopt(&a, &adopted, &ex) == PROCESS_LOST); /* a reused pid: not ours, untouched */
    CHECK(ex.unknown);
    CHECK(task_pid_alive(t.proc.pid));
    a.start_ticks = t.proc.start_ticks;
    a.cgroup_name = t.proc.cgroup_name;
    REQUIRE(process_adopt(&a, &adopted, &ex) == PROCESS_ADOPTED);
    CHECK(adopted.adopted);
    CHECK_STR(adopted.cgroup_name, t.proc.cgroup_name);
    CHECK(process_reap_adopted(&adopted, &ex) != 0); /* still running */
    process_signal(&adopted, SIGTERM);
    CHECK(process_wait_exit(&adopted, 5000));
    REQUIRE(process_reap_adopted(&adopted, &ex) == 0);
    CHECK(!ex.unknown);
    CHECK_INT(ex.signal, SIGTERM); /* the task's end, from the supervisor's line */
    CHECK_INT(ex.exit_code, 128 + SIGTERM);
    CHECK(task_wait(&t, 5000)); /* the test is its parent: collect it */
    CHECK_INT(t.exit.signal, SIGTERM);
    for (int i = 0; i < 100 && task_cgroup_left(t.cgroup); i++)
        usleep(10000);
    CHECK(!task_cgroup_left(t.cgroup));
}

/* A restart's census (runtime/census.h): a running task's pid and its job's cgroup are there; a reaped
 * process's pid and a cgroup never made are known gone; a name below another, which the scan does not
 * see, answers "maybe". An attempt whose pid the census knows gone is lost without a lookup. */
static void test_census_tells_what_is_gone(void)
{
    SKIP_IF(no_cgroups(), "%s", process_runtime_warning());
    char *argv[] = {"sleep", "30", NULL};
    struct task t;
    task_init(&t, "census", argv);
    REQUIRE_STARTED(&t);
    pid_t gone = fork();
    if (gone == 0)
        _exit(0);
    REQUIRE(gone > 0);
    waitpid(gone, NULL, 0);
    struct process_census *c = process_census_take();
    REQUIRE(c);
    CHECK(process_census_may_run(c, t.proc.pid));
    CHECK(process_census_may_run(c, getpid()));
    CHECK(!process_census_may_run(c, gone));
    CHECK(process_census_may_have_cgroup(c, task_job()));
    CHECK(!process_census_may_have_cgroup(c, "no-such-pod.1.00000000-0000-4000-8000-000000000000"));
    CHECK(process_census_may_have_cgroup(c, t.cgroup)); /* "<job>/census.1": below the scanned level */
    CHECK(process_census_may_run(NULL, gone));          /* no census: every question is "maybe" */
    struct process_adoption a = {gone, t.proc.start_ticks, "", t.exits, t.pod, 1, c};
    struct process adopted;
    struct replica_exit ex;
    CHECK(process_adopt(&a, &adopted, &ex) == PROCESS_LOST);
    CHECK(ex.unknown);
    process_census_free(c);
    process_signal(&t.proc, SIGKILL);
    CHECK(task_wait(&t, 5000));
}

TEST_MAIN(TEST_CASE(test_started_describes_its_cgroup), TEST_CASE(test_task_starts_clean),
          TEST_CASE(test_memory_overrun_is_oom_killed), TEST_CASE(test_cpu_limit_holds_a_busy_loop),
          TEST_CASE(test_kill_reaches_a_process_that_left_the_group),
          TEST_CASE(test_sigterm_reaches_every_process_once), TEST_CASE(test_reap_ends_what_the_task_left_running),
          TEST_CASE(test_lost_task_is_killed_with_its_cgroup), TEST_CASE(test_adopt_checks_the_start_time),
          TEST_CASE(test_census_tells_what_is_gone), TEST_CASE(test_cgroups_the_task_made_go_with_it),
          TEST_CASE(test_runs_as_nobody_in_its_own_work_dir), TEST_CASE(test_not_root_refuses_another_uid),
          TEST_CASE(test_hosts_file_is_bound_for_the_task_only), TEST_CASE(test_ssh_dir_is_bound_for_the_task_only),
          TEST_CASE(test_task_umask_and_no_new_privs), TEST_CASE(test_cgroup_is_readable_not_writable_by_the_task),
          TEST_CASE(test_exec_failures_are_sentences), TEST_CASE(test_spawn_rate))
