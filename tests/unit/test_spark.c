/* The Spark operator's SparkApplication as a Volcano Job: Spark's memory strings and overheads, the
 * gang's minResources (driver and minimum executors), the driver's spark-submit and the executors' backend (run against a
 * stand-in spark-class), the restart policies, causes in the application's own paths, and the status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/dialects/dialect.h"
#include "adapters/intake/intake.h"
#include "adapters/dialects/spark/spark.h"
#include "common/fs.h"
#include "model/resource.h"
#include "tests/lib/dialect_case.h"
#include "tests/lib/test.h"

#define MIB (1024LL * 1024)

static const char *const pi =
    "apiVersion: sparkoperator.k8s.io/v1beta2\n"
    "kind: SparkApplication\n"
    "metadata:\n"
    "  name: sp\n"
    "spec:\n"
    "  type: Scala\n"
    "  image: spark:3.5.3\n"
    "  mainClass: org.apache.spark.examples.SparkPi\n"
    "  mainApplicationFile: local:///opt/spark/examples/jars/spark-examples.jar\n"
    "  arguments: [\"100\"]\n"
    "  sparkVersion: 3.5.3\n"
    "  sparkConf: {spark.eventLog.enabled: \"false\"}\n"
    "  driver:\n"
    "    cores: 1\n"
    "    memory: 512m\n"
    "    env:\n"
    "    - {name: A, value: \"1\"}\n"
    "  executor:\n"
    "    instances: 3\n"
    "    cores: 2\n"
    "    coreLimit: 2500m\n"
    "    memory: 4g\n";

/* The index of the first argv element equal to s, or -1. */
static int argv_index(char **argv, const char *s)
{
    for (int i = 0; argv && argv[i]; i++)
        if (strcmp(argv[i], s) == 0)
            return i;
    return -1;
}

static void served_at_its_own_path(void)
{
    CHECK(dialect_by_plural("sparkoperator.k8s.io", "v1beta2", "sparkapplications") == &dialect_spark);
    CHECK(dialect_by_kind("sparkoperator.k8s.io/v1beta2", "SparkApplication") == &dialect_spark);
}

static void spark_memory_strings(void)
{
    const struct {
        const char *text;
        int64_t mib;
    } good[] = {{"512m", 512},   {"512", 512}, {"2g", 2048},    {"2G", 2048}, {"2gb", 2048},
                {"1t", 1048576}, {"1536k", 1}, {"2097152b", 2}, {"3mb", 3},   {"0", 0}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int64_t mib = -1;
        const char *why = NULL;
        CHECK(spark_size_mib(good[i].text, 'm', &mib, &why));
        CHECK_INT(mib, good[i].mib);
    }
    const char *const bad[] = {"1.5g", "", "g", "512x", "1gib", "-1g", "99999999999999999999m"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t mib;
        const char *why = NULL;
        CHECK(!spark_size_mib(bad[i], 'm', &mib, &why));
        CHECK(why != NULL);
    }
    CHECK_INT(spark_overhead_mib(512, 0.1), 384);  /* the 384 MiB floor */
    CHECK_INT(spark_overhead_mib(8192, 0.1), 819); /* 0.1 x 8 GiB, truncated */
    CHECK_INT(spark_overhead_mib(2048, 0.4), 819); /* non-JVM factor */
}

/* Pods sized as Spark sizes them: cpu requested as cores, limited by coreLimit; memory requested and
 * limited at heap + overhead. */
