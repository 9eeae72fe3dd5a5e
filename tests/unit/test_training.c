/* Caldera's training request (caldera.io/v1 Training): each framework's tasks, replicas, plugins and the
 * variables those plugins give each replica; defaults; refusals with the request's own paths; status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "adapters/intake/intake.h"
#include "adapters/dialects/training/training.h"
#include "common/strv.h"
#include "scheduler/controller/job_plugins/job_plugins.h"
#include "tests/lib/causes.h"
#include "tests/lib/env_lookup.h"
#include "tests/lib/test.h"
#include "tests/lib/json_text.h"

/* --- helpers ------------------------------------------------------------------------------------ */

struct adapted {
    struct intake in;
    struct api_status st;
    struct job *job;
    int rc;
};

/* Posts text (JSON or YAML) to the trainings path of namespace "team-a". */
static void adapt(const char *text, enum intake_format fmt, struct adapted *a)
{
    memset(a, 0, sizeof *a);
    a->rc = intake_parse(text, strlen(text), fmt, &a->in, &a->st);
    if (a->rc == 0)
        a->rc = dialect_job_from_doc(dialect_by_plural("caldera.io", "v1", "trainings"), &a->in.docs[0], "team-a",
                                     &a->job, &a->st);
}

static void adapted_free(struct adapted *a)
{
    job_free(a->job);
    intake_free(&a->in);
}

static const json_t *spec_of(const struct adapted *a) { return json_object_get(job_manifest(a->job), "spec"); }

static const json_t *task_named(const struct adapted *a, const char *name)
{
    size_t i;
    const json_t *task;
    json_array_foreach(json_object_get(spec_of(a), "tasks"), i, task)
    {
        if (strcmp(json_string_value(json_object_get(task, "name")), name) == 0)
            return task;
    }
    return NULL;
}

static const json_t *container_of(const json_t *task)
{
    return json_array_get(json_object_get(json_object_get(json_object_get(task, "template"), "spec"), "containers"), 0);
}

/* The task names in order, space-separated. */
static void task_names(const struct adapted *a, char *buf, size_t len)
{
    buf[0] = 0;
    for (int t = 0; t < a->job->ntasks; t++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s:%d", t ? " " : "", a->job->tasks[t].name,
                 a->job->tasks[t].replicas);
}

/* Checks a's tasks, "<name>:<replicas>" in order, against want. */
#define CHECK_TASK_NAMES(a, want)             \
    do {                                      \
        char names_[128];                     \
        task_names(a, names_, sizeof names_); \
        CHECK_STR(names_, want);              \
    } while (0)

/* The plugins' part of replica (task, index): env and argv, as the controller would start it. */
static bool attempt(const struct adapted *a, const char *task, int index, struct plugin_attempt *pa)
{
    char why[256];
    for (int t = 0; t < a->job->ntasks; t++)
        if (strcmp(a->job->tasks[t].name, task) == 0)
            return job_plugins_attempt(a->job, t, index, "/jobdir", pa, why, sizeof why) == 0;
    return false;
}

/* --- frameworks ----------------------------------------------------------------------------------- */

