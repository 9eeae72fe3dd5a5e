/* Volcano's job lifecycle in the controller: phases by the counts, policies and their actions,
 * delayed actions, in-place restarts, autoMemoryScale, dependsOn, commands and TTL, driven through
 * real admission and scheduling with fake processes (tests/lib/ctl_fixture). */
#include <stdio.h>
#include <string.h>

#include "tests/lib/ctl_fixture.h"
#include "tests/lib/test.h"

/* A job of `tasks` (YAML list items, indented 2) with spec lines `extra` (indented 2). */
static char *job_yaml(const char *name, const char *extra, const char *tasks)
{
    static char buf[8192];
    snprintf(buf, sizeof buf,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: %s\nspec:\n%s  tasks:\n%s", name,
             extra, tasks);
    return buf;
}

#define TASK(name, replicas, more)                           \
    "  - name: " name "\n    replicas: " #replicas "\n" more \
    "    template:\n      spec:\n"                           \
    "        containers:\n        - name: c\n          command: [\"true\"]\n"

/* A job of one task w of `replicas` pods asking `cpu` each, with spec lines `extra`, into buf. */
static const char *cpu_job_yaml(char *buf, size_t len, const char *name, const char *extra, int replicas, int cpu)
{
    snprintf(buf, len,
             "%s  - name: w\n    replicas: %d\n    template:\n      spec:\n        containers:\n        - name: c\n"
             "          command: [\"true\"]\n          resources: {requests: {cpu: %d}}\n",
             job_yaml(name, extra, ""), replicas, cpu);
    return buf;
}

static const char *phase(const struct job *job) { return job_phase_name(job->status.phase); }

static void runs_to_completed(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = ctlfx_submit(&fx, job_yaml("ok", "", TASK("w", 2, "")));
    REQUIRE(job);
    CHECK_STR(phase(job), "Pending");
    ctlfx_cycle(&fx);
    CHECK_STR(phase(job), "Running");
    CHECK_INT(job->pg.phase, PG_RUNNING);
    ctlfx_exit(&fx, job, 0, 0, false);
    CHECK_STR(phase(job), "Running");
    ctlfx_exit(&fx, job, 1, 0, false);
    CHECK_STR(phase(job), "Completed");
    CHECK_INT(job->pg.phase, PG_COMPLETED);
    CHECK_INT(job->status.succeeded, 2);
    CHECK_INT(job->status.version, 0);
    ctlfx_free(&fx);
}

/* PodFailed -> RestartJob until retryCount reaches maxRetry: each restart kills the job (version
 * up), the pod runs again, and the last failure's pod is kept for the record. */
static void pod_failed_restarts_job_until_max_retry(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = ctlfx_submit(&fx, job_yaml("retry",
                                                 "  maxRetry: 3\n  policies:\n  - event: PodFailed\n"
                                                 "    action: RestartJob\n",
                                                 TASK("w", 1, "")));
    REQUIRE(job);
    for (int run = 1; run <= 3; run++) {
        ctlfx_cycle(&fx);
        CHECK_STR(phase(job), "Running");
        CHECK_INT(job->replicas[0].attempts, run);
        REQUIRE(ctlfx_exit(&fx, job, 0, 1, false));
    }
    CHECK_STR(phase(job), "Failed");
    CHECK_INT(job->status.retry_count, 3);
    CHECK_INT(job->status.version, 3);
    CHECK_INT(fx.starts, 3);
    CHECK_INT(job->replicas[0].phase, POD_FAILED); /* kept at the last retry */
    CHECK_INT(job->status.failed, 1);
    ctlfx_free(&fx);
}

/* Volcano's distcc example's shape: the master's TaskCompleted -> CompleteJob ends the job while workers
 * still run; they are stopped and removed, the job Completed. */
static void task_completed_completes_job(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = ctlfx_submit(&fx, job_yaml("distcc", "",
                                                 TASK("master", 1,
                                                      "    policies:\n    - event: TaskCompleted\n"
                                                      "      action: CompleteJob\n") TASK("worker", 3, "")));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    CHECK_INT(job->status.running, 4);
    ctlfx_exit(&fx, job, 0, 0, false);
    CHECK_STR(phase(job), "Completing");
    CHECK_INT(fx.stops, 3);
    CHECK_INT(job->status.terminating, 3);
    CHECK_INT(ctlfx_settle(&fx), 3);
    CHECK_STR(phase(job), "Completed");
    CHECK_INT(job->status.succeeded, 1);
    CHECK_INT(job->status.failed, 0);
    CHECK_INT(ctlfx_count(job, POD_ABSENT), 3);
    CHECK_INT(job->status.version, 1);
    ctlfx_free(&fx);
}

