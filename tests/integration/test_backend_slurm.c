/* A Caldera server with `--backend slurm` in front of a real throwaway Slurm cluster on loopback
 * (tests/lib/slurm_cluster: slurmctld, three slurmd, slurmrestd): a Volcano Job of two tasks and a
 * Kubeflow PyTorchJob run to Completed as Slurm jobs, their ranks' attempts on Slurm's nodes with the
 * plugins' variables computed from the allocation; a failing task goes through the job's policy
 * (RestartJob, then Failed at maxRetry) with its exit code in the history (sacct's view is
 * test_slurm_accounting's); slurmrestd down at submit keeps the job Pending until it is back; suspend
 * and resume are Slurm's; Caldera killed -9 follows what it had sent; a job scancelled behind its back
 * fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/slurm_cluster.h"
#include "tests/lib/test.h"

struct setup {
    struct slurm_cluster cluster;
    struct test_server caldera;
    char backends[400];
};

static void stop(struct setup *s);

/* The setup running now: a case that ends early (a REQUIRE) leaves it to the next case's start or to
 * the exit, never to outlive the test. */
static struct setup *live;

static void stop_live(void)
{
    if (live)
        stop(live);
}

static bool start(struct setup *s)
{
    stop_live();
    static bool hooked;
    if (!hooked && atexit(stop_live) == 0)
        hooked = true;
    memset(s, 0, sizeof *s);
    live = s;
    char err[512] = "";
    if (slurm_cluster_start(&s->cluster, err, sizeof err) != 0) {
        test_skip("no Slurm cluster here: %s", err);
        return false;
    }
    char token[400], text[2048];
    snprintf(token, sizeof token, "%s/caldera.jwt", s->cluster.dir);
    snprintf(s->backends, sizeof s->backends, "%s/backends.yaml", s->cluster.dir);
    snprintf(text, sizeof text,
             "default: slurm\nslurm:\n  url: %s\n  tokenFile: %s\n  user: %s\n  workDir: %s/caldera\n", s->cluster.url,
             token, s->cluster.user, s->cluster.dir);
    if (write_file_atomic(token, s->cluster.token, strlen(s->cluster.token), 0600) != 0 ||
        write_file_atomic(s->backends, text, strlen(text), 0600) != 0)
        return false;
    const char *args[] = {"--backends", s->backends, "--schedule-period", "100", NULL};
    return server_start(&s->caldera, NULL, args) == 0;
}

static void stop(struct setup *s)
{
    live = NULL;
    server_cleanup(&s->caldera);
    slurm_cluster_stop(&s->cluster);
}

static bool on_a_slurm_node(json_t *attempt)
{
    const char *node = jv_str(attempt, "node");
    return node && strncmp(node, "n", 1) == 0;
}

static void volcano_job_completes(void)
{
    static struct setup s; /* static: a case that ends early leaves it to stop_live() */
    if (!start(&s))
        return;
    REQUIRE(job_submit(&s.caldera, "pair", "  plugins:\n    svc: []\n    env: []\n",
                       TASK("ps", 1, "", "'echo ps $VC_TASK_INDEX of $VC_PS_NUM; echo hosts $VC_WORKER_HOSTS'", "")
                           TASK("worker", 2, "", "'echo worker $VC_TASK_INDEX'", "")) == 201);
    CHECK_INT(job_wait(&s.caldera, "pair", "status.state.phase", "Completed", 90000), 0);
    json_t *history = job_history(&s.caldera, "pair");
    json_t *a[4];
    REQUIRE(pod_attempts(history, "pair-worker-1", a, 4) == 1);
    CHECK(on_a_slurm_node(a[0]));
    CHECK_INT(jv_num(a[0], "exitCode"), 0);
    json_decref(history);
    char *log = server_pod_log(&s.caldera, "pair-worker-1");
    CHECK_CONTAINS(log, "worker 1");
    free(log);
    log = server_pod_log(&s.caldera, "pair-ps-0");
    CHECK_CONTAINS(log, "ps 0 of 1");
    CHECK_CONTAINS(log, "hosts ");
    free(log);
    stop(&s);
}

