/* Jobs a backend runs (scheduler/controller/remote.c) against a recording backend: sent whole once
 * admitted (queue state, capability, priority order), never placed here, their pods and attempts taken
 * from the engine's reports, Caldera's policies over Slurm-like engines, Volcano's phases mirrored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "tests/lib/ctl_fixture.h"
#include "tests/lib/test.h"

struct recorder {
    int sends, stops, removes, adopts, acts;
    char last_uid[UUID_STR_LEN];
    json_t *last_manifest;
    enum backend_action last_action;
};

static int rec_send(void *ctx, const char *uid, json_t *manifest)
{
    struct recorder *r = ctx;
    r->sends++;
    snprintf(r->last_uid, sizeof r->last_uid, "%s", uid);
    json_decref(r->last_manifest);
    r->last_manifest = manifest;
    return 0;
}
static int rec_stop(void *ctx, const char *uid, const char *ref)
{
    (void)uid, (void)ref;
    ((struct recorder *)ctx)->stops++;
    return 0;
}
static int rec_remove(void *ctx, const char *uid, const char *ref)
{
    (void)uid, (void)ref;
    ((struct recorder *)ctx)->removes++;
    return 0;
}
static int rec_adopt(void *ctx, const char *uid, const char *ref)
{
    (void)uid, (void)ref;
    ((struct recorder *)ctx)->adopts++;
    return 0;
}
static int rec_act(void *ctx, const char *uid, const char *ref, enum backend_action a)
{
    (void)uid, (void)ref;
    struct recorder *r = ctx;
    r->acts++;
    r->last_action = a;
    return 0;
}

struct remote_fx {
    struct ctl_fixture fx;
    struct recorder rec;
    struct backend b;
    struct backend_conf conf;
};

/* A fixture whose default queue's jobs go to a recording backend (policies: who runs them). */
static void remote_init(struct remote_fx *r, enum backend_kind kind, bool engine_runs_policies)
{
    memset(r, 0, sizeof *r);
    ctlfx_init(&r->fx, 1);
    r->b = (struct backend){.kind = kind,
                            .name = backend_kind_name(kind),
                            .engine_runs_policies = engine_runs_policies,
                            .ctx = &r->rec,
                            .send = rec_send,
                            .remove = rec_remove,
                            .stop = rec_stop,
                            .act = rec_act,
                            .adopt = rec_adopt};
    r->conf.default_kind = kind;
    r->fx.ctl.backend_conf = &r->conf;
    r->fx.ctl.backends[kind] = &r->b;
}

static void remote_free(struct remote_fx *r)
{
    json_decref(r->rec.last_manifest);
    r->fx.ctl.backends[r->b.kind] = NULL;
    ctlfx_free(&r->fx);
}

static void report(struct remote_fx *r, const struct job *job, enum backend_update_kind kind, const char *ref)
{
    struct backend_update *u = backend_update_new(kind, job->uid, ref);
    controller_backend_update(&r->fx.ctl, u);
    backend_update_free(u);
    ctlfx_drain(&r->fx);
}

static void pod(struct remote_fx *r, const struct job *job, const char *task, int index, uint32_t attempt,
                enum backend_pod_phase phase, int exit_code, const char *node)
{
    struct backend_update *u = backend_update_new(BACKEND_POD, job->uid, job->remote_ref ? job->remote_ref : "");
    snprintf(u->task, sizeof u->task, "%s", task);
    u->index = index;
    u->attempt = attempt;
    u->phase = phase;
    u->exit_code = exit_code;
    snprintf(u->node, sizeof u->node, "%s", node);
    u->start_ms = r->fx.ctl.now_ms;
    if (phase == BACKEND_POD_SUCCEEDED || phase == BACKEND_POD_FAILED) {
        u->end_ms = r->fx.ctl.now_ms + 5;
        snprintf(u->reason, sizeof u->reason, "%s", exit_code == 0 ? "Completed" : "Error");
    }
    controller_backend_update(&r->fx.ctl, u);
    backend_update_free(u);
    ctlfx_drain(&r->fx);
}

