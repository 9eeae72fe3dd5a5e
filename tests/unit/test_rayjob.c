/* KubeRay's RayJob as a Volcano Job: the head, worker and submitter tasks, the ray plugin's commands
 * they get, retries, deadline and TTL, causes in the RayJob's own paths with their lines, and the
 * RayJob status for each phase of the Volcano Job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "adapters/intake/intake.h"
#include "adapters/dialects/ray/rayjob.h"
#include "common/strv.h"
#include "scheduler/controller/job_plugins/job_plugins.h"
#include "tests/lib/dialect_case.h"
#include "tests/lib/test.h"

static const char *const sample =
    "apiVersion: ray.io/v1\n"
    "kind: RayJob\n"
    "metadata:\n"
    "  name: rj\n"
    "spec:\n"
    "  entrypoint: python /app/main.py --epochs 2\n"
    "  shutdownAfterJobFinishes: true\n"
    "  backoffLimit: 2\n"
    "  ttlSecondsAfterFinished: 60\n"
    "  activeDeadlineSeconds: 600\n"
    "  runtimeEnvYAML: |\n"
    "    env_vars: {MODE: it's}\n"
    "  rayClusterSpec:\n"
    "    headGroupSpec:\n"
    "      rayStartParams: {dashboard-host: 0.0.0.0}\n"
    "      template:\n"
    "        spec:\n"
    "          containers:\n"
    "          - name: ray-head\n"
    "            image: rayproject/ray:2.9.0\n"
    "    workerGroupSpecs:\n"
    "    - groupName: small\n"
    "      replicas: 7\n"
    "      minReplicas: 1\n"
    "      maxReplicas: 3\n"
    "      template:\n"
    "        spec:\n"
    "          containers:\n"
    "          - name: ray-worker\n"
    "            image: rayproject/ray:2.9.0\n"
    "            resources:\n"
    "              limits: {cpu: 1, memory: 1Gi}\n";

static void served_at_its_own_path(void)
{
    CHECK(dialect_by_plural("ray.io", "v1", "rayjobs") == &dialect_rayjob);
    CHECK(dialect_by_kind("ray.io/v1", "RayJob") == &dialect_rayjob);
    CHECK(dialect_by_kind("ray.io/v1alpha1", "RayJob") == NULL);
}

static void head_worker_and_submitter_tasks(void)
{
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_rayjob, sample, &p) == 0);
    struct job *job = p.job;
    REQUIRE(job->ntasks == 3);
    CHECK_STR(job->tasks[0].name, "head");
    CHECK_INT(job->tasks[0].replicas, 1);
    CHECK_STR(job->tasks[1].name, "small");
    CHECK_INT(job->tasks[1].replicas, 3);      /* KubeRay keeps replicas within maxReplicas */
    CHECK_INT(job->tasks[1].min_available, 1); /* minReplicas */
    CHECK_STR(job->tasks[2].name, "submitter");
    CHECK_INT(job->tasks[2].min_available, 0); /* not part of the gang, as KubeRay's submitter Job */
    CHECK_INT(job->min_available, 2);          /* the head and the workers' minimum */
    CHECK_INT(job->max_retry, 3);              /* backoffLimit 2: two retries */
    CHECK_INT(job->ttl_seconds, -1);           /* KubeRay's TTL is the cluster's, not the RayJob's */
    CHECK_INT(job->tasks[2].max_retry, 3);     /* submitterConfig.backoffLimit 2 by default */
    json_t *plugins = json_object_get(json_object_get(job_manifest(job), "spec"), "plugins");
    CHECK(json_is_array(json_object_get(plugins, "svc")));
    json_t *ray = json_object_get(plugins, "ray");
    REQUIRE(json_array_size(ray) == 7);
    CHECK_STR(json_string_value(json_array_get(ray, 0)), "--head=head");
    CHECK_STR(json_string_value(json_array_get(ray, 1)), "--headContainer=ray-head");
    CHECK_STR(json_string_value(json_array_get(ray, 2)), "--worker=small");
    CHECK_STR(json_string_value(json_array_get(ray, 3)), "--workerContainer=ray-worker");
    dialect_case_done(&p);
}

