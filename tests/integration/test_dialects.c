/* Other dialects end to end on a real server: each framework's object posted at its own path runs
 * as a Volcano Job whose tasks print their environment; the object reads back in its own shape,
 * as the Volcano Job behind it, and as a manifest, the same after a restart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define NS "/namespaces/default"
#define PYTORCHJOBS "/apis/kubeflow.org/v1" NS "/pytorchjobs"
#define TFJOBS "/apis/kubeflow.org/v1" NS "/tfjobs"
#define MPIJOBS "/apis/kubeflow.org/v1" NS "/mpijobs"
#define RAYJOBS "/apis/ray.io/v1" NS "/rayjobs"
#define SPARKAPPS "/apis/sparkoperator.k8s.io/v1beta2" NS "/sparkapplications"
#define TRAININGS "/apis/caldera.io/v1" NS "/trainings"
#define PODS "/api/v1" NS "/pods"
#define WAIT_MS 30000

static struct test_server server;
static bool server_up;

/* Prints the variables the frameworks set, one per line, and the svc plugin's host files; lingers a
 * second as a real trainer would (the master's end completes the job). */
#define PRINT_ENV                                                                                              \
    "'env | grep -E \"^(MASTER_ADDR|MASTER_PORT|RANK|WORLD_SIZE|TF_CONFIG|MPI_HOST|VC_TASK_INDEX)=\" | sort; " \
    "cat \"$VC_CONFIG_DIR\"/*.host 2>/dev/null; sleep 1; true'"

/* The same command as a JSON string (for the training request). */
#define PRINT_ENV_JSON "\"env | grep -E '^(MASTER_ADDR|MASTER_PORT|RANK|WORLD_SIZE)=' | sort; sleep 1\""

static bool start(void)
{
    if (server_up)
        return true;
    static const char *const args[] = {"--nodes", "examples/nodes.yaml", NULL};
    server_up = server_start(&server, NULL, args) == 0;
    return server_up;
}

static json_t *post(const char *path, const char *body, const char *content_type, long *code)
{
    return server_request(&server, "POST", path, body, content_type, code);
}

/* Posts yaml to path and checks it was created (201): the answer (caller frees). */
static json_t *create(const char *path, const char *yaml)
{
    long code = 0;
    json_t *created = post(path, yaml, "application/yaml", &code);
    CHECK_INT(code, 201);
    return created;
}

/* The log of a pod, or NULL (caller frees). */
static char *pod_log(const char *pod)
{
    char path[256];
    snprintf(path, sizeof path, PODS "/%s/log", pod);
    long code = 0;
    char *text = server_request_text(&server, "GET", path, &code);
    if (code != 200) {
        free(text);
        return NULL;
    }
    return text;
}

/* Waits for the Volcano Job behind a dialect's object to reach phase. */
static int wait_volcano_phase(const char *name, const char *phase)
{
    char path[256];
    snprintf(path, sizeof path, JOBS "/%s", name);
    return server_wait_field(&server, path, "status.state.phase", phase, WAIT_MS);
}

/* The log of pod, which must contain each needle. */
static void check_log(const char *pod, const char *const *needles)
{
    char *log = pod_log(pod);
    if (!log) {
        test_fail(__FILE__, __LINE__, "%s: no log", pod);
        return;
    }
    for (const char *const *n = needles; *n; n++)
        if (!strstr(log, *n))
            test_fail(__FILE__, __LINE__, "%s: the log lacks \"%s\"; it is:\n%s", pod, *n, log);
    free(log);
}

static const char pytorchjob[] =
    "apiVersion: kubeflow.org/v1\n"
    "kind: PyTorchJob\n"
    "metadata:\n"
    "  name: mnist\n"
    "spec:\n"
    "  pytorchReplicaSpecs:\n"
    "    Master:\n"
    "      replicas: 1\n"
    "      restartPolicy: OnFailure\n"
    "      template:\n"
    "        spec:\n"
    "          containers:\n"
    "          - name: pytorch\n"
    "            image: docker.io/kubeflowkatib/pytorch-mnist:v1beta1\n"
    "            command: [sh, -c, " PRINT_ENV
    "]\n"
    "    Worker:\n"
    "      replicas: 2\n"
    "      restartPolicy: OnFailure\n"
    "      template:\n"
    "        spec:\n"
    "          containers:\n"
    "          - name: pytorch\n"
    "            image: docker.io/kubeflowkatib/pytorch-mnist:v1beta1\n"
    "            command: [sh, -c, " PRINT_ENV "]\n";