static void pytorch_master_and_workers(void)
{
    struct adapted a;
    adapt(
        "{\"name\":\"mnist\",\"framework\":\"pytorch\",\"command\":[\"python\",\"train.py\"],\"workers\":4,"
        "\"resources\":{\"cpu\":\"2\",\"memory\":\"4Gi\",\"nvidia.com/gpu\":1},\"queue\":\"team-a\","
        "\"companions\":[\"jupyter\",\"tensorboard\"],\"maxRetry\":3}",
        INTAKE_JSON, &a);
    REQUIRE(a.rc == 0);
    CHECK_TASK_NAMES(&a, "master:1 worker:3"); /* workers counts every process: WORLD_SIZE */
    CHECK_STR(a.job->name, "mnist");
    CHECK_STR(a.job->queue, "team-a");
    CHECK_INT(a.job->max_retry, 3);
    CHECK_INT(a.job->min_available, 4);
    CHECK(json_is_text(json_object_get(spec_of(&a), "plugins"), "{\"pytorch\":[],\"svc\":[]}"));
    CHECK(json_is_text(json_object_get(spec_of(&a), "policies"),
                       "[{\"action\":\"RestartJob\",\"events\":[\"PodEvicted\",\"PodFailed\"]}]"));
    CHECK(json_is_text(json_object_get(task_named(&a, "master"), "policies"),
                       "[{\"action\":\"CompleteJob\",\"event\":\"TaskCompleted\"}]"));
    const json_t *worker = container_of(task_named(&a, "worker"));
    CHECK(json_is_text(json_object_get(worker, "command"), "[\"python\",\"train.py\"]"));
    CHECK(json_is_text(json_object_get(worker, "resources"),
                       "{\"limits\":{\"cpu\":\"2\",\"memory\":\"4Gi\",\"nvidia.com/gpu\":1},"
                       "\"requests\":{\"cpu\":\"2\",\"memory\":\"4Gi\",\"nvidia.com/gpu\":1}}"));
    CHECK_INT(a.job->tasks[1].request.v[RES_GPU], 1);
    CHECK_INT(a.job->tasks[1].limit.v[RES_MEMORY], 4LL << 30);
    CHECK_STR(
        json_string_value(json_object_get(
            json_object_get(json_object_get(job_manifest(a.job), "metadata"), "annotations"), "caldera.io/companions")),
        "jupyter,tensorboard");

    struct plugin_attempt pa;
    REQUIRE(attempt(&a, "master", 0, &pa));
    CHECK_STR(env_get(pa.env, "MASTER_ADDR"), "mnist-master-0.mnist");
    CHECK_STR(env_get(pa.env, "WORLD_SIZE"), "4");
    CHECK_STR(env_get(pa.env, "RANK"), "0");
    plugin_attempt_free(&pa);
    REQUIRE(attempt(&a, "worker", 2, &pa));
    CHECK_STR(env_get(pa.env, "RANK"), "3");
    CHECK_STR(env_get(pa.env, "WORLD_SIZE"), "4");
    plugin_attempt_free(&pa);

    /* the source carries the request with its metadata, the defaults written */
    const json_t *src = a.job->source;
    CHECK_STR(json_string_value(json_object_get(json_object_get(src, "metadata"), "name")), "mnist");
    CHECK(json_object_get(src, "name") == NULL);
    CHECK_STR(json_string_value(json_object_get(src, "kind")), "Training");
    adapted_free(&a);
}

static void pytorch_single_worker_is_a_master_alone(void)
{
    struct adapted a;
    adapt("{\"name\":\"one\",\"framework\":\"pytorch\",\"command\":[\"python\",\"t.py\"]}", INTAKE_JSON, &a);
    REQUIRE(a.rc == 0);
    CHECK_TASK_NAMES(&a, "master:1");
    struct plugin_attempt pa;
    REQUIRE(attempt(&a, "master", 0, &pa));
    CHECK_STR(env_get(pa.env, "WORLD_SIZE"), "1");
    plugin_attempt_free(&pa);
    adapted_free(&a);
}

static void tensorflow_workers_and_ps(void)
{
    struct adapted a;
    adapt(
        "{\"name\":\"tf\",\"framework\":\"tensorflow\",\"command\":[\"python\",\"dist.py\"],\"workers\":2,\"ps\":1,"
        "\"resources\":{\"cpu\":\"4\",\"nvidia.com/gpu\":1},\"taskResources\":{\"ps\":{\"cpu\":\"1\"}}}",
        INTAKE_JSON, &a);
    REQUIRE(a.rc == 0);
    CHECK_TASK_NAMES(&a, "ps:1 worker:2");
    CHECK(json_is_text(json_object_get(spec_of(&a), "plugins"), "{\"svc\":[],\"tensorflow\":[]}"));
    CHECK(json_object_get(task_named(&a, "worker"), "policies") != NULL);
    CHECK(json_object_get(task_named(&a, "ps"), "policies") == NULL);
    CHECK_INT(a.job->tasks[0].request.v[RES_CPU], 1000);
    CHECK_INT(a.job->tasks[0].request.v[RES_GPU], 0);
    CHECK_INT(a.job->tasks[1].request.v[RES_GPU], 1);
    struct plugin_attempt pa;
    REQUIRE(attempt(&a, "worker", 1, &pa));
    const char *tf = env_get(pa.env, "TF_CONFIG");
    REQUIRE(tf != NULL);
    CHECK_CONTAINS(tf, "\"ps\":[\"tf-ps-0.tf:");
    CHECK_CONTAINS(tf, "\"worker\":[\"tf-worker-0.tf:");
    CHECK_CONTAINS(tf, "\"task\":{\"type\":\"worker\",\"index\":1}");
    plugin_attempt_free(&pa);
    adapted_free(&a);
}

