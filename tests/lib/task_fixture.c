/* Real tasks for the process runtime's tests: specs under a temporary root, start, wait and reap,
 * looks at /proc and the cgroup hierarchies to see what survived, and the cases both versions run. */
#include "tests/lib/task_fixture.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/sbuf.h"
#include "gateway/resources/pod_log.h"
#include "runtime/cgroup/cgroup.h"

static char root[256];
static char job[64];
static char *const task_env[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "LC_ALL=C", NULL};

static void remove_root(void) { remove_tree(root); }

const char *task_root(void)
{
    if (!root[0]) {
        snprintf(root, sizeof root, "/tmp/caldera-runtime-XXXXXX");
        if (!mkdtemp(root) || chmod(root, 0755) != 0) {
            perror("task_root");
            exit(2);
        }
        snprintf(job, sizeof job, "test-%d-%ld", (int)getpid(), (long)time(NULL));
        atexit(remove_root);
    }
    return root;
}

const char *task_job(void)
{
    task_root();
    return job;
}

void task_init(struct task *t, const char *name, char *const *argv)
{
    memset(t, 0, sizeof *t);
    snprintf(t->work, sizeof t->work, "%s/%s/work", task_root(), name);
    snprintf(t->log, sizeof t->log, "%s/%s/logs/1.log", task_root(), name);
    snprintf(t->exits, sizeof t->exits, "%s/%s/exits", task_root(), name);
    snprintf(t->cgroup, sizeof t->cgroup, "%s/%s.1", job, name);
    snprintf(t->pod, sizeof t->pod, "%s", name);
    t->spec = (struct attempt_spec){
        .argv = argv,
        .envp = task_env,
        .work_dir = t->work,
        .chdir_to = t->work,
        .log_path = t->log,
        .cgroup_name = t->cgroup,
        .exits_path = t->exits,
        .pod = t->pod,
        .attempt = 1,
        .uid = -1,
        .gid = -1,
    };
    t->proc.pidfd = -1;
}

int task_start(struct task *t) { return process_start(&t->spec, &t->proc, &t->started, t->why, sizeof t->why); }

bool task_wait(struct task *t, int timeout_ms)
{
    struct pollfd pfd = {.fd = t->proc.pidfd, .events = POLLIN};
    if (t->proc.pidfd < 0 || poll(&pfd, 1, timeout_ms) != 1)
        return false;
    return process_reap(&t->proc, &t->exit) == 0;
}

char *task_log(const struct task *t)
{
    /* as the log API serves it: the messages of the supervisor's CRI records (a raw file as it is) */
    struct pod_log_options all = {.tail_lines = POD_LOG_ALL_LINES, .since_ms = INT64_MIN};
    struct pod_log_reader *r;
    struct api_status st = {0};
    struct sbuf text = {0};
    char buf[4096];
    long n;
    if (pod_log_open(t->log, &all, &r, &st) == 0) {
        while ((n = pod_log_read(r, buf, sizeof buf)) > 0)
            sbuf_append(&text, buf, (size_t)n);
        pod_log_close(r);
    }
    return text.data ? text.data : strdup("");
}

bool task_cgroup_left(const char *cgroup_name)
{
    process_runtime_flush(5000); /* removals run on the cleaner thread */
    const struct cgroup_layout *L = cgroup_layout();
    for (int i = 0; i < L->count; i++) {
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", L->h[i].parent, cgroup_name);
        if (stat(path, &st) == 0)
            return true;
    }
    return false;
}

bool task_pid_alive(pid_t pid)
{
    char path[64], state = '?';
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    /* "pid (comm) S ...": the state follows the last ')' */
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')');
    if (close_paren && close_paren[1] == ' ')
        state = close_paren[2];
    return state != 'Z' && state != 'X' && state != '?';
}

long task_read_number_file(const struct task *t, const char *file, int timeout_ms)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", t->work, file);
    for (int waited = 0; waited <= timeout_ms; waited += 10) {
        char *data = NULL;
        if (read_file(path, 64, &data, NULL) == 0) {
            char *end;
            long v = strtol(data, &end, 10);
            bool complete = end != data && *end == '\n';
            free(data);
            if (complete)
                return v;
        }
        usleep(10000);
    }
    return -1;
}