static void pytorchjob_runs_with_the_pytorch_wiring(void)
{
    REQUIRE(start());
    json_t *created = create(PYTORCHJOBS, pytorchjob);
    CHECK_STR(jv_str(created, "kind"), "PyTorchJob");
    json_decref(created);
    REQUIRE(wait_volcano_phase("mnist", "Completed") == 0);
    check_log("mnist-master-0",
              (const char *const[]){"MASTER_ADDR=mnist-master-0.mnist\n", "MASTER_PORT=", "RANK=0\n", "WORLD_SIZE=3\n",
                                    /* the svc plugin's $VC_CONFIG_DIR/worker.host */
                                    "mnist-worker-0.mnist\nmnist-worker-1.mnist", NULL});
    check_log("mnist-worker-0",
              (const char *const[]){"MASTER_ADDR=mnist-master-0.mnist\n", "RANK=1\n", "WORLD_SIZE=3\n", NULL});
    check_log("mnist-worker-1", (const char *const[]){"RANK=2\n", "WORLD_SIZE=3\n", NULL});
    /* its own shape, with a Kubeflow status */
    long code = 0;
    json_t *obj = server_request(&server, "GET", PYTORCHJOBS "/mnist", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(obj, "kind"), "PyTorchJob");
    CHECK(jv_at(obj, "spec.pytorchReplicaSpecs.Worker") != NULL);
    CHECK(jv_str(obj, "metadata.uid") != NULL);
    json_t *conditions = jv_at(obj, "status.conditions");
    const char *last = jv_str(conditions, "0.type")
                           ? jv_str(json_array_get(conditions, json_array_size(conditions) - 1), "type")
                           : NULL;
    CHECK_STR(last, "Succeeded");
    CHECK_INT(jv_num(obj, "status.replicaStatuses.Master.succeeded"), 1);
    json_decref(obj);
    /* the Volcano Job behind it, at the dialect's path and at the Volcano path */
    obj = server_request(&server, "GET", PYTORCHJOBS "/mnist?as=volcano", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(obj, "kind"), "Job");
    CHECK_STR(jv_str(obj, "spec.tasks.0.name"), "master");
    json_decref(obj);
    obj = job_get(&server, "mnist");
    CHECK_STR(jv_str(obj, "kind"), "Job");
    json_decref(obj);
}

/* A replica spec of kind `type` (Kubeflow's capitalised name), n replicas, container c. */
#define REPLICAS(type, n, container)                            \
    "    " type ":\n      replicas: " #n                        \
    "\n      template:\n        spec:\n          containers:\n" \
    "          - name: " container "\n            command: [sh, -c, " PRINT_ENV "]\n"

static void tfjob_gets_tf_config(void)
{
    REQUIRE(start());
    json_decref(create(TFJOBS,
                       "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: dist}\nspec:\n"
                       "  tfReplicaSpecs:\n" REPLICAS("PS", 1, "tensorflow") REPLICAS("Worker", 2, "tensorflow")));
    REQUIRE(wait_volcano_phase("dist", "Completed") == 0);
    check_log("dist-worker-1",
              (const char *const[]){"TF_CONFIG=", "\"ps\":[\"dist-ps-0.dist:", "\"worker\":[\"dist-worker-0.dist:",
                                    "\"type\":\"worker\"", "\"index\":1", NULL});
    check_log("dist-ps-0", (const char *const[]){"\"type\":\"ps\"", "\"index\":0", NULL});
}

static void mpijob_launcher_gets_the_worker_hosts(void)
{
    REQUIRE(start());
    json_decref(create(MPIJOBS,
                       "apiVersion: kubeflow.org/v1\nkind: MPIJob\nmetadata: {name: pi}\nspec:\n"
                       "  mpiReplicaSpecs:\n" REPLICAS("Launcher", 1, "launcher") REPLICAS("Worker", 2, "worker")));
    REQUIRE(wait_volcano_phase("pi", "Completed") == 0);
    check_log("pi-launcher-0", (const char *const[]){"MPI_HOST=pi-worker-0.pi,pi-worker-1.pi\n", NULL});
}