/* What the ray plugin makes of the tasks: the head starts the cluster, workers join it, and the
 * submitter keeps its own `ray job submit` command. */
static void the_plugin_starts_head_and_workers(void)
{
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_rayjob, sample, &p) == 0);
    struct plugin_attempt pa;
    char why[256];
    REQUIRE(job_plugins_attempt(p.job, 0, 0, "/tmp/rj", &pa, why, sizeof why) == 0);
    REQUIRE(pa.argv && pa.argv[2]);
    CHECK_STR(pa.argv[0], "sh");
    CHECK_STR(pa.argv[2],
              "ray start --head --block --dashboard-host=0.0.0.0 --port=6379 --dashboard-port=8265 "
              "--ray-client-server-port=10001");
    plugin_attempt_free(&pa);
    REQUIRE(job_plugins_attempt(p.job, 1, 2, "/tmp/rj", &pa, why, sizeof why) == 0);
    REQUIRE(pa.argv && pa.argv[2]);
    CHECK_STR(pa.argv[2], "ray start --block --address=rj-head-0.rj:6379");
    CHECK_STR(dialect_case_env(pa.env, "VC_HEAD_HOSTS"), "rj-head-0.rj");
    plugin_attempt_free(&pa);
    REQUIRE(job_plugins_attempt(p.job, 2, 0, "/tmp/rj", &pa, why, sizeof why) == 0);
    CHECK(pa.argv == NULL); /* the submitter's own command */
    plugin_attempt_free(&pa);
    const struct task_spec *sub = &p.job->tasks[2];
    REQUIRE(sub->argv && sub->argv[2]);
    CHECK_STR(sub->argv[0], "sh");
    CHECK_CONTAINS(sub->argv[2], "until ray job list --address http://rj-head-0.rj:8265 ");
    CHECK_CONTAINS(sub->argv[2],
                   "ray job submit --address http://rj-head-0.rj:8265 --submission-id 'rj' "
                   "--runtime-env-json '{\"env_vars\":{\"MODE\":\"it'\\''s\"}}' -- python /app/main.py "
                   "--epochs 2");
    CHECK_STR(dialect_case_env(sub->env, "RAY_DASHBOARD_ADDRESS"), "http://rj-head-0.rj:8265");
    CHECK_STR(dialect_case_env(sub->env, "RAY_JOB_SUBMISSION_ID"), "rj");
    CHECK_STR(sub->restart_policy, "OnFailure");
    dialect_case_done(&p);
}

static void head_ports_come_from_ray_start_params(void)
{
    char *yaml = dialect_case_edit(sample, "{dashboard-host: 0.0.0.0}", "{port: \"6400\", dashboard-port: \"8300\"}");
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_rayjob, yaml, &p) == 0);
    struct plugin_attempt pa;
    char why[256];
    REQUIRE(job_plugins_attempt(p.job, 1, 0, "/tmp/rj", &pa, why, sizeof why) == 0);
    CHECK_STR(pa.argv[2], "ray start --block --address=rj-head-0.rj:6400");
    plugin_attempt_free(&pa);
    CHECK_CONTAINS(p.job->tasks[2].argv[2], "--address http://rj-head-0.rj:8300 ");
    dialect_case_done(&p);
    free(yaml);
}

/* The submitter's completion ends the job only when the cluster is to shut down; its failure (retries
 * spent) is the attempt's failure: a new cluster. Losing the head loses the cluster. */