/* The distcc shape under caldera.io/clean-pod-policy (Kubeflow's cleanPodPolicy). */
static struct job *submit_with_clean_policy(struct ctl_fixture *fx, const char *name, const char *policy)
{
    char yaml[8192];
    snprintf(yaml, sizeof yaml,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: %s\n  annotations:\n"
             "    caldera.io/clean-pod-policy: %s\nspec:\n  tasks:\n%s",
             name, policy,
             TASK("master", 1,
                  "    policies:\n    - event: TaskCompleted\n      action: CompleteJob\n"
                  "    - event: PodFailed\n      action: TerminateJob\n")
                 TASK("worker", 3, "    policies:\n    - event: PodFailed\n      action: TerminateJob\n"));
    return ctlfx_submit(fx, yaml);
}

/* None: the master's success completes the job at once and leaves the workers running and listed
 * until they end by themselves (a failing one stops nobody); no pod was stopped. */
static void clean_pod_policy_none_leaves_workers_running(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = submit_with_clean_policy(&fx, "keep", "None");
    REQUIRE(job);
    CHECK_INT(job->clean_pods, CLEAN_PODS_NONE);
    ctlfx_cycle(&fx);
    CHECK_INT(job->status.running, 4);
    ctlfx_exit(&fx, job, 0, 0, false);
    CHECK_STR(phase(job), "Completed");
    CHECK_INT(fx.stops, 0);
    CHECK_INT(job->status.running, 3);
    CHECK_INT(job->status.terminating, 0);
    CHECK_INT(ctlfx_count(job, POD_RUNNING), 3);
    ctlfx_exit(&fx, job, 1, 1, false); /* a worker fails: its TerminateJob stops no one */
    CHECK_INT(fx.stops, 0);
    CHECK_INT(ctlfx_count(job, POD_RUNNING), 2);
    CHECK_INT(ctlfx_count(job, POD_FAILED), 1);
    ctlfx_exit(&fx, job, 2, 0, false);
    ctlfx_cycle(&fx); /* nothing is placed again */
    CHECK_INT(fx.starts, 4);
    ctlfx_exit(&fx, job, 3, 0, false);
    CHECK_STR(phase(job), "Completed");
    CHECK_INT(job->status.succeeded, 3);
    CHECK_INT(job->status.failed, 1);
    CHECK_INT(ctlfx_count(job, POD_ABSENT), 0);
    CHECK_INT(job->status.version, 0);
    ctlfx_free(&fx);

    /* a user's command still stops what was left running */
    ctlfx_init(&fx, 1);
    job = submit_with_clean_policy(&fx, "keep2", "None");
    REQUIRE(job);
    ctlfx_cycle(&fx);
    ctlfx_exit(&fx, job, 0, 0, false);
    struct api_status st = {0};
    CHECK_INT(controller_command(&fx.ctl, job, ACT_TERMINATE_JOB, NULL, NULL, &st), 0);
    CHECK_INT(fx.stops, 3);
    CHECK_INT(ctlfx_settle(&fx), 3);
    CHECK(job_phase_final(job->status.phase));
    ctlfx_free(&fx);
}

/* Running stops running pods and keeps finished ones (Volcano's own CompleteJob); All removes the
 * finished ones too. */