/* Stand-ins for the tools a RayJob's and a SparkApplication's tasks run (neither Ray nor Spark is
 * installed here): each says how it was called and with what environment, and a cluster process
 * (ray start, Spark's executor backend) stays up as the real one does until the job stops it. */
static char tools_dir[64];

static bool write_tool(const char *name, const char *body)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", tools_dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fprintf(f, "#!/bin/sh\necho \"%s $*\"\nenv | grep -E '^(SPARK_|RAY_)' | sort\n%s", name, body);
    fclose(f);
    return chmod(path, 0755) == 0;
}

static void remove_tools(void)
{
    static const char *const names[] = {"ray", "spark-submit", "spark-class", "horovodrun"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", tools_dir, names[i]);
        unlink(path);
    }
    rmdir(tools_dir);
}

static bool make_tools(void)
{
    if (tools_dir[0])
        return true;
    snprintf(tools_dir, sizeof tools_dir, "/tmp/caldera-tools-XXXXXX");
    if (!mkdtemp(tools_dir))
        return false;
    atexit(remove_tools);
    return write_tool("ray",
                      "case \"$1\" in\n"
                      "start) exec sleep 60 ;;\n"
                      "job) if [ \"$2\" = submit ]; then\n"
                      "  while [ $# -gt 0 ] && [ \"$1\" != -- ]; do shift; done; shift; exec \"$@\"\n"
                      "fi ;;\n"
                      "esac\n") &&
           write_tool("spark-submit", "sleep 1\n") && write_tool("spark-class", "exec sleep 60\n") &&
           write_tool("horovodrun", "exit 0\n");
}

/* A container's env line putting the stand-ins first on PATH. */
static const char *tools_path_env(void)
{
    static char env[256];
    snprintf(env, sizeof env, "[{name: PATH, value: \"%s:/usr/bin:/bin\"}]", tools_dir);
    return env;
}

static void rayjob_runs_head_workers_and_the_submitter(void)
{
    REQUIRE(start());
    REQUIRE(make_tools());
    char yaml[4096];
    const char *env = tools_path_env();
    snprintf(yaml, sizeof yaml,
             "apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {name: rj}\nspec:\n"
             "  entrypoint: echo entrypoint-ran\n  shutdownAfterJobFinishes: true\n"
             "  submitterPodTemplate:\n    spec:\n      containers:\n      - name: submit\n        env: %s\n"
             "  rayClusterSpec:\n    headGroupSpec:\n      rayStartParams: {}\n      template:\n        spec:\n"
             "          containers:\n          - name: ray-head\n            env: %s\n"
             "    workerGroupSpecs:\n    - groupName: small\n      replicas: 2\n      template:\n        spec:\n"
             "          containers:\n          - name: ray-worker\n            env: %s\n",
             env, env, env);
    json_t *created = create(RAYJOBS, yaml);
    CHECK_STR(jv_str(created, "kind"), "RayJob");
    json_decref(created);
    REQUIRE(wait_volcano_phase("rj", "Completed") == 0);
    check_log("rj-head-0", (const char *const[]){"ray start --head", NULL});
    check_log("rj-small-1", (const char *const[]){"ray start", "--address=rj-head-0.rj:6379", NULL});
    check_log("rj-submitter-0",
              (const char *const[]){"ray job submit --address http://rj-head-0.rj:8265", "entrypoint-ran\n", NULL});
    long code = 0;
    json_t *obj = server_request(&server, "GET", RAYJOBS "/rj", NULL, NULL, &code);
    CHECK_STR(jv_str(obj, "status.jobStatus"), "SUCCEEDED");
    CHECK_STR(jv_str(obj, "status.dashboardURL"), "rj-head-0.rj:8265");
    json_decref(obj);
}