static void mpi_launcher_and_waiting_workers(void)
{
    struct adapted a;
    adapt(
        "{\"name\":\"hpc\",\"framework\":\"mpi\",\"command\":\"mpirun --host $MPI_HOST -np 3 ./app\",\"workers\":3,"
        "\"resources\":{\"cpu\":\"8\"}}",
        INTAKE_JSON, &a);
    REQUIRE(a.rc == 0);
    CHECK_TASK_NAMES(&a, "master:1 worker:3");
    CHECK(json_is_text(json_object_get(spec_of(&a), "plugins"), "{\"mpi\":[],\"ssh\":[],\"svc\":[]}"));
    CHECK(json_is_text(json_object_get(container_of(task_named(&a, "master")), "command"),
                       "[\"sh\",\"-c\",\"mpirun --host $MPI_HOST -np 3 ./app\"]"));
    CHECK(json_is_text(json_object_get(container_of(task_named(&a, "worker")), "command"), "[\"sleep\",\"infinity\"]"));
    CHECK(json_object_get(container_of(task_named(&a, "master")), "resources") == NULL); /* a launcher */
    CHECK_INT(a.job->tasks[1].request.v[RES_CPU], 8000);
    struct plugin_attempt pa;
    REQUIRE(attempt(&a, "master", 0, &pa));
    CHECK_STR(env_get(pa.env, "MPI_HOST"), "hpc-worker-0.hpc,hpc-worker-1.hpc,hpc-worker-2.hpc");
    CHECK_STR(env_get(pa.env, "VC_WORKER_HOSTS"), "hpc-worker-0.hpc,hpc-worker-1.hpc,hpc-worker-2.hpc");
    plugin_attempt_free(&pa);
    adapted_free(&a);
}

static void horovod_runs_horovodrun_over_mpi_hosts(void)
{
    struct adapted a;
    adapt(
        "{\"name\":\"hvd\",\"framework\":\"horovod\",\"command\":[\"python\",\"train.py\"],\"args\":[\"--epochs\","
        "\"5\"],"
        "\"workers\":2,\"resources\":{\"nvidia.com/gpu\":4},\"workerCommand\":[\"/usr/sbin/sshd\",\"-D\"]}",
        INTAKE_JSON, &a);
    REQUIRE(a.rc == 0);
    const json_t *master = container_of(task_named(&a, "master"));
    CHECK(
        json_is_text(json_object_get(master, "command"),
                     "[\"sh\",\"-c\",\"exec horovodrun -np 8 -H \\\"$(echo \\\"$MPI_HOST\\\" | sed 's/,/:4,/g'):4\\\" "
                     "\\\"$@\\\"\",\"horovodrun\",\"python\",\"train.py\"]"));
    CHECK(json_is_text(json_object_get(master, "args"), "[\"--epochs\",\"5\"]"));
    CHECK(json_is_text(json_object_get(container_of(task_named(&a, "worker")), "command"),
                       "[\"/usr/sbin/sshd\",\"-D\"]"));
    CHECK(json_object_get(container_of(task_named(&a, "worker")), "args") == NULL);
    adapted_free(&a);
}

