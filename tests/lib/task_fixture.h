/* Real tasks for the process runtime's tests: an attempt spec with its own directories and cgroup
 * name under a temporary root, started, waited for and reaped, and the checks they share. */
#ifndef CALDERA_TASK_FIXTURE_H
#define CALDERA_TASK_FIXTURE_H

#include <stdbool.h>
#include <sys/types.h>

#include "runtime/process.h"
#include "tests/lib/test.h"

struct task {
    char work[512], log[512], exits[512], cgroup[200], pod[64];
    struct attempt_spec spec;
    struct process proc;
    struct attempt_started started;
    struct replica_exit exit;
    char why[512];
};

/* Creates the temporary root (0755, so other uids can reach their work directories) and a job
 * name unique to this run; idempotent. Returns its path. */
const char *task_root(void);
/* A spec for argv: work dir <root>/<name>/work, log <root>/<name>/logs/1.log, cgroup
 * "<job>/<name>.1", PATH=/usr/local/bin:/usr/bin:/bin, as the server's user, no limits, under the
 * supervisor ($CALDERA_SHIM) with exits file <root>/<name>/exits, as pod <name> attempt 1. */
void task_init(struct task *t, const char *name, char *const *argv);
int task_start(struct task *t);
/* Waits up to timeout_ms for the main process to exit, then reaps it. */
bool task_wait(struct task *t, int timeout_ms);
/* The task's log (caller frees), "" when unreadable. */
char *task_log(const struct task *t);
/* Whether any directory of the attempt's cgroup, or of the test job's parent, is left. */
bool task_cgroup_left(const char *cgroup_name);
/* The job's cgroup parent ("<job>") every task_init name lives under. */
const char *task_job(void);
/* A process that exists and is not a zombie. */
bool task_pid_alive(pid_t pid);
/* Waits up to timeout_ms for <work>/<file> to hold a number; returns it, or -1. */
long task_read_number_file(const struct task *t, const char *file, int timeout_ms);

/* Stops the case when the task did not start, saying why. */
#define REQUIRE_STARTED(t)                                               \
    do {                                                                 \
        if (task_start(t) != 0) {                                        \
            test_fail(__FILE__, __LINE__, "start failed: %s", (t)->why); \
            return;                                                      \
        }                                                                \
    } while (0)

/* The cases test_runtime (on the machine's hierarchy) and test_runtime_v2 (on cgroup v2) both run,
 * their task named name; each binary skips them first where it has no cgroups of its kind. */
/* SIGTERM reaches the task and a process that left its session, each once. */
void task_case_sigterm_reaches_every_process_once(const char *name);
/* A root task's cgroups inside its own, with a process in them, go with the task. */
void task_case_cgroups_the_task_made_go_with_it(const char *name);
/* A task lost (as after a restart: only its pid known, killed, forgotten) takes the process it left
 * outside its session with its cgroup, which goes. */
void task_case_lost_task_is_killed_with_its_cgroup(const char *name);

#endif