static void sparkapplication_runs_a_driver_and_its_executors(void)
{
    REQUIRE(start());
    REQUIRE(make_tools());
    char yaml[4096];
    const char *env = tools_path_env();
    snprintf(yaml, sizeof yaml,
             "apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\nmetadata: {name: sp}\nspec:\n"
             "  type: Scala\n  mode: cluster\n  image: spark:3.5.3\n"
             "  mainClass: org.apache.spark.examples.SparkPi\n"
             "  mainApplicationFile: local:///opt/spark/examples/jars/spark-examples.jar\n"
             "  arguments: [\"100\"]\n  sparkVersion: 3.5.3\n"
             "  driver: {cores: 1, memory: 512m, env: %s}\n"
             "  executor: {instances: 2, cores: 1, memory: 512m, env: %s}\n",
             env, env);
    json_decref(create(SPARKAPPS, yaml));
    REQUIRE(wait_volcano_phase("sp", "Completed") == 0);
    check_log("sp-driver-0", (const char *const[]){"spark-submit", "--class org.apache.spark.examples.SparkPi",
                                                   "spark.driver.host=sp-driver-0.sp", NULL});
    check_log("sp-executor-1",
              (const char *const[]){"spark-class org.apache.spark.executor.CoarseGrainedExecutorBackend",
                                    "--executor-id 2", "SPARK_DRIVER_URL=", NULL});
    long code = 0;
    json_t *obj = server_request(&server, "GET", SPARKAPPS "/sp", NULL, NULL, &code);
    CHECK_STR(jv_str(obj, "status.applicationState.state"), "COMPLETED");
    json_decref(obj);
}

/* The training request: the answer is the Volcano Job it became; GET shows the request. */
static void training_requests_become_volcano_jobs(void)
{
    REQUIRE(start());
    long code = 0;
    json_t *job = post(TRAININGS,
                       "{\"name\":\"tp\",\"framework\":\"pytorch\",\"workers\":3,"
                       "\"command\":[\"sh\",\"-c\"," PRINT_ENV_JSON "]}",
                       "application/json", &code);
    CHECK_INT(code, 201);
    CHECK_STR(jv_str(job, "kind"), "Job");
    CHECK_STR(jv_str(job, "apiVersion"), "batch.volcano.sh/v1alpha1");
    json_decref(job);
    job = post(TRAININGS,
               "{\"name\":\"tb\",\"workers\":3,"
               "\"command\":[\"sh\",\"-c\",\"echo shard $CALDERA_SHARD_INDEX of $CALDERA_SHARD_COUNT\"]}",
               "application/json", &code);
    CHECK_INT(code, 201);
    json_decref(job);
    REQUIRE(wait_volcano_phase("tp", "Completed") == 0);
    check_log("tp-master-0", (const char *const[]){"RANK=0\n", "WORLD_SIZE=3\n", "MASTER_ADDR=tp-master-0.tp\n", NULL});
    check_log("tp-worker-1", (const char *const[]){"RANK=2\n", "WORLD_SIZE=3\n", NULL});
    REQUIRE(wait_volcano_phase("tb", "Completed") == 0);
    check_log("tb-worker-0", (const char *const[]){"shard 0 of 3\n", NULL});
    check_log("tb-worker-2", (const char *const[]){"shard 2 of 3\n", NULL});
    json_t *obj = server_request(&server, "GET", TRAININGS "/tb", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(obj, "kind"), "Training");
    CHECK_STR(jv_str(obj, "status.phase"), "Completed");
    json_decref(obj);
}

/* The training request's other distributed frameworks: TF_CONFIG for tensorflow, MPI_HOST for mpi,
 * and horovodrun's host list (a stand-in horovodrun prints how it was called). */