static void pods_sized_as_spark_sizes_them(void)
{
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_spark, pi, &p) == 0);
    const struct task_spec *d = &p.job->tasks[0], *e = &p.job->tasks[1];
    CHECK_STR(d->name, "driver");
    CHECK_STR(e->name, "executor");
    CHECK_INT(d->request.v[RES_CPU], 1000);
    CHECK_INT(d->request.v[RES_MEMORY], 896 * MIB); /* 512 + 384 */
    CHECK_INT(d->limit.v[RES_MEMORY], 896 * MIB);
    CHECK_INT(e->request.v[RES_CPU], 2000);
    CHECK_INT(e->limit.v[RES_CPU], 2500);
    CHECK_INT(e->request.v[RES_MEMORY], (4096 + 409) * MIB);
    dialect_case_done(&p);
    /* Python: overhead factor 0.4; an explicit memoryOverhead wins over any factor. */
    char *py = dialect_case_edit(pi, "type: Scala", "type: Python");
    REQUIRE(dialect_case_adapt(&dialect_spark, py, &p) == 0);
    CHECK_INT(p.job->tasks[1].request.v[RES_MEMORY], (4096 + 1638) * MIB);
    dialect_case_done(&p);
    char *own = dialect_case_edit(py, "    memory: 4g\n", "    memory: 4g\n    memoryOverhead: 1g\n");
    REQUIRE(dialect_case_adapt(&dialect_spark, own, &p) == 0);
    CHECK_INT(p.job->tasks[1].request.v[RES_MEMORY], 5 * 1024 * MIB);
    dialect_case_done(&p);
    char *factor = dialect_case_edit(pi, "  sparkVersion: 3.5.3\n",
                                     "  sparkVersion: 3.5.3\n  memoryOverheadFactor: \"0.25\"\n");
    REQUIRE(dialect_case_adapt(&dialect_spark, factor, &p) == 0);
    CHECK_INT(p.job->tasks[1].request.v[RES_MEMORY], (4096 + 1024) * MIB);
    dialect_case_done(&p);
    free(py);
    free(own);
    free(factor);
}

/* The PodGroup's minResources covers the driver and the minimum executors, so a driver never
 * runs without the executors it needs (drivers cannot starve executors). */
static void min_resources_cover_driver_and_minimum_executors(void)
{
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_spark, pi, &p) == 0);
    CHECK_INT(p.job->min_available, 4);
    CHECK_INT(p.job->pg.min_resources.v[RES_CPU], 1000 + 3 * 2000);
    CHECK_INT(p.job->pg.min_resources.v[RES_MEMORY], (896 + 3 * 4505) * MIB);
    dialect_case_done(&p);
    char *dyn = dialect_case_edit(pi, "    instances: 3\n", "");
    char *yaml = dialect_case_edit(
        dyn, "  driver:\n", "  dynamicAllocation: {enabled: true, minExecutors: 2, maxExecutors: 10}\n  driver:\n");
    REQUIRE(dialect_case_adapt(&dialect_spark, yaml, &p) == 0);
    CHECK_INT(p.job->tasks[1].replicas, 10); /* every executor Spark may ask for */
    CHECK_INT(p.job->tasks[1].min_available, 2);
    CHECK_INT(p.job->min_available, 3);
    CHECK_INT(p.job->pg.min_resources.v[RES_CPU], 1000 + 2 * 2000);
    CHECK_INT(p.job->pg.min_resources.v[RES_MEMORY], (896 + 2 * 4505) * MIB);
    dialect_case_done(&p);
    free(dyn);
    free(yaml);
}

/* The driver runs spark-submit through PATH, in client mode inside its pod, reachable as
 * <job>-driver-0.<job>; the user's sparkConf comes first so the layout's settings win. */
static void driver_runs_spark_submit(void)
{
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_spark, pi, &p) == 0);
    char **argv = p.job->tasks[0].argv;
    REQUIRE(argv);
    CHECK_STR(argv[0], "spark-submit");
    CHECK_STR(argv[argv_index(argv, "--deploy-mode") + 1], "client");
    CHECK_STR(argv[argv_index(argv, "--class") + 1], "org.apache.spark.examples.SparkPi");
    int user = argv_index(argv, "spark.eventLog.enabled=false"),
        host = argv_index(argv, "spark.driver.host=sp-driver-0.sp");
    CHECK(user > 0 && host > user);
    CHECK(argv_index(argv, "spark.driver.port=7078") > 0);
    CHECK(argv_index(argv, "spark.executor.instances=3") > 0);
    CHECK(argv_index(argv, "spark.executor.memory=4g") > 0);
    CHECK(argv_index(argv, "spark.kubernetes.namespace=team-a") > 0);
    size_t n = 0;
    while (argv[n])
        n++;
    CHECK_STR(argv[n - 2], "local:///opt/spark/examples/jars/spark-examples.jar");
    CHECK_STR(argv[n - 1], "100");
    CHECK_STR(dialect_case_env(p.job->tasks[0].env, "A"), "1");
    dialect_case_done(&p);
}