static void spark_driver_and_executors(void)
{
    struct adapted a;
    adapt(
        "{\"name\":\"etl\",\"framework\":\"spark\",\"command\":[\"spark-submit\",\"job.py\"],\"workers\":3,"
        "\"resources\":{\"cpu\":\"1500m\",\"memory\":\"2Gi\"}}",
        INTAKE_JSON, &a);
    REQUIRE(a.rc == 0);
    CHECK_TASK_NAMES(&a, "driver:1 executor:3");
    CHECK(json_is_text(json_object_get(spec_of(&a), "plugins"), "{\"svc\":[]}"));
    const json_t *exec = json_object_get(container_of(task_named(&a, "executor")), "command");
    CHECK_CONTAINS(
        json_string_value(json_array_get(exec, 2)),
        "spark-class org.apache.spark.deploy.worker.Worker --cores 2 --memory 2048m \"spark://$VC_DRIVER_HOSTS:7077\"");
    const json_t *driver = json_object_get(container_of(task_named(&a, "driver")), "command");
    CHECK_CONTAINS(json_string_value(json_array_get(driver, 2)), "export MASTER=\"spark://$VC_DRIVER_HOSTS:7077\"");
    CHECK_STR(json_string_value(json_array_get(driver, 4)), "spark-submit");
    struct plugin_attempt pa;
    REQUIRE(attempt(&a, "executor", 0, &pa));
    CHECK_STR(env_get(pa.env, "VC_DRIVER_HOSTS"), "etl-driver-0.etl");
    plugin_attempt_free(&pa);
    adapted_free(&a);
}

static void ray_head_workers_and_driver(void)
{
    struct adapted a;
    adapt(
        "{\"name\":\"tune\",\"framework\":\"ray\",\"command\":[\"python\",\"tune.py\"],\"workers\":2,"
        "\"resources\":{\"cpu\":\"4\"}}",
        INTAKE_JSON, &a);
    REQUIRE(a.rc == 0);
    CHECK_TASK_NAMES(&a, "head:1 worker:2 driver:1");
    CHECK_INT(a.job->min_available, 3);
    CHECK(json_is_text(json_object_get(task_named(&a, "driver"), "dependsOn"), "{\"name\":[\"head\"]}"));
    CHECK(json_is_text(json_object_get(container_of(task_named(&a, "driver")), "env"),
                       "[{\"name\":\"RAY_ADDRESS\",\"value\":\"auto\"}]"));
    struct plugin_attempt pa;
    REQUIRE(attempt(&a, "head", 0, &pa));
    REQUIRE(pa.argv != NULL);
    CHECK_CONTAINS(pa.argv[2], "ray start --head --block");
    plugin_attempt_free(&pa);
    REQUIRE(attempt(&a, "worker", 1, &pa));
    REQUIRE(pa.argv != NULL);
    CHECK_CONTAINS(pa.argv[2], "ray start --block --address=tune-head-0.tune:");
    plugin_attempt_free(&pa);
    REQUIRE(attempt(&a, "driver", 0, &pa));
    CHECK(pa.argv == NULL); /* the driver runs the user's command */
    plugin_attempt_free(&pa);
    adapted_free(&a);
}

static void batch_shards_by_index(void)
{
    struct adapted a;
    adapt(
        "name: sim\nframework: batch\ncommand: [python, -u, call_module_func.py]\nworkers: 10\n"
        "resources: {cpu: 1, memory: 1Gi}\nmaxRetry: 0\n",
        INTAKE_YAML, &a);
    REQUIRE(a.rc == 0);
    CHECK_TASK_NAMES(&a, "worker:10");
    CHECK_INT(a.job->min_available, 1);
    CHECK_INT(a.job->tasks[0].min_available, 1); /* the gang is one replica, not the task's ten */
    CHECK_INT(a.job->min_success, 10);           /* a sharded batch: all replicas must succeed */
    CHECK_INT(a.job->npolicies, 0);              /* maxRetry 0: a failure stays visible */
    const json_t *c = container_of(task_named(&a, "worker"));
    CHECK(json_is_text(json_object_get(c, "env"), "[{\"name\":\"CALDERA_SHARD_COUNT\",\"value\":\"10\"}]"));
    CHECK(
        json_is_text(json_object_get(c, "command"),
                     "[\"sh\",\"-c\",\"export CALDERA_SHARD_INDEX=\\\"$VC_TASK_INDEX\\\"; exec \\\"$@\\\"\",\"shard\","
                     "\"python\",\"-u\",\"call_module_func.py\"]"));
    struct plugin_attempt pa;
    REQUIRE(attempt(&a, "worker", 7, &pa));
    CHECK_STR(env_get(pa.env, "VC_TASK_INDEX"), "7");
    plugin_attempt_free(&pa);
    adapted_free(&a);

    adapt("{\"command\":[\"./shard\"],\"workers\":4,\"minAvailable\":4}", INTAKE_JSON, &a);
    REQUIRE(a.rc == 0);
    CHECK_INT(a.job->min_available, 4);
    CHECK(json_is_text(json_object_get(spec_of(&a), "policies"),
                       "[{\"action\":\"RestartPod\",\"events\":[\"PodEvicted\",\"PodFailed\"]}]"));
    adapted_free(&a);
}