static void training_frameworks_get_their_wiring(void)
{
    REQUIRE(start());
    REQUIRE(make_tools());
    char body[1024];
    long code = 0;
    json_decref(post(TRAININGS,
                     "{\"name\":\"ttf\",\"framework\":\"tensorflow\",\"workers\":2,\"ps\":1,"
                     "\"command\":[\"sh\",\"-c\",\"echo TF_CONFIG=$TF_CONFIG\"]}",
                     "application/json", &code));
    CHECK_INT(code, 201);
    json_decref(post(TRAININGS,
                     "{\"name\":\"tmpi\",\"framework\":\"mpi\",\"workers\":2,"
                     "\"command\":[\"sh\",\"-c\",\"echo MPI_HOST=$MPI_HOST\"]}",
                     "application/json", &code));
    CHECK_INT(code, 201);
    snprintf(body, sizeof body,
             "{\"name\":\"thvd\",\"framework\":\"horovod\",\"workers\":2,\"slotsPerWorker\":2,"
             "\"env\":{\"PATH\":\"%s:/usr/bin:/bin\"},\"command\":[\"python\",\"train.py\"]}",
             tools_dir);
    json_decref(post(TRAININGS, body, "application/json", &code));
    CHECK_INT(code, 201);
    REQUIRE(wait_volcano_phase("ttf", "Completed") == 0);
    check_log("ttf-worker-1", (const char *const[]){"TF_CONFIG=", "\"ps\":[\"ttf-ps-0.ttf:", "\"type\":\"worker\"",
                                                    "\"index\":1", NULL});
    REQUIRE(wait_volcano_phase("tmpi", "Completed") == 0);
    check_log("tmpi-master-0", (const char *const[]){"MPI_HOST=tmpi-worker-0.tmpi,tmpi-worker-1.tmpi\n", NULL});
    REQUIRE(wait_volcano_phase("thvd", "Completed") == 0);
    check_log(
        "thvd-master-0",
        (const char *const[]){"horovodrun -np 4 -H thvd-worker-0.thvd:2,thvd-worker-1.thvd:2 python train.py", NULL});
}

/* One file with a Queue and a PyTorchJob in it (as Volcano's examples keep queues and jobs together): jobctl
 * sends each document to the path of its kind. */
static void jobctl_submits_a_queue_and_a_pytorchjob_from_one_file(void)
{
    REQUIRE(start());
    char path[] = "/tmp/caldera-dialects-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    const char text[] =
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: research}\n"
        "spec: {weight: 2}\n---\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\n"
        "metadata: {name: ptq}\nspec:\n  runPolicy:\n    schedulingPolicy: {queue: research}\n"
        "  pytorchReplicaSpecs:\n" REPLICAS("Master", 1, "pytorch");
    CHECK_INT(write(fd, text, sizeof text - 1), (long)(sizeof text - 1));
    close(fd);
    char *out = NULL, *err = NULL;
    CHECK_INT(server_jobctl(&server, (const char *const[]){"submit", path, NULL}, &out, &err), 0);
    CHECK_STR(out, "queue.scheduling.volcano.sh/research created\npytorchjob.kubeflow.org/ptq created\n");
    json_t *job = job_get(&server, "ptq");
    CHECK_STR(jv_str(job, "spec.queue"), "research");
    json_decref(job);
    unlink(path);
    free(out);
    free(err);
}

/* Lists at a dialect's path hold only its objects; its paths do not see other jobs; the Volcano Job
 * behind a dialect's object cannot be replaced; an unknown plural is a 404. */
static void each_path_sees_its_own_objects(void)
{
    REQUIRE(start());
    REQUIRE(job_submit(&server, "plain", "", TASK("t", 1, "", "'true'", "")) == 201);
    long code = 0;
    json_t *list = server_request(&server, "GET", PYTORCHJOBS, NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(list, "kind"), "PyTorchJobList");
    for (size_t i = 0; i < json_array_size(jv_at(list, "items")); i++)
        CHECK_STR(jv_str(json_array_get(jv_at(list, "items"), i), "kind"), "PyTorchJob");
    json_decref(list);
    json_decref(server_request(&server, "GET", PYTORCHJOBS "/plain", NULL, NULL, &code));
    CHECK_INT(code, 404);
    list = server_request(&server, "GET", "/apis/kubeflow.org/v1/tfjobs", NULL, NULL, &code); /* every namespace */
    CHECK_INT(code, 200);
    CHECK_INT(json_array_size(jv_at(list, "items")), 1);
    CHECK_STR(jv_str(list, "items.0.kind"), "TFJob");
    CHECK_STR(jv_str(list, "items.0.metadata.name"), "dist");
    json_decref(list);
    list = server_request(&server, "GET", JOBS, NULL, NULL, &code); /* every job is a Volcano Job */
    CHECK_INT(json_array_size(jv_at(list, "items")), 4);            /* mnist, dist, pi, plain */
    json_decref(list);
    json_decref(server_request(&server, "GET", "/apis/kubeflow.org/v1" NS "/xgboostjobs", NULL, NULL, &code));
    CHECK_INT(code, 404);
    json_decref(server_request(&server, "GET", PYTORCHJOBS "/mnist?as=yaml", NULL, NULL, &code));
    CHECK_INT(code, 400);
    json_t *volcano = job_get(&server, "mnist");
    json_object_del(volcano, "status");
    char *body = json_dumps(volcano, JSON_COMPACT);
    json_t *status = server_request(&server, "PUT", JOBS "/mnist", body, NULL, &code);
    CHECK_INT(code, 409);
    CHECK_CONTAINS(jv_str(status, "message"), "was submitted as a PyTorchJob (kubeflow.org/v1)");
    free(body);
    json_decref(status);
    json_decref(volcano);
}