/* The executor's command run by sh against a stand-in spark-class found on PATH: the executor id is the
 * replica's index + 1 and the driver's URL is the driver pod's. */
static void executors_run_the_backend_pointed_at_the_driver(void)
{
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_spark, pi, &p) == 0);
    const struct task_spec *e = &p.job->tasks[1];
    CHECK_STR(dialect_case_env(e->env, "SPARK_DRIVER_URL"), "spark://CoarseGrainedScheduler@sp-driver-0.sp:7078");
    CHECK_STR(dialect_case_env(e->env, "SPARK_EXECUTOR_CORES"), "2");
    CHECK_STR(dialect_case_env(e->env, "SPARK_EXECUTOR_MEMORY"), "4g");
    CHECK_STR(dialect_case_env(e->env, "SPARK_APPLICATION_ID"), "spark-sp");
    CHECK_STR(e->restart_policy, "OnFailure");
    REQUIRE(e->argv && e->argv[0] && e->argv[2]);
    CHECK_STR(e->argv[0], "sh");
    CHECK(strchr(e->argv[2], '\'') == NULL);
    char dir[] = "/tmp/caldera-spark-XXXXXX";
    REQUIRE(mkdtemp(dir));
    char stub[128];
    snprintf(stub, sizeof stub, "%s/spark-class", dir);
    FILE *f = fopen(stub, "w");
    REQUIRE(f);
    fputs("#!/bin/sh\necho \"$@\"\n", f);
    fclose(f);
    chmod(stub, 0755);
    char cmd[4096];
    int n = snprintf(cmd, sizeof cmd, "env -i PATH=%s:/usr/bin:/bin VC_TASK_INDEX=2", dir);
    for (size_t i = 0; e->env[i]; i++)
        n += snprintf(cmd + n, sizeof cmd - (size_t)n, " '%s'", e->env[i]);
    snprintf(cmd + n, sizeof cmd - (size_t)n, " sh -c '%s'", e->argv[2]);
    FILE *out = popen(cmd, "r");
    REQUIRE(out);
    char line[2048] = "";
    CHECK(fgets(line, sizeof line, out) != NULL);
    CHECK_INT(pclose(out), 0);
    CHECK_STR(line,
              "org.apache.spark.executor.CoarseGrainedExecutorBackend --driver-url "
              "spark://CoarseGrainedScheduler@sp-driver-0.sp:7078 --executor-id 3 --hostname "
              "sp-executor-2.sp --cores 2 --app-id spark-sp --resourceProfileId 0\n");
    unlink(stub);
    rmdir(dir);
    dialect_case_done(&p);
}

/* The driver's end is the application's: completion completes the job, failure retries it as
 * restartPolicy says (N retries: maxRetry N + 1). */
static void restart_policies(void)
{
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_spark, pi, &p) == 0);
    json_t *driver = dialect_case_task(p.job, 0), *executor = dialect_case_task(p.job, 1);
    CHECK_STR(json_string_value(json_object_get(dialect_case_policy(driver, "TaskCompleted"), "action")),
              "CompleteJob");
    CHECK_STR(json_string_value(json_object_get(dialect_case_policy(driver, "PodFailed"), "action")), "RestartJob");
    CHECK_STR(json_string_value(json_object_get(dialect_case_policy(executor, "TaskFailed"), "action")), "RestartJob");
    CHECK_INT(p.job->tasks[1].max_retry, 6); /* spark.executor.maxNumFailures: 2 x 3 executors */
    CHECK_INT(p.job->max_retry, 1);          /* Never: the first failure fails the job */
    CHECK_STR(json_string_value(json_object_get(json_object_get(p.job->source, "spec"), "mode")), "cluster");
    dialect_case_done(&p);
    char *on_failure = dialect_case_edit(
        pi, "  sparkVersion: 3.5.3\n",
        "  sparkVersion: 3.5.3\n  restartPolicy: {type: OnFailure, onFailureRetries: 2, "
        "onFailureRetryInterval: 30}\n");
    REQUIRE(dialect_case_adapt(&dialect_spark, on_failure, &p) == 0);
    CHECK_INT(p.job->max_retry, 3);
    CHECK_STR(
        json_string_value(json_object_get(dialect_case_policy(dialect_case_task(p.job, 0), "PodFailed"), "timeout")),
        "30s");
    dialect_case_done(&p);
    char *always = dialect_case_edit(pi, "  sparkVersion: 3.5.3\n",
                                     "  sparkVersion: 3.5.3\n  restartPolicy: {type: Always}\n");
    REQUIRE(dialect_case_adapt(&dialect_spark, always, &p) == 0);
    CHECK_STR(
        json_string_value(json_object_get(dialect_case_policy(dialect_case_task(p.job, 0), "TaskCompleted"), "action")),
        "RestartJob");
    CHECK_INT(p.job->max_retry, INT32_MAX);
    dialect_case_done(&p);
    free(on_failure);
    free(always);
}