static const char *phase(const struct job *job) { return job_phase_name(job->status.phase); }

#define JOB(name, extra, replicas)                                                                                     \
    "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: " name "\nspec:\n  minAvailable: " #replicas \
    "\n" extra "  tasks:\n  - name: w\n    replicas: " #replicas                                                       \
    "\n    template:\n      spec:\n"                                                                                   \
    "        containers:\n        - name: c\n          command: [\"true\"]\n"                                          \
    "          resources: {requests: {cpu: \"1\"}}\n"

/* Sent whole, never placed here; the engine's pods make it Running and Completed, on the engine's
 * nodes, each attempt recorded. The stored status keeps the engine's name for it. */
static void slurm_job_runs_to_completed(void)
{
    struct remote_fx r;
    remote_init(&r, BACKEND_SLURM, false);
    struct job *job = ctlfx_submit(&r.fx, JOB("train", "", 2));
    REQUIRE(job);
    CHECK_INT(job->backend, BACKEND_SLURM);
    ctlfx_cycle(&r.fx);
    CHECK_INT(r.rec.sends, 1);
    CHECK_INT(r.fx.starts, 0); /* nothing runs on this machine */
    CHECK_INT(job->pg.phase, PG_INQUEUE);
    CHECK_STR(json_string_value(json_object_get(json_object_get(r.rec.last_manifest, "metadata"), "name")), "train");
    ctlfx_cycle(&r.fx);
    CHECK_INT(r.rec.sends, 1); /* sending: not again */
    report(&r, job, BACKEND_SENT, "4242");
    CHECK_STR(job->remote_ref, "4242");
    json_t *status = volcano_job_render_status(job);
    CHECK_STR(
        json_string_value(json_object_get(json_object_get(status, "controlledResources"), "caldera.io/backend-ref")),
        "4242");
    json_decref(status);
    pod(&r, job, "w", 0, 1, BACKEND_POD_RUNNING, 0, "n1");
    pod(&r, job, "w", 1, 1, BACKEND_POD_RUNNING, 0, "n2");
    CHECK_STR(phase(job), "Running");
    int n1 = cluster_find_node(&r.fx.cluster, "n1");
    REQUIRE(n1 >= 0);
    CHECK(r.fx.cluster.nodes[n1].remote);
    CHECK_INT(job->replicas[0].node, n1);
    pod(&r, job, "w", 0, 1, BACKEND_POD_SUCCEEDED, 0, "n1");
    pod(&r, job, "w", 0, 1, BACKEND_POD_SUCCEEDED, 0, "n1"); /* repeated: counted once */
    CHECK_STR(phase(job), "Running");
    pod(&r, job, "w", 1, 1, BACKEND_POD_SUCCEEDED, 0, "n2");
    CHECK_STR(phase(job), "Completed");
    CHECK_INT(job->replicas[0].attempts, 1);
    CHECK_INT(job->live_procs, 0);
    CHECK_INT(r.rec.stops, 0);
    remote_free(&r);
}

/* A failing task goes through the job's policies here: RestartJob stops the engine's job, and once
 * every pod stopped the job is sent again; retryCount counts it. */