/* A bad value inside a replica's template is named by the user's path and line. */
static void errors_name_the_users_field_and_line(void)
{
    REQUIRE(start());
    char bad[sizeof pytorchjob + 64];
    snprintf(bad, sizeof bad, "%s", pytorchjob);
    char *name = strstr(bad, "name: mnist");
    REQUIRE(name != NULL);
    memcpy(name, "name: mnisx", 11);
    char *worker = strstr(bad, "    Worker:");
    REQUIRE(worker != NULL);
    char *image = strstr(worker, "            image:");
    REQUIRE(image != NULL);
    /* the Worker's image line becomes a limits block with a bad quantity (line 22 onwards) */
    char tail[2048];
    snprintf(tail, sizeof tail, "%s", strstr(image, "            command:"));
    snprintf(image, sizeof bad - (size_t)(image - bad), "            resources: {limits: {memory: 1.5GG}}\n%s", tail);
    long code = 0;
    json_t *st = post(PYTORCHJOBS, bad, "application/yaml", &code);
    CHECK_INT(code, 422);
    CHECK_STR(jv_str(st, "kind"), "Status");
    CHECK_CONTAINS(jv_str(st, "message"),
                   "PyTorchJob.kubeflow.org \"mnisx\" is invalid: "
                   "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.limits"
                   ".memory: invalid quantity \"1.5GG\"");
    CHECK_CONTAINS(jv_str(st, "message"), "(line 23, column 42)");
    json_decref(st);
}

/* What the core refuses (a queue that does not exist, a name taken) is said in the object's words. */
static void admission_errors_name_the_users_field(void)
{
    REQUIRE(start());
    long code = 0;
    json_t *st = post(
        PYTORCHJOBS,
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: qx}\nspec:\n  runPolicy:\n"
        "    schedulingPolicy: {queue: nosuch}\n  pytorchReplicaSpecs:\n" REPLICAS("Master", 1, "pytorch"),
        "application/yaml", &code);
    CHECK_INT(code, 422);
    CHECK_STR(jv_str(st, "message"),
              "PyTorchJob.kubeflow.org \"qx\" is invalid: spec.runPolicy.schedulingPolicy.queue: "
              "Not found: \"nosuch\": no such queue (line 6, column 31)");
    CHECK_STR(jv_str(st, "details.kind"), "PyTorchJob");
    json_decref(st);
    st = post(TRAININGS, "{\"name\":\"tq\",\"queue\":\"nosuch\",\"command\":[\"true\"]}", "application/json", &code);
    CHECK_INT(code, 422);
    CHECK_CONTAINS(jv_str(st, "message"), "Training.caldera.io \"tq\" is invalid: queue: Not found");
    json_decref(st);
    st = post(PYTORCHJOBS, pytorchjob, "application/yaml", &code); /* mnist exists */
    CHECK_INT(code, 409);
    CHECK_CONTAINS(jv_str(st, "message"), "pytorchjobs.kubeflow.org \"mnist\" already exists");
    json_decref(st);
}

/* After a restart the object reads the same in every view (a finished job wakes from the database
 * with its source); the manifest's bytes do not change. */