static void scheduling_options(void)
{
    char *yaml = dialect_case_edit(
        pi, "  sparkVersion: 3.5.3\n",
        "  sparkVersion: 3.5.3\n  batchScheduler: volcano\n  batchSchedulerOptions: {queue: q1, "
        "priorityClassName: low}\n  timeToLiveSeconds: 120\n");
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_spark, yaml, &p) == 0);
    CHECK_STR(p.job->queue, "q1");
    CHECK_STR(p.job->priority_class, "low");
    CHECK_INT(p.job->ttl_seconds, 120);
    dialect_case_done(&p);
    free(yaml);
}

/* Causes name the application's own fields, with their lines: Spark's refusals, the runtime's (an env
 * value from a Secret, found by the Volcano validation inside the driver's template), fields Caldera
 * does not run. */
static void causes_in_the_applications_terms(void)
{
    char *a = dialect_case_edit(pi, "    memory: 512m\n", "    memory: 512m\n    coreLimit: 1.5GG\n");
    char *b = dialect_case_edit(a, "    memory: 4g\n", "    memory: 4.5g\n    sidecars: []\n");
    struct dialect_case p;
    CHECK(dialect_case_adapt(&dialect_spark, b, &p) != 0);
    const struct api_cause *c = dialect_case_cause(&p.st, "spec.driver.coreLimit");
    REQUIRE(c);
    CHECK_INT(c->line, 16);
    c = dialect_case_cause(&p.st, "spec.executor.memory");
    REQUIRE(c);
    CHECK_CONTAINS(c->message, "fractional");
    CHECK_INT(c->line, 23);
    c = dialect_case_cause(&p.st, "spec.executor.sidecars");
    REQUIRE(c);
    CHECK_CONTAINS(c->message, "one container per pod");
    dialect_case_done(&p);
    char *secret = dialect_case_edit(pi, "    - {name: A, value: \"1\"}\n",
                                     "    - {name: A, valueFrom: {secretKeyRef: {name: s}}}\n");
    CHECK(dialect_case_adapt(&dialect_spark, secret, &p) != 0);
    c = dialect_case_cause(&p.st, "spec.driver.env[0].valueFrom.secretKeyRef.key");
    REQUIRE(c);
    CHECK_INT(c->line, 17);
    CHECK_INT(c->column, 43); /* the secretKeyRef mapping, which lacks its key */
    CHECK_CONTAINS(p.st.message, "SparkApplication.sparkoperator.k8s.io \"sp\" is invalid");
    dialect_case_done(&p);
    free(a);
    free(b);
    free(secret);
}

static json_t *rendered(const char *phase, int retries, const char *executor_counts)
{
    return json_pack("{s:{s:s, s:s}, s:{s:[{}, {s:i}]}, s:{s:{s:s, s:s, s:s}, s:i, s:{s:{s:o}}}}", "metadata", "name",
                     "sp", "creationTimestamp", "2026-01-02T03:04:05Z", "spec", "tasks", "replicas", 3, "status",
                     "state", "phase", phase, "lastTransitionTime", "2026-01-02T04:00:00Z", "message", "driver failed",
                     "retryCount", retries, "taskStatusCount", "executor", "phase",
                     json_loads(executor_counts, 0, NULL));
}