static void clean_pod_policy_running_and_all(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = submit_with_clean_policy(&fx, "running", "Running");
    REQUIRE(job);
    ctlfx_cycle(&fx);
    ctlfx_exit(&fx, job, 0, 0, false);
    CHECK_INT(fx.stops, 3);
    CHECK_INT(ctlfx_settle(&fx), 3);
    CHECK_STR(phase(job), "Completed");
    CHECK_INT(ctlfx_count(job, POD_SUCCEEDED), 1);
    CHECK_INT(ctlfx_count(job, POD_ABSENT), 3);
    ctlfx_free(&fx);

    ctlfx_init(&fx, 1);
    job = submit_with_clean_policy(&fx, "all", "All");
    REQUIRE(job);
    ctlfx_cycle(&fx);
    ctlfx_exit(&fx, job, 0, 0, false);
    CHECK_INT(fx.stops, 3);
    CHECK_INT(ctlfx_settle(&fx), 3);
    CHECK_STR(phase(job), "Completed");
    CHECK_INT(ctlfx_count(job, POD_ABSENT), 4);
    ctlfx_free(&fx);

    ctlfx_init(&fx, 1);
    CHECK(submit_with_clean_policy(&fx, "bad", "Sometimes") == NULL);
    ctlfx_free(&fx);
}

/* minSuccess 2 of 5: Completed at the second success, whatever minAvailable says; the rest stop. */
static void min_success_completes_early(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = ctlfx_submit(&fx, job_yaml("ms", "  minSuccess: 2\n", TASK("w", 5, "")));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    CHECK_INT(job->status.running, 5);
    ctlfx_exit(&fx, job, 3, 1, false); /* a failure does not end it */
    ctlfx_exit(&fx, job, 0, 0, false);
    CHECK_STR(phase(job), "Running");
    ctlfx_exit(&fx, job, 1, 0, false);
    CHECK_STR(phase(job), "Completed");
    CHECK_INT(fx.stops, 2);
    ctlfx_settle(&fx);
    CHECK_INT(job->status.succeeded, 2);
    CHECK_INT(job->status.failed, 1);
    CHECK_INT(job->status.running + job->status.terminating, 0);
    ctlfx_free(&fx);
}

/* An exitCode policy: exit 3 aborts the job (finished pods kept); resume restarts it. */
static void exit_code_policy_and_resume(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = ctlfx_submit(
        &fx, job_yaml("codes", "  policies:\n  - exitCode: 3\n    action: AbortJob\n", TASK("w", 2, "")));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    ctlfx_exit(&fx, job, 0, 1, false); /* exit 1: no policy, the pod just fails */
    CHECK_STR(phase(job), "Running");
    ctlfx_exit(&fx, job, 1, 3, false);
    CHECK_STR(phase(job), "Aborted"); /* nothing was left running */
    CHECK_INT(job->status.failed, 2);
    struct api_status st = {0};
    CHECK_INT(controller_command(&fx.ctl, job, ACT_RESUME_JOB, "test", NULL, &st), 0);
    CHECK_INT(job->status.retry_count, 1);
    /* Restarting -> Pending -> Running -> Failed at once: Volcano keeps finished pods through the soft
     * kills of abort and resume, so both failed pods still count and every replica has finished. */
    CHECK_STR(phase(job), "Failed");
    CHECK_INT(fx.starts, 2);
    ctlfx_free(&fx);
}

static void abort_stops_then_resume_runs_again(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = ctlfx_submit(&fx, job_yaml("sus", "", TASK("w", 2, "")));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    struct api_status st = {0};
    CHECK_INT(controller_command(&fx.ctl, job, ACT_ABORT_JOB, NULL, NULL, &st), 0);
    CHECK_STR(phase(job), "Aborting");
    CHECK_INT(job->status.terminating, 2);
    ctlfx_settle(&fx);
    CHECK_STR(phase(job), "Aborted");
    CHECK_INT(ctlfx_count(job, POD_ABSENT), 2);
    ctlfx_cycle(&fx); /* nothing is placed for an aborted job */
    CHECK_INT(fx.starts, 2);
    CHECK_INT(controller_command(&fx.ctl, job, ACT_RESUME_JOB, NULL, NULL, &st), 0);
    CHECK_STR(phase(job), "Pending");
    ctlfx_cycle(&fx);
    CHECK_STR(phase(job), "Running");
    CHECK_INT(fx.starts, 4);
    CHECK_INT(controller_command(&fx.ctl, job, ACT_TERMINATE_JOB, NULL, NULL, &st), 0);
    ctlfx_settle(&fx);
    CHECK_STR(phase(job), "Terminated");
    CHECK_INT(controller_command(&fx.ctl, job, ACT_OPEN_QUEUE, NULL, NULL, &st), -1);
    CHECK_INT(st.code, 422);
    ctlfx_free(&fx);
}

