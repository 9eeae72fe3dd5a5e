/* A Caldera server with `--backend kubernetes` in front of a second jobserver standing in for a cluster
 * running Volcano (it speaks the same API, watches included): a job submitted to Caldera runs on the
 * stand-in and reads Completed in Caldera with its attempts on the stand-in's node and its log; Caldera
 * killed -9 mid-job follows the same job again (never sent twice); the engine unreachable at submit
 * keeps the job Pending with the reason until it is back; a job deleted on the engine behind Caldera's
 * back fails with DeletedOnEngine; a delete in Caldera removes it from the engine; a policy Volcano runs
 * on the engine (RestartJob, maxRetry) reads the same in Caldera: phase, retryCount, one attempt a run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/job_client.h"
#include "tests/lib/kube_stand_in.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define ENGINE_JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"

static const char *const engine_args[] = {"--auth", "--schedule-period", "100", "--watch-bookmark-interval", "500ms",
                                          NULL};

struct pair {
    struct test_server engine, caldera;
    char token[256];
    char kubeconfig[400];
    char engine_port[16];
};

/* A kubeconfig for the engine's URL and token, beside the engine's data. */
static bool write_kubeconfig(struct pair *p)
{
    snprintf(p->kubeconfig, sizeof p->kubeconfig, "%s.kubeconfig", p->engine.data_dir);
    const char *colon = strrchr(p->engine.url, ':');
    snprintf(p->engine_port, sizeof p->engine_port, "%s", colon ? colon + 1 : "");
    return stand_in_kubeconfig(p->kubeconfig, p->engine.url, p->token);
}

static int start_caldera(struct pair *p, const char *data_dir)
{
    const char *args[] = {"--backend", "kubernetes", "--kubeconfig", p->kubeconfig, "--schedule-period", "100", NULL};
    return server_start(&p->caldera, data_dir, args);
}

static bool start_pair(struct pair *p)
{
    memset(p, 0, sizeof *p);
    if (server_start(&p->engine, NULL, engine_args) != 0 ||
        !stand_in_admin_token(&p->engine, p->token, sizeof p->token) || !write_kubeconfig(p))
        return false;
    return start_caldera(p, NULL) == 0;
}

static void stop_pair(struct pair *p)
{
    server_cleanup(&p->caldera);
    server_cleanup(&p->engine);
    unlink(p->kubeconfig);
}

static json_t *engine_job(const struct pair *p, const char *name, long *code)
{
    char path[256];
    snprintf(path, sizeof path, ENGINE_JOBS "/%s", name);
    return server_request_as(&p->engine, p->token, "GET", path, NULL, NULL, code);
}

static void runs_on_the_engine(void)
{
    struct pair p;
    REQUIRE(start_pair(&p));
    REQUIRE(job_submit(&p.caldera, "hello", "",
                       TASK("w", 2, "", "'echo hello from the engine $VC_TASK_INDEX; sleep 1'", "")) == 201);
    CHECK_INT(job_wait(&p.caldera, "hello", "status.state.phase", "Completed", 60000), 0);
    long code = 0;
    json_t *remote = engine_job(&p, "hello", &code);
    json_t *local = job_get(&p.caldera, "hello");
    CHECK_INT(code, 200);
    CHECK_STR(json_string_value(json_object_get(jv_at(remote, "metadata.labels"), "caldera.io/uid")),
              jv_str(local, "metadata.uid"));
    CHECK_STR(jv_str(remote, "status.state.phase"), "Completed");
    CHECK_STR(json_string_value(json_object_get(jv_at(local, "status.controlledResources"), "caldera.io/backend")),
              "kubernetes");
    json_t *history = job_history(&p.caldera, "hello");
    json_t *attempts[4];
    REQUIRE(pod_attempts(history, "hello-w-0", attempts, 4) == 1);
    CHECK(jv_str(attempts[0], "node") && *jv_str(attempts[0], "node"));
    CHECK_INT(jv_num(attempts[0], "exitCode"), 0);
    char *log = server_pod_log(&p.caldera, "hello-w-1");
    CHECK_CONTAINS(log, "hello from the engine 1");
    free(log);
    json_decref(history);
    json_decref(remote);
    json_decref(local);
    /* deleted in Caldera: removed from the engine */
    json_decref(server_request(&p.caldera, "DELETE", "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs/hello",
                               NULL, NULL, &code));
    CHECK_INT(code, 200);
    for (int i = 0; i < 100 && code != 404; i++) {
        json_decref(engine_job(&p, "hello", &code));
        usleep(100000);
    }
    CHECK_INT(code, 404);
    stop_pair(&p);
}

/* Volcano runs the policies on Kubernetes: PodFailed -> RestartJob with maxRetry 2 restarts the job on
 * the engine, then fails it; Caldera mirrors the phase and retryCount, and its history holds as many
 * attempts of the pod as the engine's, the last with the engine's exit code. (The stand-in deletes a
 * failed pod in the same step that records its end, so the watch sees an earlier attempt only as
 * deleted, exit 137; a kubelet writes the end first.) */