static void status_for_each_phase(void)
{
    struct dialect_case p;
    REQUIRE(dialect_case_adapt(&dialect_spark, pi, &p) == 0);
    const struct {
        const char *phase;
        int retries;
        const char *counts, *state, *executor_state;
        int submissions, executions;
        bool ended;
    } cases[] = {
        {"Pending", 0, "{}", "SUBMITTED", NULL, 1, 0, false},
        {"Running", 0, "{\"Running\": 3}", "RUNNING", "RUNNING", 1, 1, false},
        {"Running", 0, "{\"Running\": 2, \"Pending\": 1}", "RUNNING", NULL, 1, 1, false},
        {"Restarting", 1, "{\"Failed\": 3}", "PENDING_RERUN", "FAILED", 2, 1, false},
        {"Completed", 1, "{\"Succeeded\": 3}", "COMPLETED", "COMPLETED", 2, 2, true},
        {"Failed", 2, "{}", "FAILED", NULL, 3, 2, true},
        {"Failed", 0, "{}", "FAILED", NULL, 1, 1, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *vj = rendered(cases[i].phase, cases[i].retries, cases[i].counts);
        json_t *obj = dialect_render(&dialect_spark, p.job->source, vj);
        json_t *st = json_object_get(obj, "status");
        json_t *app = json_object_get(st, "applicationState");
        CHECK_STR(json_string_value(json_object_get(app, "state")), cases[i].state);
        CHECK((json_object_get(app, "errorMessage") != NULL) == (strcmp(cases[i].state, "FAILED") == 0));
        CHECK_STR(json_string_value(json_object_get(json_object_get(st, "driverInfo"), "podName")), "sp-driver-0");
        CHECK_STR(json_string_value(json_object_get(st, "sparkApplicationId")), "spark-sp");
        CHECK_INT(json_integer_value(json_object_get(st, "submissionAttempts")), cases[i].submissions);
        CHECK_INT(json_integer_value(json_object_get(st, "executionAttempts")), cases[i].executions);
        CHECK(cases[i].ended == (json_object_get(st, "terminationTime") != NULL));
        json_t *ex = json_object_get(st, "executorState");
        if (cases[i].executor_state) {
            CHECK_INT(json_object_size(ex), 3);
            CHECK_STR(json_string_value(json_object_get(ex, "sp-executor-2")), cases[i].executor_state);
        } else {
            CHECK(ex == NULL);
        }
        json_decref(obj);
        json_decref(vj);
    }
    dialect_case_done(&p);
}

static const char *phase(const struct job *job) { return job_phase_name(job->status.phase); }

static const char *app_state(const struct job *job)
{
    json_t *obj = dialect_case_render(&dialect_spark, job);
    static char state[32];
    snprintf(state, sizeof state, "%s",
             json_string_value(
                 json_object_get(json_object_get(json_object_get(obj, "status"), "applicationState"), "state")));
    json_decref(obj);
    return state;
}

/* Run by the controller (fake processes): a lost executor restarts in place; the driver's success
 * completes the application and stops the executors. */
static void driver_completion_completes_the_application(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 2);
    char *yaml = dialect_case_edit(pi, "    instances: 3\n    cores: 2\n    coreLimit: 2500m\n    memory: 4g\n",
                                   "    instances: 2\n    memory: 512m\n");
    struct job *job = dialect_case_submit(&fx, &dialect_spark, yaml);
    REQUIRE(job);
    CHECK_STR(app_state(job), "SUBMITTED");
    ctlfx_cycle(&fx);
    CHECK_STR(phase(job), "Running");
    CHECK_INT(job->status.running, 3);
    CHECK_STR(app_state(job), "RUNNING");
    ctlfx_exit(&fx, job, 1, 1, false); /* executor 0 lost */
    CHECK_INT(job->replicas[1].phase, POD_RUNNING);
    CHECK_INT(job->replicas[1].restarts, 1);
    CHECK_STR(phase(job), "Running");
    ctlfx_exit(&fx, job, 0, 0, false); /* the driver ends well */
    CHECK_STR(phase(job), "Completing");
    ctlfx_settle(&fx);
    CHECK_STR(phase(job), "Completed");
    CHECK_STR(app_state(job), "COMPLETED");
    ctlfx_free(&fx);
    free(yaml);
}