/* dependsOn: b's pods exist only once a runs (all of a's minAvailable). */
static void depends_on_orders_tasks(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = ctlfx_submit(&fx, job_yaml("dep", "  minAvailable: 2\n",
                                                 TASK("a", 2, "") TASK("b", 1, "    dependsOn:\n      name: [a]\n")));
    REQUIRE(job);
    CHECK_INT(job->task_counts[1].absent, 1);
    ctlfx_cycle(&fx);
    CHECK_INT(job->task_counts[0].running, 2);
    CHECK_INT(job->task_counts[1].pending, 1); /* created once a runs */
    ctlfx_cycle(&fx);
    CHECK_INT(job->task_counts[1].running, 1);
    ctlfx_free(&fx);
}

/* PodPending with a timeout: the action runs if the pod still waits when it expires, and is
 * cancelled when the pod runs first. */
static void pod_pending_timeout(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    /* two replicas of 5 cpu on one 8-cpu node, gang of one: the PodGroup is enqueued, the second pod
     * exists and cannot be placed */
    const char *task =
        "  - name: w\n    replicas: 2\n    minAvailable: 1\n    template:\n      spec:\n"
        "        containers:\n        - name: c\n          command: [\"true\"]\n"
        "          resources: {requests: {cpu: 5}}\n";
    struct job *job = ctlfx_submit(&fx, job_yaml("stuck",
                                                 "  policies:\n  - event: PodPending\n    timeout: 10s\n"
                                                 "    action: AbortJob\n",
                                                 task));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    CHECK_STR(phase(job), "Running");
    CHECK_INT(job->status.pending, 1);
    ctlfx_advance(&fx, 9999);
    CHECK_STR(phase(job), "Running");
    ctlfx_advance(&fx, 1);
    CHECK_STR(phase(job), "Aborting");
    ctlfx_settle(&fx);
    CHECK_STR(phase(job), "Aborted");

    struct job *ok = ctlfx_submit(&fx, job_yaml("quick",
                                                "  policies:\n  - event: PodPending\n    timeout: 10s\n"
                                                "    action: AbortJob\n",
                                                TASK("w", 1, "")));
    REQUIRE(ok);
    ctlfx_cycle(&fx);
    CHECK_STR(phase(ok), "Running");
    ctlfx_advance(&fx, 20000);
    CHECK_STR(phase(ok), "Running");
    CHECK_INT(fx.ctl.ntimers, 0);
    ctlfx_free(&fx);
}

/* restartPolicy OnFailure: the container restarts in place after a back-off; at the task's maxRetry
 * restarts, TaskFailed raises its policy. */
static void restart_in_place_then_task_failed(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    const char *task =
        "  - name: w\n    replicas: 1\n    maxRetry: 2\n    policies:\n    - event: TaskFailed\n"
        "      action: TerminateJob\n    template:\n      spec:\n        restartPolicy: OnFailure\n"
        "        containers:\n        - name: c\n          command: [\"false\"]\n";
    struct job *job = ctlfx_submit(&fx, job_yaml("crash", "", task));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    ctlfx_exit(&fx, job, 0, 1, false);
    CHECK_INT(job->replicas[0].phase, POD_RUNNING);
    CHECK(job->replicas[0].backoff);
    CHECK_INT(job->replicas[0].restarts, 1);
    ctlfx_advance(&fx, 999);
    CHECK_INT(fx.starts, 1);
    ctlfx_advance(&fx, 1);
    CHECK_INT(fx.starts, 2); /* after the 1 s back-off */
    CHECK_STR(phase(job), "Running");
    ctlfx_exit(&fx, job, 0, 1, false);
    CHECK_INT(job->replicas[0].restarts, 2);
    CHECK_STR(phase(job), "Terminated"); /* TaskFailed -> TerminateJob; the pod was between attempts */
    ctlfx_advance(&fx, 10000);
    CHECK_INT(fx.starts, 2);
    ctlfx_free(&fx);
}

/* autoMemoryScale: OOM kills scale the task's memory by the rate up to maxMemory without counting
 * as failures; an OOM kill at the ceiling fails the pod. */