/* --- defaults and metadata ------------------------------------------------------------------------- */

static void defaults_name_and_metadata(void)
{
    struct adapted a;
    adapt(
        "{\"framework\":\"pytorch\",\"command\":[\"python\",\"t.py\"],\"labels\":{\"team\":\"a\"},"
        "\"annotations\":{\"owner\":\"li\"}}",
        INTAKE_JSON, &a);
    REQUIRE(a.rc == 0);
    CHECK(strncmp(a.job->name, "pytorch-", 8) == 0 && strlen(a.job->name) == 13);
    CHECK_STR(a.job->queue, "default");
    CHECK_INT(a.job->max_retry, 3);
    const json_t *meta = json_object_get(a.job->source, "metadata");
    CHECK_STR(json_string_value(json_object_get(meta, "name")), a.job->name);
    CHECK_STR(json_string_value(json_object_get(json_object_get(meta, "labels"), "team")), "a");
    CHECK(json_object_get(a.job->source, "labels") == NULL);
    CHECK_INT(json_integer_value(json_object_get(a.job->source, "workers")), 1);
    const json_t *vmeta = json_object_get(job_manifest(a.job), "metadata");
    CHECK_STR(json_string_value(json_object_get(json_object_get(vmeta, "annotations"), "owner")), "li");
    CHECK(json_object_get(json_object_get(vmeta, "annotations"), "caldera.io/companions") == NULL);
    adapted_free(&a);

    /* no framework: plain batch; apiVersion, kind and metadata accepted when right */
    adapt("apiVersion: caldera.io/v1\nkind: Training\nmetadata: {name: b1, labels: {app: sim}}\ncommand: [/bin/true]\n",
          INTAKE_YAML, &a);
    REQUIRE(a.rc == 0);
    CHECK_STR(a.job->name, "b1");
    CHECK_STR(json_string_value(json_object_get(a.job->source, "framework")), "batch");
    adapted_free(&a);

    adapt("{\"apiVersion\":\"caldera.io/v2\",\"command\":[\"true\"]}", INTAKE_JSON, &a);
    CHECK(a.rc != 0);
    CHECK_INT(a.st.code, 400);
    adapted_free(&a);
}

static void fields_reach_the_volcano_job(void)
{
    struct adapted a;
    adapt(
        "{\"name\":\"f\",\"framework\":\"tensorflow\",\"command\":[\"python\",\"t.py\"],\"image\":\"tf:2\","
        "\"env\":{\"EPOCHS\":5,\"DEBUG\":true,\"MODE\":\"fast\"},\"workingDir\":\"/work\","
        "\"resources\":{\"requests\":{\"cpu\":\"1\"},\"limits\":{\"cpu\":\"2\"}},\"nodeSelector\":{\"zone\":\"a\"},"
        "\"priorityClassName\":\"high\",\"schedulerName\":\"daily\",\"ttlSecondsAfterFinished\":600,"
        "\"autoMemoryScale\":{\"rate\":1.5,\"maxMemory\":\"8Gi\"}}",
        INTAKE_JSON, &a);
    REQUIRE(a.rc == 0);
    const json_t *c = container_of(task_named(&a, "worker"));
    CHECK_STR(json_string_value(json_object_get(c, "image")), "tf:2");
    CHECK_STR(json_string_value(json_object_get(c, "workingDir")), "/work");
    CHECK(json_is_text(json_object_get(c, "env"),
                       "[{\"name\":\"EPOCHS\",\"value\":\"5\"},{\"name\":\"DEBUG\","
                       "\"value\":\"true\"},{\"name\":\"MODE\",\"value\":\"fast\"}]"));
    CHECK_INT(a.job->tasks[0].request.v[RES_CPU], 1000);
    CHECK_INT(a.job->tasks[0].limit.v[RES_CPU], 2000);
    CHECK_STR(json_string_value(json_object_get(
                  json_object_get(json_object_get(json_object_get(task_named(&a, "worker"), "template"), "spec"),
                                  "nodeSelector"),
                  "zone")),
              "a");
    CHECK_STR(a.job->priority_class, "high");
    CHECK_STR(a.job->scheduler_name, "daily");
    CHECK_INT(a.job->ttl_seconds, 600);
    CHECK_INT(a.job->memory_scale_max, 8LL << 30);
    adapted_free(&a);
}