static void policies_follow_shutdown(void)
{
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_rayjob, sample, &p) == 0);
    json_t *sub = dialect_case_task(p.job, 2), *head = dialect_case_task(p.job, 0);
    CHECK_STR(json_string_value(json_object_get(dialect_case_policy(sub, "TaskCompleted"), "action")), "CompleteJob");
    /* ttlSecondsAfterFinished: the cluster stays up that long after the Ray job ends */
    CHECK_STR(json_string_value(json_object_get(dialect_case_policy(sub, "TaskCompleted"), "timeout")), "60s");
    CHECK_STR(json_string_value(json_object_get(dialect_case_policy(sub, "TaskFailed"), "action")), "RestartJob");
    CHECK_STR(json_string_value(json_object_get(dialect_case_policy(sub, "PodFailed"), "action")), "RestartJob");
    CHECK_STR(json_string_value(json_object_get(dialect_case_policy(head, "PodFailed"), "action")), "RestartJob");
    CHECK(dialect_case_policy(dialect_case_task(p.job, 1), "PodFailed") == NULL);
    dialect_case_done(&p);

    char *yaml = dialect_case_edit(sample, "shutdownAfterJobFinishes: true\n", "shutdownAfterJobFinishes: false\n");
    char *no_ttl = dialect_case_edit(yaml, "  ttlSecondsAfterFinished: 60\n", "");
    REQUIRE(dialect_case_adapt(&dialect_rayjob, no_ttl, &p) == 0);
    CHECK(dialect_case_policy(dialect_case_task(p.job, 2), "TaskCompleted") == NULL); /* the cluster stays up */
    CHECK_INT(p.job->ttl_seconds, -1);
    dialect_case_done(&p);
    /* KubeRay refuses a TTL when the cluster is not shut down. */
    CHECK(dialect_case_adapt(&dialect_rayjob, yaml, &p) != 0);
    const struct api_cause *c = dialect_case_cause(&p.st, "spec.ttlSecondsAfterFinished");
    REQUIRE(c);
    CHECK_INT(c->line, 9);
    dialect_case_done(&p);
    free(yaml);
    free(no_ttl);
}

/* activeDeadlineSeconds goes into every task's template, on copies: the RayJob's own templates (what
 * GET returns) stay as the user wrote them. */
static void deadline_on_copies_of_the_templates(void)
{
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_rayjob, sample, &p) == 0);
    for (int t = 0; t < 3; t++) {
        json_t *spec = json_object_get(json_object_get(dialect_case_task(p.job, t), "template"), "spec");
        CHECK_INT(json_integer_value(json_object_get(spec, "activeDeadlineSeconds")), 600);
    }
    json_t *source_head = json_object_get(
        json_object_get(
            json_object_get(json_object_get(json_object_get(p.job->source, "spec"), "rayClusterSpec"), "headGroupSpec"),
            "template"),
        "spec");
    CHECK(json_object_get(source_head, "activeDeadlineSeconds") == NULL);
    /* Without a deadline the template is the RayJob's own node, shared. */
    dialect_case_done(&p);
    char *yaml = dialect_case_edit(sample, "  activeDeadlineSeconds: 600\n", "");
    REQUIRE(dialect_case_adapt(&dialect_rayjob, yaml, &p) == 0);
    json_t *src = json_object_get(json_object_get(json_object_get(p.in.docs[0].root, "spec"), "rayClusterSpec"),
                                  "headGroupSpec");
    CHECK(json_object_get(dialect_case_task(p.job, 0), "template") == json_object_get(src, "template"));
    dialect_case_done(&p);
    free(yaml);
}

/* A cause the Volcano validation finds inside a worker template names the worker group's field, at
 * its line and column in the RayJob. */
static void volcano_causes_in_the_rayjobs_terms(void)
{
    char *yaml = dialect_case_edit(sample, "memory: 1Gi", "memory: 1.5GG");
    struct dialect_case p;
    CHECK(dialect_case_adapt(&dialect_rayjob, yaml, &p) != 0);
    CHECK_INT(p.st.code, 422);
    const struct api_cause *c = dialect_case_cause(
        &p.st, "spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.limits.memory");
    REQUIRE(c);
    CHECK_INT(c->line, 32); /* `limits: {cpu: 1, memory: 1.5GG}`: the value's own place */
    CHECK_INT(c->column, 40);
    CHECK_CONTAINS(p.st.message, "RayJob.ray.io \"rj\" is invalid");
    dialect_case_done(&p);
    free(yaml);
}