static void oom_scales_memory_up_to_the_maximum(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    const char *task =
        "  - name: w\n    replicas: 1\n    template:\n      spec:\n        containers:\n"
        "        - name: c\n          command: [\"true\"]\n"
        "          resources: {limits: {memory: 50Mi}}\n";
    struct job *job = ctlfx_submit(&fx, job_yaml("oom", "  autoMemoryScale: {rate: 1.5, maxMemory: 100Mi}\n", task));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    CHECK_INT(fx.procs[0].spec.memory_limit, 50LL << 20);
    ctlfx_exit(&fx, job, 0, 137, true);
    CHECK_INT(job->replicas[0].phase, POD_PENDING);
    CHECK_INT(job->tasks[0].limit.v[RES_MEMORY], 75LL << 20);
    CHECK_INT(job->tasks[0].request.v[RES_MEMORY], 75LL << 20);
    CHECK_INT(job->status.retry_count, 0);
    ctlfx_cycle(&fx);
    CHECK_INT(fx.procs[1].spec.memory_limit, 75LL << 20);
    ctlfx_exit(&fx, job, 0, 137, true);
    CHECK_INT(job->tasks[0].limit.v[RES_MEMORY], 100LL << 20); /* 112.5Mi capped */
    ctlfx_cycle(&fx);
    ctlfx_exit(&fx, job, 0, 137, true);
    CHECK_STR(phase(job), "Failed");
    CHECK_INT(job->replicas[0].reason, TERM_OOMKILLED);
    CHECK_INT(job->replicas[0].exit_code, 137);
    /* the manifest says what the task runs with now */
    const char *lim = json_string_value(json_object_get(
        json_object_get(
            json_object_get(
                json_array_get(json_object_get(json_object_get(job_task_template(job, 0), "spec"), "containers"), 0),
                "resources"),
            "limits"),
        "memory"));
    CHECK_STR(lim, "100Mi");
    CHECK_INT(fx.cluster.nodes[0].used.v[RES_MEMORY], 0);
    ctlfx_free(&fx);
}

/* Deleting a pod: it stops, is created again, and PodEvicted goes through the policies. */
static void deleted_pod_comes_back_and_raises_pod_evicted(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = ctlfx_submit(&fx, job_yaml("del", "", TASK("w", 2, "")));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    controller_delete_pod(&fx.ctl, job, 1);
    ctlfx_settle(&fx);
    CHECK_INT(job->replicas[1].phase, POD_PENDING);
    ctlfx_cycle(&fx);
    CHECK_INT(job->replicas[1].phase, POD_RUNNING);
    CHECK_INT(job->replicas[1].attempts, 2);

    struct job *r = ctlfx_submit(
        &fx, job_yaml("evict", "  policies:\n  - event: PodEvicted\n    action: RestartJob\n", TASK("w", 2, "")));
    REQUIRE(r);
    ctlfx_cycle(&fx);
    controller_delete_pod(&fx.ctl, r, 0);
    CHECK_STR(phase(r), "Running"); /* PodEvicted comes with the pod's end */
    ctlfx_settle(&fx);              /* the deleted pod ends, RestartJob stops the other, it ends too */
    CHECK_STR(phase(r), "Pending");
    CHECK_INT(r->status.retry_count, 1);
    CHECK_INT(r->status.version, 1);
    ctlfx_cycle(&fx);
    CHECK_STR(phase(r), "Running");
    ctlfx_free(&fx);
}

/* ttlSecondsAfterFinished: the finished job leaves the API after its TTL. */
static void ttl_deletes_finished_job(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = ctlfx_submit(&fx, job_yaml("ttl", "  ttlSecondsAfterFinished: 5\n", TASK("w", 1, "")));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    ctlfx_exit(&fx, job, 0, 0, false);
    CHECK_STR(phase(job), "Completed");
    ctlfx_advance(&fx, 4999);
    CHECK(cluster_find_job(&fx.cluster, "default", "ttl") != NULL);
    ctlfx_advance(&fx, 1);
    CHECK(cluster_find_job(&fx.cluster, "default", "ttl") == NULL);
    ctlfx_free(&fx);
}