/* --- refusals --------------------------------------------------------------------------------------- */

static void errors_name_the_request_fields(void)
{
    struct adapted a;
    adapt("{\"name\":\"e\",\"framework\":\"caffe\",\"command\":[\"x\"],\"gpus\":2}", INTAKE_JSON, &a);
    CHECK(a.rc != 0);
    CHECK_INT(a.st.code, 422);
    CHECK_CONTAINS(cause_message(&a.st, "gpus"), "unknown field \"gpus\"");
    CHECK_CONTAINS(cause_message(&a.st, "framework"), "Unsupported value: \"caffe\"");
    CHECK_CONTAINS(a.st.message, "Training.caldera.io \"e\" is invalid");
    adapted_free(&a);

    adapt("{\"framework\":\"pytorch\"}", INTAKE_JSON, &a);
    CHECK(a.rc != 0);
    CHECK_STR(cause_message(&a.st, "command"), "Required value");
    adapted_free(&a);

    adapt(
        "{\"framework\":\"pytorch\",\"command\":[\"x\"],\"workers\":0,\"ps\":2,\"minAvailable\":1,"
        "\"companions\":[\"jupyter\",\"VS_Code\",\"jupyter\"]}",
        INTAKE_JSON, &a);
    CHECK(a.rc != 0);
    CHECK_CONTAINS(cause_message(&a.st, "workers"), "Invalid value: 0: must be between 1 and 100000");
    CHECK_CONTAINS(cause_message(&a.st, "ps"), "Forbidden: only for framework tensorflow, not pytorch");
    CHECK_CONTAINS(cause_message(&a.st, "minAvailable"), "Forbidden: only for framework batch");
    CHECK_CONTAINS(cause_message(&a.st, "companions[1]"), "Invalid value: \"VS_Code\": a lowercase RFC 1123 label");
    CHECK_CONTAINS(cause_message(&a.st, "companions[2]"), "Duplicate value: \"jupyter\"");
    adapted_free(&a);

    adapt("{\"name\":\"Bad_Name\",\"metadata\":{\"name\":\"x\",\"uid\":\"u\"},\"command\":[\"x\"]}", INTAKE_JSON, &a);
    CHECK(a.rc != 0);
    CHECK_CONTAINS(cause_message(&a.st, "name"), "a lowercase RFC 1123 label");
    CHECK_CONTAINS(cause_message(&a.st, "metadata.uid"), "unknown field \"metadata.uid\"");
    adapted_free(&a);

    adapt("{\"name\":\"x\",\"metadata\":{\"name\":\"x\"},\"command\":[\"x\"]}", INTAKE_JSON, &a);
    CHECK(a.rc != 0);
    CHECK_CONTAINS(cause_message(&a.st, "name"), "Forbidden: metadata.name is given too");
    adapted_free(&a);

    adapt(
        "{\"framework\":\"horovod\",\"command\":[],\"env\":{\"A=B\":\"1\",\"L\":[1]},\"workingDir\":\"rel\","
        "\"taskResources\":{\"launcher\":{\"cpu\":\"1\"}},\"slotsPerWorker\":0}",
        INTAKE_JSON, &a);
    CHECK(a.rc != 0);
    CHECK_CONTAINS(cause_message(&a.st, "command"), "must name a program");
    CHECK_CONTAINS(cause_message(&a.st, "env[A=B]"), "must not be empty or contain '='");
    CHECK_CONTAINS(cause_message(&a.st, "env[L]"), "must be a string, a number or a boolean");
    CHECK_CONTAINS(cause_message(&a.st, "workingDir"), "must be an absolute path");
    CHECK_CONTAINS(cause_message(&a.st, "taskResources.launcher"),
                   "Unsupported value: \"launcher\": the tasks of a horovod training are \"master\", \"worker\"");
    CHECK_CONTAINS(cause_message(&a.st, "slotsPerWorker"), "must be between 1 and 1024");
    adapted_free(&a);

    adapt("{\"framework\":\"tensorflow\",\"command\":[\"x\"],\"taskResources\":{\"ps\":{\"cpu\":\"1\"}}}", INTAKE_JSON,
          &a);
    CHECK(a.rc != 0);
    CHECK_CONTAINS(cause_message(&a.st, "taskResources.ps"), "this training has no ps task");
    adapted_free(&a);

    adapt("{\"command\":[\"x\"],\"workers\":2,\"minAvailable\":3,\"env\":{\"CALDERA_SHARD_INDEX\":\"0\"}}", INTAKE_JSON,
          &a);
    CHECK(a.rc != 0);
    CHECK_CONTAINS(cause_message(&a.st, "minAvailable"), "must not be greater than workers");
    CHECK_CONTAINS(cause_message(&a.st, "env[CALDERA_SHARD_INDEX]"), "Forbidden");
    adapted_free(&a);
}