void task_case_sigterm_reaches_every_process_once(const char *name)
{
    /* Each process counts its SIGTERMs into a file of its own, then exits. */
    char *argv[] = {"sh", "-c",
                    "setsid sh -c 'trap \"echo t >> escaped.terms; exit 0\" TERM; echo $$ > escaped.pid; "
                    "while :; do sleep 0.05; done' & "
                    "trap 'echo t >> main.terms; wait; exit 0' TERM; echo $$ > main.pid; while :; do sleep 0.05; done",
                    NULL};
    struct task t;
    task_init(&t, name, argv);
    REQUIRE_STARTED(&t);
    REQUIRE(task_read_number_file(&t, "escaped.pid", 5000) > 0);
    REQUIRE(task_read_number_file(&t, "main.pid", 5000) > 0);
    process_signal(&t.proc, SIGTERM);
    REQUIRE(task_wait(&t, 5000));
    CHECK_INT(t.exit.exit_code, 0);
    const char *files[] = {"main.terms", "escaped.terms"};
    for (int i = 0; i < 2; i++) {
        char path[700], *terms = NULL;
        snprintf(path, sizeof path, "%s/%s", t.work, files[i]);
        CHECK(read_file(path, 4096, &terms, NULL) == 0);
        CHECK_STR(terms, "t\n");
        free(terms);
    }
    CHECK(!task_cgroup_left(t.cgroup));
}

void task_case_cgroups_the_task_made_go_with_it(const char *name)
{
    SKIP_IF(geteuid() != 0, "needs root to make cgroups");
    /* A root task makes a cgroup inside its own in every hierarchy (as a nested container runtime
     * would) and leaves a process there, out of its session too. */
    const struct cgroup_layout *L = cgroup_layout();
    struct task t;
    task_init(&t, name, NULL);
    char dirs[2048] = "", script[4096];
    for (int i = 0; i < L->count; i++)
        snprintf(dirs + strlen(dirs), sizeof dirs - strlen(dirs), " %s/%s/inner", L->h[i].parent, t.cgroup);
    snprintf(script, sizeof script,
             "mkdir%s && sh -c 'for d in%s; do echo $$ > $d/cgroup.procs || exit 1; done; echo moved > moved; "
             "exec setsid sleep 1000' & echo $! > inner.pid; while [ ! -e moved ]; do sleep 0.01; done",
             dirs, dirs);
    char *argv[] = {"sh", "-c", script, NULL};
    t.spec.argv = argv;
    REQUIRE_STARTED(&t);
    long inner = task_read_number_file(&t, "inner.pid", 5000);
    REQUIRE(inner > 0);
    REQUIRE(task_wait(&t, 5000));
    CHECK_INT(t.exit.exit_code, 0);
    CHECK(!task_cgroup_left(t.cgroup)); /* waits for the cleaner, which waits for the kills */
    CHECK(!task_pid_alive((pid_t)inner));
}

void task_case_lost_task_is_killed_with_its_cgroup(const char *name)
{
    char *argv[] = {"sh", "-c", "setsid sleep 1000 & echo $! > escaped.pid; exec sleep 1000", NULL};
    struct task t;
    task_init(&t, name, argv);
    REQUIRE_STARTED(&t);
    long escaped = task_read_number_file(&t, "escaped.pid", 5000);
    REQUIRE(escaped > 0);
    /* As after a server restart: only the pid is known. */
    struct process lost = {.pid = t.proc.pid, .pidfd = -1};
    process_signal(&lost, SIGKILL);
    siginfo_t info;
    CHECK(waitid(P_PIDFD, (id_t)t.proc.pidfd, &info, WEXITED) == 0);
    process_forget(&t.proc);
    /* the process left behind dies with the cgroup, which goes once empty: wait (bounded) for each */
    for (int i = 0; i < 100 && task_pid_alive((pid_t)escaped); i++) {
        cgroup_retry_removals();
        usleep(10000);
    }
    CHECK(!task_pid_alive((pid_t)escaped));
    for (int i = 0; i < 100 && task_cgroup_left(t.cgroup); i++) {
        cgroup_retry_removals();
        usleep(10000);
    }
    CHECK(!task_cgroup_left(t.cgroup));
}