/* A replica that cannot start fails with StartError, which is a PodFailed like any other. */
static void start_error_is_pod_failed(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = ctlfx_submit(&fx, job_yaml("bad",
                                                 "  maxRetry: 2\n  policies:\n  - event: PodFailed\n"
                                                 "    action: RestartJob\n",
                                                 TASK("w", 1, "")));
    REQUIRE(job);
    fx.fail_starts = true;
    ctlfx_cycle(&fx); /* fails, restarts: Restarting -> Pending at once, nothing to wait for */
    CHECK_STR(phase(job), "Pending");
    CHECK_INT(job->status.retry_count, 1);
    ctlfx_cycle(&fx);
    CHECK_STR(phase(job), "Failed");
    CHECK_INT(job->status.retry_count, 2);
    CHECK_INT(job->replicas[0].reason, TERM_START_ERROR);
    ctlfx_free(&fx);
}

/* A runtime that starts in the background (the kube backend's shape): the pod runs once the start
 * reports back, a failed start is PodFailed, and a stop asked meanwhile reaches it once it runs. */
static void background_starts(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    fx.async_starts = true;
    struct job *job = ctlfx_submit(&fx, job_yaml("bg", "", TASK("w", 3, "")));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    CHECK(job->replicas[0].starting);
    CHECK_INT(job->replicas[0].pid, 0);
    CHECK(ctlfx_finish_start(&fx, job, 0, true));
    CHECK(!job->replicas[0].starting);
    CHECK_INT(job->replicas[0].pid, 1000);
    CHECK(ctlfx_finish_start(&fx, job, 1, false));
    CHECK_INT(job->replicas[1].phase, POD_FAILED);
    CHECK_INT(job->replicas[1].reason, TERM_START_ERROR);
    CHECK_INT(job->live_procs, 2); /* replica 0 runs, replica 2 is still starting */
    struct api_status st = {0};
    CHECK_INT(controller_command(&fx.ctl, job, ACT_ABORT_JOB, NULL, NULL, &st), 0);
    CHECK_STR(phase(job), "Aborting");
    CHECK(ctlfx_finish_start(&fx, job, 2, false)); /* the start fails while it is being stopped */
    CHECK_INT(job->replicas[2].phase, POD_ABSENT);
    ctlfx_settle(&fx);
    CHECK_STR(phase(job), "Aborted");
    CHECK_INT(job->live_procs, 0);
    ctlfx_free(&fx);
}

/* The attempt row of a replica's latest start in the journal (not yet drained), or NULL. */
static const struct journal_attempt *start_row(const struct ctl_fixture *fx, const char *pod)
{
    const struct journal_attempt *found = NULL;
    for (const struct journal_entry *e = fx->ctl.journal.head; e; e = e->next)
        if (e->op == JOURNAL_ATTEMPT_START && e->attempt.pod && strcmp(e->attempt.pod, pod) == 0)
            found = &e->attempt;
    return found;
}

/* An attempt's start is the moment the runtime reports its process running, not the moment the
 * controller decided it (its now_ms, the core's iteration's start, before the job was even made):
 * in the replica (the pod's startedAt) and in the attempt's row, started here or in the background;
 * a runtime that says nothing (0) leaves the decision's time. */
static void an_attempt_starts_when_its_process_runs(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    int64_t decided = fx.ctl.now_ms;
    fx.started_at_ms = decided + 250;
    struct job *here = ctlfx_submit(&fx, job_yaml("here", "", TASK("w", 1, "")));
    REQUIRE(here);
    ctlfx_cycle(&fx);
    CHECK(here->replicas[0].start_ms == decided + 250);
    ctlfx_advance(&fx, 1000);
    REQUIRE(ctlfx_exit(&fx, here, 0, 0, false));
    CHECK(here->replicas[0].end_ms == decided + 1000); /* the runtime's end, as it reports it */

    fx.async_starts = true;
    struct job *bg = ctlfx_submit(&fx, job_yaml("bg", "", TASK("w", 1, "")));
    REQUIRE(bg);
    ctlfx_cycle(&fx);
    REQUIRE(bg->replicas[0].starting);
    struct attempt_started st = {.pid = 4242, .pid_start = 1, .start_ms = decided + 400};
    controller_attempt_started(&fx.ctl, bg, 0, &st);
    CHECK(bg->replicas[0].start_ms == decided + 400);
    const struct journal_attempt *row = start_row(&fx, "bg-w-0");
    REQUIRE(row);
    CHECK(row->start_ms == decided + 400);
    CHECK_INT(row->pid, 4242);
    ctlfx_drain(&fx);

    fx.started_at_ms = 0;
    struct job *unknown = ctlfx_submit(&fx, job_yaml("unknown", "", TASK("w", 1, "")));
    REQUIRE(unknown);
    ctlfx_cycle(&fx);
    REQUIRE(ctlfx_finish_start(&fx, unknown, 0, true));
    CHECK(unknown->replicas[0].start_ms == fx.ctl.now_ms);
    ctlfx_free(&fx);
}