static void resource_errors_have_paths_and_lines(void)
{
    struct adapted a;
    adapt(
        "name: r\nframework: pytorch\ncommand: [python, t.py]\nresources:\n  cpu: 2\n  memory: 1.5GG\n"
        "  fpga: 1\n",
        INTAKE_YAML, &a);
    CHECK(a.rc != 0);
    CHECK_STR(cause_message(&a.st, "resources.memory"),
              "Invalid value: invalid quantity \"1.5GG\": unable to parse quantity's suffix");
    CHECK_CONTAINS(a.st.message, "resources.memory: Invalid value: invalid quantity \"1.5GG\"");
    CHECK_CONTAINS(a.st.message, "(line 6, column 11)");
    CHECK_CONTAINS(cause_message(&a.st, "resources.fpga"), "Unsupported value: \"fpga\": not a resource Caldera knows");
    adapted_free(&a);

    adapt("{\"command\":[\"x\"],\"resources\":{\"requests\":{\"cpu\":\"4\"},\"limits\":{\"cpu\":\"2\"}}}", INTAKE_JSON,
          &a);
    CHECK(a.rc != 0);
    CHECK_CONTAINS(cause_message(&a.st, "resources.requests.cpu"), "must be less than or equal to cpu limit");
    adapted_free(&a);

    adapt("{\"command\":[\"x\"],\"resources\":{\"requests\":{\"cpu\":\"4\"},\"memory\":\"1Gi\"}}", INTAKE_JSON, &a);
    CHECK(a.rc != 0);
    CHECK_CONTAINS(cause_message(&a.st, "resources"), "either a map of quantities or {requests, limits}, not both");
    adapted_free(&a);

    /* only requests given: limits are the requests */
    adapt("{\"command\":[\"x\"],\"resources\":{\"requests\":{\"memory\":\"3Gi\"}}}", INTAKE_JSON, &a);
    REQUIRE(a.rc == 0);
    CHECK_INT(a.job->tasks[0].limit.v[RES_MEMORY], 3LL << 30);
    adapted_free(&a);
}

/* A cause the Volcano validation finds comes back in the request's words. */
static void volcano_causes_use_request_paths(void)
{
    struct adapted a;
    adapt("{\"name\":\"v\",\"command\":[\"x\"],\"autoMemoryScale\":{\"rate\":0.5,\"maxMemory\":\"1Gi\"}}", INTAKE_JSON,
          &a);
    CHECK(a.rc != 0);
    CHECK_CONTAINS(cause_message(&a.st, "autoMemoryScale.rate"), "must be a number greater than 1");
    adapted_free(&a);
}

/* --- status ----------------------------------------------------------------------------------------- */