static void the_engines_policy_mirrored(void)
{
    struct pair p;
    REQUIRE(start_pair(&p));
    REQUIRE(job_submit(&p.caldera, "retry", "  maxRetry: 2\n  policies: [{event: PodFailed, action: RestartJob}]\n",
                       TASK("w", 1, "", "'sleep 1; exit 3'", "")) == 201);
    CHECK_INT(job_wait(&p.caldera, "retry", "status.state.phase", "Failed", 90000), 0);
    long code = 0;
    json_t *remote = engine_job(&p, "retry", &code);
    json_t *local = job_get(&p.caldera, "retry");
    CHECK_STR(jv_str(remote, "status.state.phase"), "Failed");
    CHECK(jv_num(remote, "status.retryCount") >= 1);
    CHECK_INT(jv_num(local, "status.retryCount"), jv_num(remote, "status.retryCount"));
    json_t *history = job_history(&p.caldera, "retry");
    json_t *engine_history = server_request_as(&p.engine, p.token, "GET", HISTORY "/retry/history", NULL, NULL, NULL);
    json_t *attempts[MAX_ATTEMPTS], *engine_attempts[MAX_ATTEMPTS];
    int n = pod_attempts(history, "retry-w-0", attempts, MAX_ATTEMPTS);
    int engine_n = pod_attempts(engine_history, "retry-w-0", engine_attempts, MAX_ATTEMPTS);
    CHECK(engine_n >= 2);
    CHECK_INT(n, engine_n);
    if (n > 0 && n == engine_n) {
        CHECK_INT(jv_num(attempts[n - 1], "exitCode"), 3);
        CHECK_INT(jv_num(attempts[n - 1], "exitCode"), jv_num(engine_attempts[n - 1], "exitCode"));
    }
    json_decref(engine_history);
    json_decref(history);
    json_decref(remote);
    json_decref(local);
    stop_pair(&p);
}

/* Caldera killed mid-job: restarted, it follows the job it had sent (the engine's job keeps its uid). */
static void caldera_restart_reattaches(void)
{
    struct pair p;
    REQUIRE(start_pair(&p));
    REQUIRE(job_submit(&p.caldera, "long", "", TASK("w", 1, "", "'sleep 3; echo done'", "")) == 201);
    REQUIRE(job_wait(&p.caldera, "long", "status.state.phase", "Running", 30000) == 0);
    long code = 0;
    json_t *before = engine_job(&p, "long", &code);
    char uid[64];
    snprintf(uid, sizeof uid, "%s", jv_str(before, "metadata.uid") ? jv_str(before, "metadata.uid") : "");
    json_decref(before);
    server_kill9(&p.caldera);
    REQUIRE(start_caldera(&p, p.caldera.data_dir) == 0);
    CHECK_INT(job_wait(&p.caldera, "long", "status.state.phase", "Completed", 60000), 0);
    json_t *after = engine_job(&p, "long", &code);
    CHECK_STR(jv_str(after, "metadata.uid"), uid);
    json_decref(after);
    json_t *history = job_history(&p.caldera, "long");
    json_t *attempts[4];
    CHECK_INT(pod_attempts(history, "long-w-0", attempts, 4), 1);
    json_decref(history);
    stop_pair(&p);
}

/* The engine down at submit: Pending with the reason, sent once it is back. */
static void engine_unreachable_then_back(void)
{
    struct pair p;
    REQUIRE(start_pair(&p));
    CHECK_INT(server_stop(&p.engine), 0);
    REQUIRE(job_submit(&p.caldera, "later", "", TASK("w", 1, "", "'echo late'", "")) == 201);
    CHECK_INT(job_wait(&p.caldera, "later", "status.state.reason", "Unschedulable", 15000), 0);
    json_t *job = job_get(&p.caldera, "later");
    CHECK_STR(jv_str(job, "status.state.phase"), "Pending");
    CHECK_CONTAINS(jv_str(job, "status.state.message"), "waiting for kubernetes");
    json_decref(job);
    char listen[64];
    snprintf(listen, sizeof listen, "127.0.0.1:%s", p.engine_port);
    /* the WebSocket port (the HTTP one + 1 by default) may have been taken meanwhile: any free one */
    const char *again[] = {"--auth", "--schedule-period", "100",         "--listen",
                           listen,   "--ws-listen",       "127.0.0.1:0", NULL};
    REQUIRE(server_start(&p.engine, p.engine.data_dir, again) == 0);
    CHECK_INT(job_wait(&p.caldera, "later", "status.state.phase", "Completed", 60000), 0);
    stop_pair(&p);
}

/* Deleted on the engine behind Caldera's back: the job fails, saying so. */
static void deleted_behind_the_back(void)
{
    struct pair p;
    REQUIRE(start_pair(&p));
    REQUIRE(job_submit(&p.caldera, "gone", "", TASK("w", 1, "", "'sleep 30'", "")) == 201);
    REQUIRE(job_wait(&p.caldera, "gone", "status.state.phase", "Running", 30000) == 0);
    long code = 0;
    json_decref(server_request_as(&p.engine, p.token, "DELETE", ENGINE_JOBS "/gone", NULL, NULL, &code));
    CHECK_INT(code, 200);
    CHECK_INT(job_wait(&p.caldera, "gone", "status.state.phase", "Failed", 30000), 0);
    json_t *job = job_get(&p.caldera, "gone");
    CHECK_STR(jv_str(job, "status.state.reason"), "DeletedOnEngine");
    json_decref(job);
    stop_pair(&p);
}

TEST_MAIN(TEST_CASE(runs_on_the_engine), TEST_CASE(the_engines_policy_mirrored), TEST_CASE(caldera_restart_reattaches),
          TEST_CASE(engine_unreachable_then_back), TEST_CASE(deleted_behind_the_back))