static void slurm_failure_restarts_through_policies(void)
{
    struct remote_fx r;
    remote_init(&r, BACKEND_SLURM, false);
    struct job *job = ctlfx_submit(
        &r.fx, JOB("retry", "  maxRetry: 2\n  policies:\n  - event: PodFailed\n    action: RestartJob\n", 2));
    REQUIRE(job);
    ctlfx_cycle(&r.fx);
    report(&r, job, BACKEND_SENT, "100");
    pod(&r, job, "w", 0, 1, BACKEND_POD_RUNNING, 0, "n1");
    pod(&r, job, "w", 1, 1, BACKEND_POD_RUNNING, 0, "n2");
    pod(&r, job, "w", 1, 1, BACKEND_POD_FAILED, 3, "n2");
    CHECK_STR(phase(job), "Restarting");
    CHECK_INT(r.rec.stops, 1);
    CHECK_INT(job->replicas[1].exit_code, 3);
    pod(&r, job, "w", 0, 1, BACKEND_POD_FAILED, 143, "n1"); /* cancelled by the stop */
    CHECK_INT(job->live_procs, 0);
    ctlfx_cycle(&r.fx);
    CHECK_STR(phase(job), "Pending");
    CHECK_INT(job->status.retry_count, 1);
    CHECK_INT(r.rec.sends, 2);
    pod(&r, job, "w", 0, 1, BACKEND_POD_RUNNING, 0, "n1"); /* late, about the stopped send: ignored */
    CHECK_INT(job->replicas[0].attempts, 1);
    report(&r, job, BACKEND_SENT, "101");
    pod(&r, job, "w", 0, 1, BACKEND_POD_RUNNING, 0, "n1");
    pod(&r, job, "w", 1, 1, BACKEND_POD_RUNNING, 0, "n1");
    CHECK_STR(phase(job), "Running");
    CHECK_INT(job->replicas[0].attempts, 2);
    remote_free(&r);
}

/* RestartJob when no replica is left running (the only one failed): the engine's job is still stopped
 * (its batch script may linger) and the job is sent again once Pending. */
static void slurm_restart_with_every_replica_ended(void)
{
    struct remote_fx r;
    remote_init(&r, BACKEND_SLURM, false);
    struct job *job = ctlfx_submit(
        &r.fx, JOB("solo", "  maxRetry: 2\n  policies:\n  - event: PodFailed\n    action: RestartJob\n", 1));
    REQUIRE(job);
    ctlfx_cycle(&r.fx);
    report(&r, job, BACKEND_SENT, "200");
    pod(&r, job, "w", 0, 1, BACKEND_POD_RUNNING, 0, "n1");
    pod(&r, job, "w", 0, 1, BACKEND_POD_FAILED, 3, "n1");
    CHECK_INT(r.rec.stops, 1);
    ctlfx_cycle(&r.fx);
    CHECK_STR(phase(job), "Pending");
    CHECK_INT(job->status.retry_count, 1);
    CHECK_INT(r.rec.sends, 2);
    remote_free(&r);
}

/* The engine unreachable: the job waits Pending with the reason and is sent again after a back-off;
 * a send the engine refuses fails the job with the engine's words. */
static void send_failures(void)
{
    struct remote_fx r;
    remote_init(&r, BACKEND_SLURM, false);
    struct job *job = ctlfx_submit(&r.fx, JOB("wait", "", 1));
    REQUIRE(job);
    ctlfx_cycle(&r.fx);
    struct backend_update *u = backend_update_new(BACKEND_SEND_FAILED, job->uid, "");
    u->retryable = true;
    snprintf(u->message, sizeof u->message, "connection refused");
    controller_backend_update(&r.fx.ctl, u);
    backend_update_free(u);
    CHECK_STR(phase(job), "Pending");
    CHECK_CONTAINS(job->status.message, "waiting for slurm: connection refused");
    ctlfx_cycle(&r.fx);
    CHECK_INT(r.rec.sends, 1); /* not before the back-off */
    ctlfx_advance(&r.fx, 1000);
    ctlfx_cycle(&r.fx);
    CHECK_INT(r.rec.sends, 2);
    u = backend_update_new(BACKEND_SEND_FAILED, job->uid, "");
    snprintf(u->message, sizeof u->message, "Invalid partition name specified");
    controller_backend_update(&r.fx.ctl, u);
    backend_update_free(u);
    CHECK_STR(phase(job), "Failed");
    CHECK_STR(job->status.reason, "SendFailed");
    CHECK_CONTAINS(job->status.message, "Invalid partition");
    remote_free(&r);
}

/* Volcano runs the policies on the cluster: Caldera takes its phases and retryCount, and counts the
 * attempts of each pod (a restart in place is a new one). */