/* PUT of a running job: a scale up creates pods, a scale down stops the last ones and lays the
 * replicas out again once they are gone, minAvailable follows; other changes are refused; the
 * update raises JobUpdated. */
static void update_scales_the_job(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    struct job *job = ctlfx_submit(&fx, job_yaml("el", "  minAvailable: 1\n", TASK("a", 2, "") TASK("b", 2, "")));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    CHECK_INT(job->status.running, 4);
    ctlfx_exit(&fx, job, 3, 0, false); /* b-1 finishes: its place moves when a grows */
    /* grow a to 4: b's replicas move, their processes with them */
    CHECK_INT(ctlfx_update(&fx, job, job_yaml("el", "  minAvailable: 3\n", TASK("a", 4, "") TASK("b", 2, ""))), 0);
    CHECK_INT(job->total_replicas, 6);
    CHECK_INT(job->min_available, 3);
    CHECK_INT(job->task_counts[0].pending, 2);
    CHECK_INT(job->replicas[5].phase, POD_SUCCEEDED); /* b-1, moved from 3 to 5 */
    REQUIRE(ctlfx_proc(&fx, job, 4));                 /* b-0 runs at its new place */
    ctlfx_cycle(&fx);
    CHECK_INT(job->task_counts[0].running, 4);
    /* shrink a to 1: a-1..a-3 stop; the layout changes once they are gone */
    CHECK_INT(ctlfx_update(&fx, job, job_yaml("el", "  minAvailable: 1\n", TASK("a", 1, "") TASK("b", 2, ""))), 0);
    CHECK_INT(job->tasks[0].shrink_to, 1);
    CHECK_INT(job->status.terminating, 3);
    ctlfx_settle(&fx);
    CHECK_INT(job->tasks[0].replicas, 1);
    CHECK_INT(job->tasks[0].shrink_to, -1);
    CHECK_INT(job->total_replicas, 3);
    CHECK(ctlfx_proc(&fx, job, 1) != NULL); /* b-0 at 1 now */
    CHECK_INT(job->replicas[2].phase, POD_SUCCEEDED);
    ctlfx_exit(&fx, job, 0, 0, false);
    ctlfx_exit(&fx, job, 1, 0, false);
    CHECK_STR(phase(job), "Completed");
    /* anything else is refused */
    struct job *other = ctlfx_submit(&fx, job_yaml("fixed", "", TASK("a", 1, "")));
    REQUIRE(other);
    CHECK_INT(ctlfx_update(&fx, other, job_yaml("fixed", "  maxRetry: 9\n", TASK("a", 1, ""))), 422);
    ctlfx_free(&fx);
}

static void job_updated_raises_its_policy(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    const char *pol = "  minAvailable: 1\n  policies:\n  - event: JobUpdated\n    action: RestartJob\n";
    struct job *job = ctlfx_submit(&fx, job_yaml("upd", pol, TASK("a", 1, "")));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    CHECK_INT(ctlfx_update(&fx, job, job_yaml("upd", pol, TASK("a", 2, ""))), 0);
    /* RestartJob: Restarting, and Pending at once (2 replicas - 1 terminating >= minAvailable 1) */
    CHECK_STR(phase(job), "Pending");
    CHECK_INT(job->status.retry_count, 1);
    CHECK_INT(job->status.version, 1);
    ctlfx_settle(&fx);
    ctlfx_cycle(&fx);
    CHECK_INT(job->status.running, 2);
    ctlfx_free(&fx);
}

/* A gang the cluster cannot hold waits with one reason, recorded once: other jobs coming and going
 * change what is free, not why it waits, so its status and PodGroup are not written again (the
 * reason used to quote the free amount: each start or end rewrote every waiting gang, two entries
 * apiece). */