/* restartPolicy Never: the driver's failure fails the application, no second run. */
static void driver_failure_fails_the_application(void)
{
    struct ctl_fixture fx;
    ctlfx_init(&fx, 2);
    char *yaml = dialect_case_edit(pi, "    instances: 3\n    cores: 2\n    coreLimit: 2500m\n    memory: 4g\n",
                                   "    instances: 1\n    memory: 512m\n");
    struct job *job = dialect_case_submit(&fx, &dialect_spark, yaml);
    REQUIRE(job);
    ctlfx_cycle(&fx);
    CHECK_STR(phase(job), "Running");
    ctlfx_exit(&fx, job, 0, 1, false);
    ctlfx_settle(&fx);
    ctlfx_cycle(&fx);
    CHECK_STR(phase(job), "Failed");
    CHECK_STR(app_state(job), "FAILED");
    CHECK_INT(fx.starts, 2);
    ctlfx_free(&fx);
    free(yaml);
}

/* Malformed documents are refused with a cause, never half-read. */
static void malformed_documents_are_refused(void)
{
    const char *const bodies[] = {
        "spec: []",
        "spec: {type: Scala, sparkVersion: x, mainApplicationFile: a.jar, driver: x, executor: {}}",
        "spec: {type: Go, sparkVersion: x, mainApplicationFile: a.jar, driver: {}, executor: {}}",
        "spec: {type: Scala, sparkVersion: x, mainApplicationFile: a.jar, driver: {cores: 0}, executor: {}}",
        "spec: {type: Scala, sparkVersion: x, mainApplicationFile: a.jar, driver: {gpu: {name: x.io/tpu, quantity: 1}},"
        " executor: {}}",
        "spec: {type: Scala, sparkVersion: x, mainApplicationFile: a.jar, driver: {}, executor: {instances: 0}}",
        "spec: {type: Scala, sparkVersion: x, mainApplicationFile: a.jar, driver: {}, executor: {},"
        " dynamicAllocation: {enabled: true, minExecutors: 5, maxExecutors: 2}}",
        "spec: {type: Scala, sparkVersion: x, mainApplicationFile: a.jar, driver: {}, executor: {},"
        " restartPolicy: {type: Sometimes}}",
        "spec: {type: Scala, sparkVersion: x, mainApplicationFile: a.jar, driver: {}, executor: {},"
        " sparkConf: {spark.driver.port: http}}",
        "spec: {type: Scala, sparkVersion: x, mainApplicationFile: a.jar, driver: {}, executor: {},"
        " deps: {jars: [1, {}]}}",
        "spec: {type: Scala, sparkVersion: x, mainApplicationFile: a.jar, driver: {nodeSelector: {a: b}}, executor: {},"
        " nodeSelector: {c: d}}",
        "spec: {type: Scala, sparkVersion: x, mainApplicationFile: a.jar, driver: {}, executor: {},"
        " batchScheduler: yunikorn, batchSchedulerOptions: {resources: {cpu: 1}}}",
        "spec: {type: Scala, sparkVersion: x, mainApplicationFile: a.jar, driver: {schedulerName: a},"
        " executor: {schedulerName: b}}",
        "spec: {type: Scala, sparkVersion: x, mainApplicationFile: a.jar, memoryOverheadFactor: \"-1\", driver: {},"
        " executor: {}}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\nmetadata: "
                 "{name: m}\n%s\n",
                 bodies[i]);
        struct dialect_case p;
        int rc = dialect_case_adapt(&dialect_spark, yaml, &p);
        if (rc == 0 || p.st.ncauses == 0)
            test_fail(__FILE__, __LINE__, "body %zu: rc %d, %d causes: %s", i, rc, p.st.ncauses, p.st.message);
        dialect_case_done(&p);
    }
}

TEST_MAIN(TEST_CASE(malformed_documents_are_refused), TEST_CASE(driver_completion_completes_the_application),
          TEST_CASE(driver_failure_fails_the_application), TEST_CASE(served_at_its_own_path),
          TEST_CASE(spark_memory_strings), TEST_CASE(pods_sized_as_spark_sizes_them),
          TEST_CASE(min_resources_cover_driver_and_minimum_executors), TEST_CASE(driver_runs_spark_submit),
          TEST_CASE(executors_run_the_backend_pointed_at_the_driver), TEST_CASE(restart_policies),
          TEST_CASE(scheduling_options), TEST_CASE(causes_in_the_applications_terms), TEST_CASE(status_for_each_phase))