static void every_view_survives_a_restart(void)
{
    REQUIRE(start());
    REQUIRE(wait_volcano_phase("mnist", "Completed") == 0);
    long code = 0;
    char *manifest = server_request_text(&server, "GET", "/apis/caldera.io/v1" NS "/jobs/mnist/manifest", &code);
    CHECK_INT(code, 200);
    json_t *before = server_request(&server, "GET", PYTORCHJOBS "/mnist", NULL, NULL, &code);
    REQUIRE(server_stop(&server) == 0);
    REQUIRE(server_start(&server, server.data_dir, (const char *const[]){"--nodes", "examples/nodes.yaml", NULL}) == 0);
    json_t *after = server_request(&server, "GET", PYTORCHJOBS "/mnist", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(after, "kind"), "PyTorchJob");
    CHECK(json_equal(jv_at(before, "spec"), jv_at(after, "spec")));
    CHECK_STR(jv_str(after, "metadata.uid"), jv_str(before, "metadata.uid"));
    char *again = server_request_text(&server, "GET", "/apis/caldera.io/v1" NS "/jobs/mnist/manifest", &code);
    CHECK_INT(code, 200);
    CHECK(manifest && again && strcmp(manifest, again) == 0);
    json_t *m = again ? json_loads(again, 0, NULL) : NULL;
    CHECK_STR(jv_str(m, "apiVersion"), "batch.volcano.sh/v1alpha1");
    CHECK(jv_at(m, "metadata.uid") == NULL && jv_at(m, "status") == NULL);
    json_decref(m);
    free(manifest);
    free(again);
    json_decref(before);
    json_decref(after);
}

/* A PyTorchJob whose master ends first: by the operator's default (cleanPodPolicy None) the job
 * Succeeds and its running worker is left to finish, listed Running; with Running it is stopped. */
static void clean_pod_policy_decides_the_workers_fate(void)
{
    static const char fmt[] =
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: %s\nspec:\n%s"
        "  pytorchReplicaSpecs:\n"
        "    Master:\n      restartPolicy: Never\n      template:\n        spec:\n"
        "          containers:\n          - name: pytorch\n            command: [\"true\"]\n"
        "    Worker:\n      replicas: 1\n      restartPolicy: Never\n      template:\n"
        "        spec:\n          terminationGracePeriodSeconds: 1\n"
        "          containers:\n          - name: pytorch\n"
        "            command: [sleep, \"60\"]\n";
    REQUIRE(start());
    char doc[2048];
    snprintf(doc, sizeof doc, fmt, "keep", "");
    json_decref(create(PYTORCHJOBS, doc));
    REQUIRE(wait_volcano_phase("keep", "Completed") == 0);
    long code = 0;
    json_t *pod = server_request(&server, "GET", "/api/v1/namespaces/default/pods/keep-worker-0", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(pod, "status.phase"), "Running");
    json_decref(pod);
    snprintf(doc, sizeof doc, fmt, "stop", "  runPolicy:\n    cleanPodPolicy: Running\n");
    json_decref(create(PYTORCHJOBS, doc));
    REQUIRE(wait_volcano_phase("stop", "Completed") == 0);
    pod = server_request(&server, "GET", "/api/v1/namespaces/default/pods/stop-worker-0", NULL, NULL, &code);
    CHECK_INT(code, 404); /* stopped and gone, as the operator deletes it */
    json_decref(pod);
    pod = server_request(&server, "GET", "/api/v1/namespaces/default/pods/stop-master-0", NULL, NULL, &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(pod, "status.phase"), "Succeeded");
    json_decref(pod);
    /* gone again, so the later cases count only their own objects */
    json_decref(server_request(&server, "DELETE", PYTORCHJOBS "/keep", NULL, NULL, &code));
    CHECK_INT(code, 200);
    json_decref(server_request(&server, "DELETE", PYTORCHJOBS "/stop", NULL, NULL, &code));
    CHECK_INT(code, 200);
}

TEST_MAIN(TEST_CASE(pytorchjob_runs_with_the_pytorch_wiring), TEST_CASE(clean_pod_policy_decides_the_workers_fate),
          TEST_CASE(tfjob_gets_tf_config), TEST_CASE(mpijob_launcher_gets_the_worker_hosts),
          TEST_CASE(each_path_sees_its_own_objects), TEST_CASE(jobctl_submits_a_queue_and_a_pytorchjob_from_one_file),
          TEST_CASE(rayjob_runs_head_workers_and_the_submitter),
          TEST_CASE(sparkapplication_runs_a_driver_and_its_executors), TEST_CASE(training_requests_become_volcano_jobs),
          TEST_CASE(training_frameworks_get_their_wiring), TEST_CASE(errors_name_the_users_field_and_line),
          TEST_CASE(admission_errors_name_the_users_field), TEST_CASE(every_view_survives_a_restart))