static void refusals_name_the_field(void)
{
    char *a = dialect_case_edit(sample, "  backoffLimit: 2\n",
                                "  backoffLimit: 2\n  schedule: \"0 * * * *\"\n  bogus: 1\n");
    char *b = dialect_case_edit(a, "      replicas: 7\n",
                                "      replicas: 7\n      rayStartParams: {num-gpus: \"1\"}\n");
    struct dialect_case p;
    CHECK(dialect_case_adapt(&dialect_rayjob, b, &p) != 0);
    const struct api_cause *c = dialect_case_cause(&p.st, "spec.schedule");
    REQUIRE(c);
    CHECK_CONTAINS(c->message, "cron");
    CHECK_INT(c->line, 9);
    c = dialect_case_cause(&p.st, "spec.bogus");
    REQUIRE(c);
    CHECK_STR(c->message, "unknown field \"spec.bogus\"");
    CHECK(dialect_case_cause(&p.st, "spec.rayClusterSpec.workerGroupSpecs[0].rayStartParams[num-gpus]") != NULL);
    dialect_case_done(&p);
    free(a);
    free(b);
    /* The name is required: the head's address is made from it. */
    char *gen = dialect_case_edit(sample, "  name: rj\n", "  generateName: rj-\n");
    CHECK(dialect_case_adapt(&dialect_rayjob, gen, &p) != 0);
    CHECK(dialect_case_cause(&p.st, "metadata.name") != NULL);
    dialect_case_done(&p);
    free(gen);
}

/* A Volcano Job as volcano_job_render gives it, with the phase, retries and submitter pod counts. */
static json_t *rendered(const char *phase, int retries, const char *submitter_phase)
{
    json_t *counts = json_object();
    if (submitter_phase)
        json_object_set_new(counts, submitter_phase, json_integer(1));
    return json_pack("{s:{s:s, s:s}, s:{s:{s:[s]}}, s:{s:{s:s, s:s, s:s}, s:i, s:{s:{s:o}}}}", "metadata", "name", "rj",
                     "creationTimestamp", "2026-01-02T03:04:05Z", "spec", "plugins", "ray", "--dashboardPort=8266",
                     "status", "state", "phase", phase, "lastTransitionTime", "2026-01-02T04:00:00Z", "message",
                     "the message", "retryCount", retries, "taskStatusCount", "submitter", "phase", counts);
}

static void status_for_each_phase(void)
{
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_rayjob, sample, &p) == 0);
    const struct {
        const char *phase, *submitter;
        int retries;
        const char *job_status, *deployment;
        int failed, succeeded;
        bool ended;
    } cases[] = {
        {"Pending", NULL, 0, "PENDING", "Initializing", 0, 0, false},
        {"Running", "Pending", 0, "PENDING", "Running", 0, 0, false},
        {"Running", "Running", 0, "RUNNING", "Running", 0, 0, false},
        {"Running", "Succeeded", 0, "SUCCEEDED", "Complete", 0, 1, false}, /* shutdownAfterJobFinishes false */
        {"Restarting", "Failed", 1, "FAILED", "Retrying", 1, 0, false},
        {"Completed", "Succeeded", 1, "SUCCEEDED", "Complete", 1, 1, true},
        {"Failed", "Failed", 3, "FAILED", "Failed", 3, 0, true},
        {"Failed", NULL, 0, "FAILED", "Failed", 1, 0, true},
        {"Aborted", NULL, 0, "STOPPED", "Suspended", 0, 0, false},
        {"Terminated", "Running", 0, "STOPPED", "Complete", 0, 0, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *vj = rendered(cases[i].phase, cases[i].retries, cases[i].submitter);
        json_t *obj = dialect_render(&dialect_rayjob, p.job->source, vj);
        json_t *st = json_object_get(obj, "status");
        CHECK_STR(json_string_value(json_object_get(st, "jobStatus")), cases[i].job_status);
        CHECK_STR(json_string_value(json_object_get(st, "jobDeploymentStatus")), cases[i].deployment);
        CHECK_INT(json_integer_value(json_object_get(st, "failed")), cases[i].failed);
        CHECK_INT(json_integer_value(json_object_get(st, "succeeded")), cases[i].succeeded);
        CHECK_STR(json_string_value(json_object_get(st, "dashboardURL")), "rj-head-0.rj:8266");
        CHECK_STR(json_string_value(json_object_get(st, "rayClusterName")), "rj");
        CHECK_STR(json_string_value(json_object_get(st, "jobId")), "rj");
        CHECK_STR(json_string_value(json_object_get(st, "startTime")), "2026-01-02T03:04:05Z");
        CHECK(cases[i].ended == (json_object_get(st, "endTime") != NULL));
        CHECK_STR(json_string_value(json_object_get(st, "message")), "the message");
        CHECK_STR(json_string_value(json_object_get(obj, "kind")), "RayJob");
        json_decref(obj);
        json_decref(vj);
    }
    dialect_case_done(&p);
}