static void status_from_the_volcano_job(void)
{
    json_t *vj = json_loads(
        "{\"metadata\":{\"name\":\"mnist\"},\"spec\":{\"tasks\":[{\"name\":\"master\"},"
        "{\"name\":\"worker\"}]},\"status\":{\"state\":{\"phase\":\"Failed\",\"reason\":"
        "\"RestartJob\",\"message\":\"retryCount reached maxRetry\",\"lastTransitionTime\":"
        "\"2026-11-23T10:00:05Z\"},\"runningSince\":\"2026-11-23T10:00:00Z\",\"retryCount\":3,"
        "\"taskStatusCount\":{\"master\":{\"phase\":{\"Failed\":1}},\"worker\":{\"phase\":"
        "{\"Running\":2,\"Succeeded\":1}}}}}",
        0, NULL);
    REQUIRE(vj != NULL);
    json_t *st = training_render_status(NULL, vj);
    CHECK(json_is_text(st,
                       "{\"completionTime\":\"2026-11-23T10:00:05Z\",\"job\":\"mnist\",\"message\":\"retryCount "
                       "reached maxRetry\",\"phase\":\"Failed\",\"reason\":\"RestartJob\",\"retryCount\":3,"
                       "\"startTime\":\"2026-11-23T10:00:00Z\",\"tasks\":{\"master\":{\"failed\":1,\"pending\":0,"
                       "\"running\":0,\"succeeded\":0},\"worker\":{\"failed\":0,\"pending\":0,\"running\":2,"
                       "\"succeeded\":1}}}"));
    json_decref(st);
    /* running: no completion time */
    json_object_set_new(json_object_get(json_object_get(vj, "status"), "state"), "phase", json_string("Running"));
    st = training_render_status(NULL, vj);
    CHECK(json_object_get(st, "completionTime") == NULL);
    CHECK_STR(json_string_value(json_object_get(st, "phase")), "Running");
    json_decref(st);
    json_decref(vj);
}

/* The whole round: the accepted request rendered in its own shape with the Volcano Job's status. */
static void render_shows_the_request_with_status(void)
{
    struct adapted a;
    adapt("{\"name\":\"mnist\",\"framework\":\"pytorch\",\"command\":[\"python\",\"t.py\"],\"workers\":2}", INTAKE_JSON,
          &a);
    REQUIRE(a.rc == 0);
    const struct dialect *d = dialect_of_source(a.job->source);
    REQUIRE(d != NULL);
    CHECK(d->answer_as_volcano);
    json_t *vj = json_pack("{s:{s:s,s:s},s:O,s:{s:{s:s},s:i,s:{}}}", "metadata", "name", "mnist", "uid", "u-1", "spec",
                           json_object_get(job_manifest(a.job), "spec"), "status", "state", "phase", "Pending",
                           "retryCount", 0, "taskStatusCount");
    json_t *obj = dialect_render(d, a.job->source, vj);
    REQUIRE(obj != NULL);
    CHECK_STR(json_string_value(json_object_get(obj, "kind")), "Training");
    CHECK_STR(json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid")), "u-1");
    CHECK_STR(json_string_value(json_object_get(obj, "framework")), "pytorch");
    CHECK(
        json_is_text(json_object_get(json_object_get(obj, "status"), "tasks"),
                     "{\"master\":{\"failed\":0,\"pending\":0,\"running\":0,\"succeeded\":0},\"worker\":{\"failed\":0,"
                     "\"pending\":0,\"running\":0,\"succeeded\":0}}"));
    json_decref(obj);
    json_decref(vj);
    adapted_free(&a);
}

TEST_MAIN(TEST_CASE(pytorch_master_and_workers), TEST_CASE(pytorch_single_worker_is_a_master_alone),
          TEST_CASE(tensorflow_workers_and_ps), TEST_CASE(mpi_launcher_and_waiting_workers),
          TEST_CASE(horovod_runs_horovodrun_over_mpi_hosts), TEST_CASE(spark_driver_and_executors),
          TEST_CASE(ray_head_workers_and_driver), TEST_CASE(batch_shards_by_index),
          TEST_CASE(defaults_name_and_metadata), TEST_CASE(fields_reach_the_volcano_job),
          TEST_CASE(errors_name_the_request_fields), TEST_CASE(resource_errors_have_paths_and_lines),
          TEST_CASE(volcano_causes_use_request_paths), TEST_CASE(status_from_the_volcano_job),
          TEST_CASE(render_shows_the_request_with_status))