static void a_waiting_gang_is_not_recorded_again_as_room_changes(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1); /* 8 cpu: 9.6 under the overcommit factor */
    char small[1024], big[1024];
    struct job *runner = ctlfx_submit(&fx, cpu_job_yaml(small, sizeof small, "small", "", 1, 2));
    struct job *waiter = ctlfx_submit(&fx, cpu_job_yaml(big, sizeof big, "big", "", 2, 6));
    REQUIRE(runner && waiter);
    ctlfx_cycle(&fx);
    ctlfx_cycle(&fx); /* the waiter's reason as it stands while the runner runs */
    CHECK_INT(runner->status.running, 1);
    CHECK_STR(waiter->status.reason ? waiter->status.reason : "", "Unschedulable");
    CHECK_CONTAINS(waiter->status.message ? waiter->status.message : "", "cpu 12 needed");
    uint64_t version = waiter->resource_version;
    ctlfx_exit(&fx, runner, 0, 0, false); /* 2 cpu more are free */
    CHECK_STR(phase(runner), "Completed");
    ctlfx_drain(&fx);
    ctlfx_cycle(&fx);
    int about_waiter = 0;
    for (const struct journal_entry *e = fx.ctl.journal.head; e; e = e->next)
        about_waiter += e->ev.name && strcmp(e->ev.name, "big") == 0;
    CHECK_INT(about_waiter, 0);
    CHECK(waiter->resource_version == version);
    CHECK_STR(waiter->status.reason ? waiter->status.reason : "", "Unschedulable");
    ctlfx_free(&fx);
}

/* Volcano's Unknown: a running gang lost a pod and the replacement finds no room (another job took
 * it), so the gang cannot work; the Unknown event goes through the job's policies. */
static void unknown_when_a_running_gang_cannot_be_completed(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 1);
    char gang[1024], other[1024];
    struct job *job = ctlfx_submit(
        &fx, cpu_job_yaml(gang, sizeof gang, "gang", "  policies:\n  - event: Unknown\n    action: AbortJob\n", 2, 4));
    REQUIRE(job);
    ctlfx_cycle(&fx);
    CHECK_INT(job->status.running, 2);
    CHECK_INT(job->pg.phase, PG_RUNNING);
    controller_delete_pod(&fx.ctl, job, 1);
    ctlfx_settle(&fx); /* w-1 is Pending again, its 4 cpu free */
    struct job *taker = ctlfx_submit(&fx, cpu_job_yaml(other, sizeof other, "other", "", 1, 4));
    REQUIRE(taker);
    /* one cycle places whichever comes first; repeat until the taker holds the room */
    for (int i = 0; i < 3 && taker->status.running == 0 && job->status.running < 2; i++)
        ctlfx_cycle(&fx);
    REQUIRE(taker->status.running == 1);
    ctlfx_cycle(&fx); /* the gang's pending pod cannot be placed: Unknown -> AbortJob */
    CHECK_STR(phase(job), "Aborting");
    ctlfx_settle(&fx);
    CHECK_STR(phase(job), "Aborted");
    ctlfx_free(&fx);
}

TEST_MAIN(TEST_CASE(runs_to_completed), TEST_CASE(pod_failed_restarts_job_until_max_retry),
          TEST_CASE(task_completed_completes_job), TEST_CASE(clean_pod_policy_none_leaves_workers_running),
          TEST_CASE(clean_pod_policy_running_and_all), TEST_CASE(min_success_completes_early),
          TEST_CASE(exit_code_policy_and_resume), TEST_CASE(abort_stops_then_resume_runs_again),
          TEST_CASE(depends_on_orders_tasks), TEST_CASE(pod_pending_timeout),
          TEST_CASE(restart_in_place_then_task_failed), TEST_CASE(oom_scales_memory_up_to_the_maximum),
          TEST_CASE(deleted_pod_comes_back_and_raises_pod_evicted), TEST_CASE(ttl_deletes_finished_job),
          TEST_CASE(start_error_is_pod_failed), TEST_CASE(background_starts),
          TEST_CASE(an_attempt_starts_when_its_process_runs), TEST_CASE(update_scales_the_job),
          TEST_CASE(job_updated_raises_its_policy), TEST_CASE(unknown_when_a_running_gang_cannot_be_completed),
          TEST_CASE(a_waiting_gang_is_not_recorded_again_as_room_changes))