static void pytorch_job_completes(void)
{
    static struct setup s; /* static: a case that ends early leaves it to stop_live() */
    if (!start(&s))
        return;
    char *yaml = NULL;
    size_t len = 0;
    REQUIRE(read_file("examples/pytorch-hello.yaml", 1 << 20, &yaml, &len) == 0);
    long code = 0;
    json_decref(server_request(&s.caldera, "POST", "/apis/kubeflow.org/v1/namespaces/default/pytorchjobs", yaml,
                               "application/yaml", &code));
    free(yaml);
    CHECK_INT(code, 201);
    CHECK_INT(job_wait(&s.caldera, "hello", "status.state.phase", "Completed", 90000), 0);
    char *log = server_pod_log(&s.caldera, "hello-worker-1");
    CHECK_CONTAINS(log, "rank 2 of 3");
    free(log);
    stop(&s);
}

/* exit 3: PodFailed -> RestartJob, sent to Slurm again, until maxRetry: Failed, each attempt's exit
 * code in the history. */
static void failing_task_meets_the_policy(void)
{
    static struct setup s; /* static: a case that ends early leaves it to stop_live() */
    if (!start(&s))
        return;
    REQUIRE(job_submit(&s.caldera, "bad", "  maxRetry: 2\n  policies:\n  - event: PodFailed\n    action: RestartJob\n",
                       TASK("w", 1, "", "'exit 3'", "")) == 201);
    CHECK_INT(job_wait(&s.caldera, "bad", "status.state.phase", "Failed", 120000), 0);
    json_t *job = job_get(&s.caldera, "bad");
    CHECK_INT(jv_num(job, "status.retryCount"), 2);
    json_decref(job);
    json_t *history = job_history(&s.caldera, "bad");
    json_t *a[8];
    int n = pod_attempts(history, "bad-w-0", a, 8);
    CHECK(n >= 2);
    for (int i = 0; i < n; i++)
        CHECK_INT(jv_num(a[i], "exitCode"), 3);
    json_decref(history);
    stop(&s);
}

/* slurmrestd down at submit: Pending, saying so; sent once it answers again (restarted on its port). */
static void slurmrestd_down_then_back(void)
{
    static struct setup s; /* static: a case that ends early leaves it to stop_live() */
    if (!start(&s))
        return;
    REQUIRE(slurm_cluster_restd(&s.cluster, 0) == 0);
    REQUIRE(job_submit(&s.caldera, "later", "", TASK("w", 1, "", "'echo late'", "")) == 201);
    CHECK_INT(job_wait(&s.caldera, "later", "status.state.reason", "Unschedulable", 60000), 0);
    json_t *job = job_get(&s.caldera, "later");
    CHECK_CONTAINS(jv_str(job, "status.state.message"), "waiting for slurm");
    json_decref(job);
    REQUIRE(slurm_cluster_restd(&s.cluster, 1) == 0);
    CHECK_INT(job_wait(&s.caldera, "later", "status.state.phase", "Completed", 90000), 0);
    stop(&s);
}

/* jobctl suspend / resume (AbortJob / ResumeJob) are Slurm's own: the Slurm job reads SUSPENDED, keeps
 * its allocation, and once resumed runs on to Completed. */
static bool slurm_state_is(const char *ref, const char *state)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "scontrol show job -o %s | grep -q 'JobState=%s'", ref, state);
    for (int i = 0; i < 100; i++) {
        if (system(cmd) == 0)
            return true;
        usleep(100000);
    }
    return false;
}