static void kubernetes_phases_are_mirrored(void)
{
    struct remote_fx r;
    remote_init(&r, BACKEND_KUBERNETES, true);
    struct job *job = ctlfx_submit(&r.fx, JOB("kube", "", 1));
    REQUIRE(job);
    ctlfx_cycle(&r.fx);
    report(&r, job, BACKEND_SENT, "default/kube");
    pod(&r, job, "w", 0, 1, BACKEND_POD_RUNNING, 0, "node-a");
    struct backend_update *u = backend_update_new(BACKEND_JOB_PHASE, job->uid, "default/kube");
    snprintf(u->job_phase, sizeof u->job_phase, "Running");
    controller_backend_update(&r.fx.ctl, u);
    CHECK_STR(phase(job), "Running");
    pod(&r, job, "w", 0, 1, BACKEND_POD_FAILED, 1, "node-a");
    CHECK_STR(phase(job), "Running"); /* Volcano decides, not Caldera */
    CHECK_INT(r.rec.stops, 0);
    pod(&r, job, "w", 0, 2, BACKEND_POD_RUNNING, 0, "node-a");
    pod(&r, job, "w", 0, 2, BACKEND_POD_SUCCEEDED, 0, "node-a");
    CHECK_INT(job->replicas[0].attempts, 2);
    snprintf(u->job_phase, sizeof u->job_phase, "Completed");
    u->retry_count = 1;
    controller_backend_update(&r.fx.ctl, u);
    backend_update_free(u);
    CHECK_STR(phase(job), "Completed");
    CHECK_INT(job->status.retry_count, 1);
    struct api_status st = {0};
    CHECK_INT(controller_command(&r.fx.ctl, job, ACT_RESTART_TASK, "x", NULL, &st), -1);
    CHECK_INT(st.code, 422);
    remote_free(&r);
}

/* Deleted here: removed from the engine, and freed once the engine says it is gone. Deleted on the
 * engine behind Caldera's back: the job fails with the reason. */
static void deletions(void)
{
    struct remote_fx r;
    remote_init(&r, BACKEND_SLURM, false);
    struct job *a = ctlfx_submit(&r.fx, JOB("a", "", 1));
    struct job *b = ctlfx_submit(&r.fx, JOB("b", "", 1));
    REQUIRE(a && b);
    ctlfx_cycle(&r.fx);
    report(&r, a, BACKEND_SENT, "1");
    report(&r, b, BACKEND_SENT, "2");
    pod(&r, a, "w", 0, 1, BACKEND_POD_RUNNING, 0, "n1");
    pod(&r, b, "w", 0, 1, BACKEND_POD_RUNNING, 0, "n1");
    char uid[UUID_STR_LEN];
    snprintf(uid, sizeof uid, "%s", a->uid);
    controller_delete_job(&r.fx.ctl, a);
    CHECK_INT(r.rec.removes, 1);
    CHECK(cluster_find_job_uid(&r.fx.cluster, uid) != NULL); /* until the engine let it go */
    struct backend_update *u = backend_update_new(BACKEND_REMOVED, uid, "1");
    controller_backend_update(&r.fx.ctl, u);
    backend_update_free(u);
    CHECK(cluster_find_job_uid(&r.fx.cluster, uid) == NULL);
    report(&r, b, BACKEND_GONE, "2");
    CHECK_STR(phase(b), "Failed");
    CHECK_STR(b->status.reason, "DeletedOnEngine");
    CHECK_INT(b->live_procs, 0);
    remote_free(&r);
}

/* Caldera keeps admission: a closed queue sends nothing, a queue's capability bounds what is on the
 * engine at once, and the higher priority goes first. */