static const char *phase(const struct job *job) { return job_phase_name(job->status.phase); }

static const char *ray_status(const struct job *job, const char *key)
{
    json_t *obj = dialect_case_render(&dialect_rayjob, job);
    static char value[32];
    snprintf(value, sizeof value, "%s", json_string_value(json_object_get(json_object_get(obj, "status"), key)));
    json_decref(obj);
    return value;
}

/* Run by the controller (fake processes): the submitter's success completes the job and stops the
 * cluster when shutdownAfterJobFinishes; otherwise the cluster stays up, the deployment Complete. */
static void submitter_success_ends_the_job_when_shutting_down(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 2);
    struct job *job = dialect_case_submit(&fx, &dialect_rayjob, sample);
    REQUIRE(job);
    CHECK_STR(ray_status(job, "jobDeploymentStatus"), "Initializing");
    ctlfx_cycle(&fx);
    CHECK_STR(phase(job), "Running");
    CHECK_INT(job->status.running, 5); /* head, 3 workers, submitter */
    CHECK_STR(ray_status(job, "jobStatus"), "RUNNING");
    ctlfx_exit(&fx, job, 4, 0, false);
    CHECK_STR(phase(job), "Running"); /* ttlSecondsAfterFinished 60: the cluster stays up a minute */
    CHECK_STR(ray_status(job, "jobDeploymentStatus"), "Complete");
    ctlfx_advance(&fx, 59999);
    CHECK_STR(phase(job), "Running");
    ctlfx_advance(&fx, 1);
    CHECK_STR(phase(job), "Completing");
    ctlfx_settle(&fx);
    CHECK_STR(phase(job), "Completed");
    CHECK_STR(ray_status(job, "jobStatus"), "SUCCEEDED");
    CHECK_STR(ray_status(job, "jobDeploymentStatus"), "Complete");
    ctlfx_free(&fx);

    char *a = dialect_case_edit(sample, "shutdownAfterJobFinishes: true\n", "shutdownAfterJobFinishes: false\n");
    char *keep = dialect_case_edit(a, "  ttlSecondsAfterFinished: 60\n", "");
    ctlfx_init(&fx, 2);
    job = dialect_case_submit(&fx, &dialect_rayjob, keep);
    REQUIRE(job);
    ctlfx_cycle(&fx);
    ctlfx_exit(&fx, job, 4, 0, false);
    CHECK_STR(phase(job), "Running"); /* the cluster stays up until the job is deleted or terminated */
    CHECK_INT(job->status.running, 4);
    CHECK_STR(ray_status(job, "jobStatus"), "SUCCEEDED");
    CHECK_STR(ray_status(job, "jobDeploymentStatus"), "Complete");
    ctlfx_free(&fx);
    free(a);
    free(keep);
}

/* The submitter retries in place (submitterConfig.backoffLimit); once spent, the attempt failed and the
 * RayJob retries with a new cluster (backoffLimit), then fails. */