static void suspend_and_resume_are_slurms(void)
{
    static struct setup s; /* static: a case that ends early leaves it to stop_live() */
    if (!start(&s))
        return;
    REQUIRE(job_submit(&s.caldera, "pause", "", TASK("w", 1, "", "'sleep 4; echo woke'", "")) == 201);
    REQUIRE(job_wait(&s.caldera, "pause", "status.state.phase", "Running", 60000) == 0);
    json_t *job = job_get(&s.caldera, "pause");
    char ref[32];
    snprintf(ref, sizeof ref, "%s",
             json_string_value(json_object_get(jv_at(job, "status.controlledResources"), "caldera.io/backend-ref"))
                 ?: "");
    json_decref(job);
    REQUIRE(ref[0]);
    long code = 0;
    json_decref(server_request(&s.caldera, "POST", "/apis/caldera.io/v1/namespaces/default/jobs/pause/suspend", "{}",
                               NULL, &code));
    CHECK_INT(code, 200);
    CHECK(slurm_state_is(ref, "SUSPENDED"));
    job = job_get(&s.caldera, "pause");
    CHECK_STR(jv_str(job, "status.state.phase"), "Aborted");
    CHECK_STR(jv_str(job, "status.state.reason"), "Suspended");
    json_decref(job);
    json_decref(server_request(&s.caldera, "POST", "/apis/caldera.io/v1/namespaces/default/jobs/pause/resume", "{}",
                               NULL, &code));
    CHECK_INT(code, 200);
    CHECK(slurm_state_is(ref, "RUNNING") || slurm_state_is(ref, "COMPLETED"));
    CHECK_INT(job_wait(&s.caldera, "pause", "status.state.phase", "Completed", 60000), 0);
    stop(&s);
}

/* Caldera killed -9 while a Slurm job runs: restarted, it follows the same Slurm job (the same ref, one
 * attempt) to Completed; a job scancelled behind Caldera's back fails with DeletedOnEngine. */
static const char *backend_ref(json_t *job)
{
    return json_string_value(json_object_get(jv_at(job, "status.controlledResources"), "caldera.io/backend-ref"));
}

static void restart_and_scancel(void)
{
    static struct setup s; /* static: a case that ends early leaves it to stop_live() */
    if (!start(&s))
        return;
    REQUIRE(job_submit(&s.caldera, "long", "", TASK("w", 1, "", "'sleep 4; echo done'", "")) == 201);
    REQUIRE(job_submit(&s.caldera, "victim", "", TASK("w", 1, "", "'sleep 60'", "")) == 201);
    REQUIRE(job_wait(&s.caldera, "long", "status.state.phase", "Running", 60000) == 0);
    REQUIRE(job_wait(&s.caldera, "victim", "status.state.phase", "Running", 60000) == 0);
    json_t *job = job_get(&s.caldera, "long");
    char ref[32], victim[32];
    snprintf(ref, sizeof ref, "%s", backend_ref(job) ? backend_ref(job) : "");
    json_decref(job);
    job = job_get(&s.caldera, "victim");
    snprintf(victim, sizeof victim, "%s", backend_ref(job) ? backend_ref(job) : "");
    json_decref(job);
    REQUIRE(ref[0] && victim[0]);
    server_kill9(&s.caldera);
    const char *args[] = {"--backends", s.backends, "--schedule-period", "100", NULL};
    REQUIRE(server_start(&s.caldera, s.caldera.data_dir, args) == 0);
    CHECK_INT(job_wait(&s.caldera, "long", "status.state.phase", "Completed", 60000), 0);
    job = job_get(&s.caldera, "long");
    CHECK_STR(backend_ref(job), ref); /* followed, not sent again */
    json_decref(job);
    json_t *history = job_history(&s.caldera, "long"), *a[4];
    CHECK_INT(pod_attempts(history, "long-w-0", a, 4), 1);
    json_decref(history);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "scancel %s", victim);
    CHECK_INT(system(cmd), 0);
    CHECK_INT(job_wait(&s.caldera, "victim", "status.state.phase", "Failed", 60000), 0);
    job = job_get(&s.caldera, "victim");
    CHECK_STR(jv_str(job, "status.state.reason"), "DeletedOnEngine");
    json_decref(job);
    stop(&s);
}

TEST_MAIN(TEST_CASE(volcano_job_completes), TEST_CASE(pytorch_job_completes), TEST_CASE(failing_task_meets_the_policy),
          TEST_CASE(slurmrestd_down_then_back), TEST_CASE(suspend_and_resume_are_slurms),
          TEST_CASE(restart_and_scancel))