static void admission_stays_here(void)
{
    struct remote_fx r;
    remote_init(&r, BACKEND_SLURM, false);
    struct queue *q = cluster_find_queue(&r.fx.cluster, "default");
    REQUIRE(q);
    q->has_capability = true;
    q->capability.v[RES_CPU] = 2000;
    struct job *low = ctlfx_submit(&r.fx, JOB("low", "", 2));
    struct job *high = ctlfx_submit(&r.fx, JOB("high", "  priorityClassName: system-node-critical\n", 2));
    REQUIRE(low && high);
    ctlfx_cycle(&r.fx);
    CHECK_INT(r.rec.sends, 1);
    CHECK_STR(r.rec.last_uid, high->uid);
    CHECK_CONTAINS(low->status.message, "capability of cpu would be exceeded");
    report(&r, high, BACKEND_SENT, "9");
    pod(&r, high, "w", 0, 1, BACKEND_POD_RUNNING, 0, "n1");
    pod(&r, high, "w", 1, 1, BACKEND_POD_RUNNING, 0, "n1");
    pod(&r, high, "w", 0, 1, BACKEND_POD_SUCCEEDED, 0, "n1");
    pod(&r, high, "w", 1, 1, BACKEND_POD_SUCCEEDED, 0, "n1");
    ctlfx_cycle(&r.fx);
    CHECK_INT(r.rec.sends, 2);
    CHECK_STR(r.rec.last_uid, low->uid);
    remote_free(&r);
}

/* A queue without a route runs here as before, beside routed ones. */
static void unrouted_queues_run_here(void)
{
    struct remote_fx r;
    remote_init(&r, BACKEND_SLURM, false);
    r.conf.default_kind = BACKEND_LOCAL;
    struct job *job = ctlfx_submit(&r.fx, JOB("here", "", 1));
    REQUIRE(job);
    CHECK_INT(job->backend, BACKEND_LOCAL);
    ctlfx_cycle(&r.fx);
    CHECK_INT(r.rec.sends, 0);
    CHECK_INT(r.fx.starts, 1);
    CHECK_STR(phase(job), "Running");
    remote_free(&r);
}

/* On Slurm, AbortJob and ResumeJob (vcctl's suspend and resume) are Slurm's suspend and resume: the
 * allocation is kept, nothing is stopped or sent again; TerminateJob cancels. */
static void slurm_suspend_and_resume(void)
{
    struct remote_fx r;
    remote_init(&r, BACKEND_SLURM, false);
    struct job *job = ctlfx_submit(&r.fx, JOB("pause", "", 1));
    REQUIRE(job);
    ctlfx_cycle(&r.fx);
    report(&r, job, BACKEND_SENT, "77");
    pod(&r, job, "w", 0, 1, BACKEND_POD_RUNNING, 0, "n1");
    struct api_status st = {0};
    CHECK_INT(controller_command(&r.fx.ctl, job, ACT_ABORT_JOB, "pause", NULL, &st), 0);
    CHECK_INT(r.rec.acts, 1);
    CHECK_INT(r.rec.last_action, BACKEND_SUSPEND);
    CHECK_STR(phase(job), "Aborted");
    CHECK_STR(job->status.reason, "Suspended");
    CHECK_INT(job->replicas[0].phase, POD_RUNNING);
    CHECK_INT(r.rec.stops, 0);
    CHECK_INT(controller_command(&r.fx.ctl, job, ACT_RESUME_JOB, "go on", NULL, &st), 0);
    CHECK_INT(r.rec.last_action, BACKEND_RESUME);
    CHECK_STR(phase(job), "Running");
    CHECK_INT(r.rec.sends, 1);
    CHECK_INT(controller_command(&r.fx.ctl, job, ACT_TERMINATE_JOB, "stop", NULL, &st), 0);
    CHECK_INT(r.rec.stops, 1);
    CHECK_STR(phase(job), "Terminating");
    remote_free(&r);
}

TEST_MAIN(TEST_CASE(slurm_job_runs_to_completed), TEST_CASE(slurm_failure_restarts_through_policies),
          TEST_CASE(slurm_restart_with_every_replica_ended), TEST_CASE(send_failures),
          TEST_CASE(kubernetes_phases_are_mirrored), TEST_CASE(deletions), TEST_CASE(admission_stays_here),
          TEST_CASE(unrouted_queues_run_here), TEST_CASE(slurm_suspend_and_resume))