static void submitter_failures_retry_then_fail(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 2);
    char *yaml = dialect_case_edit(sample, "  backoffLimit: 2\n",
                                   "  backoffLimit: 1\n  submitterConfig: {backoffLimit: 0}\n");
    struct job *job = dialect_case_submit(&fx, &dialect_rayjob, yaml);
    REQUIRE(job);
    ctlfx_cycle(&fx);
    ctlfx_exit(&fx, job, 4, 1, false); /* restart 1 of maxRetry 1: TaskFailed -> RestartJob */
    CHECK_STR(phase(job), "Restarting");
    CHECK_STR(ray_status(job, "jobDeploymentStatus"), "Retrying");
    ctlfx_settle(&fx);
    ctlfx_cycle(&fx);
    CHECK_STR(phase(job), "Running"); /* a new cluster */
    ctlfx_exit(&fx, job, 4, 1, false);
    ctlfx_settle(&fx);
    ctlfx_cycle(&fx);
    CHECK_STR(phase(job), "Failed");
    CHECK_INT(job->status.retry_count, 2);
    CHECK_STR(ray_status(job, "jobStatus"), "FAILED");
    CHECK_STR(ray_status(job, "jobDeploymentStatus"), "Failed");
    ctlfx_free(&fx);
    free(yaml);
}

/* Malformed documents are refused with a cause, never half-read. */
static void malformed_documents_are_refused(void)
{
    const char *const bodies[] = {
        "spec: []",
        "spec: {entrypoint: x, rayClusterSpec: []}",
        "spec: {entrypoint: x, rayClusterSpec: {headGroupSpec: {template: 3}}}",
        "spec: {entrypoint: x, rayClusterSpec: {headGroupSpec: {template: {spec: {containers: x}}}}}",
        "spec: {entrypoint: x, rayClusterSpec: {headGroupSpec: {rayStartParams: {port: 5}, template: {spec: {}}}}}",
        "spec: {entrypoint: x, rayClusterSpec: {headGroupSpec: {rayStartParams: {port: \"0\"}, template: {spec: {}}}}}",
        "spec: {entrypoint: x, rayClusterSpec: {headGroupSpec: {template: {spec: {containers: [{name: h, command: "
        "[x]}]}}},"
        " workerGroupSpecs: [1]}}",
        "spec: {entrypoint: x, rayClusterSpec: {headGroupSpec: {template: {spec: {containers: [{name: h, command: "
        "[x]}]}}},"
        " workerGroupSpecs: [{groupName: Bad_Name, template: {}}]}}",
        "spec: {entrypoint: x, rayClusterSpec: {headGroupSpec: {template: {spec: {containers: [{name: h, command: "
        "[x]}]}}},"
        " workerGroupSpecs: [{groupName: w, minReplicas: 3, maxReplicas: 2, template: {}}]}}",
        "spec: {entrypoint: x, entrypointNumCpus: -1, entrypointResources: \"[1]\", rayClusterSpec: {headGroupSpec: "
        "{template: {spec: {containers: [{name: h}]}}}}}",
        "spec: {entrypoint: x, submitterPodTemplate: {spec: {restartPolicy: Always, containers: [{name: s}]}},"
        " rayClusterSpec: {headGroupSpec: {template: {spec: {containers: [{name: h}]}}}}}",
        "spec: {entrypoint: x, submitterPodTemplate: {metadata: {}}, rayClusterSpec: {headGroupSpec: {template: "
        "{spec: {containers: [{name: h}]}}}}}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml, "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: m}\n%s\n", bodies[i]);
        struct dialect_case p;
        int rc = dialect_case_adapt(&dialect_rayjob, yaml, &p);
        if (rc == 0 || p.st.ncauses == 0)
            test_fail(__FILE__, __LINE__, "body %zu: rc %d, %d causes: %s", i, rc, p.st.ncauses, p.st.message);
        dialect_case_done(&p);
    }
}

TEST_MAIN(TEST_CASE(malformed_documents_are_refused), TEST_CASE(submitter_success_ends_the_job_when_shutting_down),
          TEST_CASE(submitter_failures_retry_then_fail), TEST_CASE(served_at_its_own_path),
          TEST_CASE(head_worker_and_submitter_tasks), TEST_CASE(the_plugin_starts_head_and_workers),
          TEST_CASE(head_ports_come_from_ray_start_params), TEST_CASE(policies_follow_shutdown),
          TEST_CASE(deadline_on_copies_of_the_templates), TEST_CASE(volcano_causes_in_the_rayjobs_terms),
          TEST_CASE(refusals_name_the_field), TEST_CASE(status_for_each_phase))
