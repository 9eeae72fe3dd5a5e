/* The Kubeflow dialects: PyTorchJob, TFJob and MPIJob become Volcano Jobs with their tasks, framework
 * plugins, restart policies and runPolicy; causes name the user's fields and lines; status reads back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "adapters/intake/intake.h"
#include "scheduler/controller/job_plugins/job_plugins.h"
#include "tests/lib/test.h"

/* A parsed document and what became of it. */
struct adapted {
    struct intake in;
    struct api_status st;
    struct job *job;
    int rc;
};

static void adapt(struct adapted *a, const char *yaml)
{
    memset(a, 0, sizeof *a);
    a->rc = intake_parse(yaml, strlen(yaml), INTAKE_YAML, &a->in, &a->st);
    if (a->rc != 0)
        return;
    const json_t *root = a->in.docs[0].root;
    const struct dialect *d = dialect_by_kind(json_string_value(json_object_get(root, "apiVersion")),
                                              json_string_value(json_object_get(root, "kind")));
    a->rc = d ? dialect_job_from_doc(d, &a->in.docs[0], "team-a", &a->job, &a->st) : -1;
}

static void release(struct adapted *a)
{
    job_free(a->job);
    intake_free(&a->in);
}

static json_t *vspec(const struct adapted *a) { return json_object_get(job_manifest(a->job), "spec"); }
static json_t *vtask(const struct adapted *a, size_t i)
{
    return json_array_get(json_object_get(vspec(a), "tasks"), i);
}

/* The plugin's arguments joined by spaces. */
static void plugin_args(const struct adapted *a, const char *plugin, char *out, size_t len)
{
    json_t *args = json_object_get(json_object_get(vspec(a), "plugins"), plugin);
    out[0] = 0;
    size_t i;
    json_t *v;
    json_array_foreach(args, i, v)
    {
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? " " : "", json_string_value(v));
    }
}

static const char *const pytorch_job =
    "apiVersion: kubeflow.org/v1\n"              /* 1 */
    "kind: PyTorchJob\n"                         /* 2 */
    "metadata:\n"                                /* 3 */
    "  name: mnist\n"                            /* 4 */
    "  labels: {team: vision}\n"                 /* 5 */
    "spec:\n"                                    /* 6 */
    "  pytorchReplicaSpecs:\n"                   /* 7 */
    "    Worker:\n"                              /* 8 */
    "      replicas: 3\n"                        /* 9 */
    "      template:\n"                          /* 10 */
    "        spec:\n"                            /* 11 */
    "          containers:\n"                    /* 12 */
    "          - name: pytorch\n"                /* 13 */
    "            command: [python, train.py]\n"  /* 14 */
    "    Master:\n"                              /* 15 */
    "      template:\n"                          /* 16 */
    "        spec:\n"                            /* 17 */
    "          containers:\n"                    /* 18 */
    "          - name: pytorch\n"                /* 19 */
    "            command: [python, train.py]\n"; /* 20 */

static void pytorch_tasks_share_the_templates_master_first(void)
{
    struct adapted a;
    adapt(&a, pytorch_job);
    REQUIRE(a.rc == 0);
    CHECK_INT(a.job->ntasks, 2);
    CHECK_STR(a.job->tasks[0].name, "master");
    CHECK_STR(a.job->tasks[1].name, "worker");
    CHECK_INT(a.job->tasks[0].replicas, 1); /* Kubeflow's default */
    CHECK_INT(a.job->tasks[1].replicas, 3);
    CHECK_INT(a.job->min_available, 4);
    /* the posted document (the job keeps a copy of it as admitted, job->source) */
    json_t *specs = json_object_get(json_object_get(a.in.docs[0].root, "spec"), "pytorchReplicaSpecs");
    /* the very template objects, not copies */
    CHECK(json_object_get(vtask(&a, 0), "template") == json_object_get(json_object_get(specs, "Master"), "template"));
    CHECK(json_object_get(vtask(&a, 1), "template") == json_object_get(json_object_get(specs, "Worker"), "template"));
    /* Kubeflow's defaults written into the source, as its admission writes them */
    CHECK_INT(json_integer_value(json_object_get(json_object_get(specs, "Master"), "replicas")), 1);
    CHECK_STR(json_string_value(json_object_get(json_object_get(specs, "Master"), "restartPolicy")), "OnFailure");
    /* metadata copied, not shared */
    json_t *slabels = json_object_get(json_object_get(a.job->source, "metadata"), "labels");
    json_t *vlabels = json_object_get(json_object_get(job_manifest(a.job), "metadata"), "labels");
    CHECK(vlabels && vlabels != slabels && json_equal(vlabels, slabels));
    char args[256];
    plugin_args(&a, "pytorch", args, sizeof args);
    CHECK_STR(args, "--master=master --worker=worker"); /* port: the plugin's default, 23456 as Kubeflow's */
    CHECK(json_object_get(json_object_get(vspec(&a), "plugins"), "svc") != NULL); /* Volcano's admission adds it */
    release(&a);
}

/* The operator's cleanPodPolicy reaches the Volcano Job as caldera.io/clean-pod-policy, None when
 * unset (the operator's default for every kind), the kind's own field or runPolicy's when set. */
static void clean_pod_policy_defaults_to_none(void)
{
    struct adapted a;
    adapt(&a, pytorch_job);
    REQUIRE(a.rc == 0);
    json_t *annotations = json_object_get(json_object_get(job_manifest(a.job), "metadata"), "annotations");
    CHECK_STR(json_string_value(json_object_get(annotations, "caldera.io/clean-pod-policy")), "None");
    CHECK_INT(a.job->clean_pods, CLEAN_PODS_NONE);
    release(&a);

    char doc[2048];
    snprintf(doc, sizeof doc, "%s", pytorch_job);
    char *spec = strstr(doc, "spec:\n") + strlen("spec:\n");
    memmove(spec + strlen("  runPolicy: {cleanPodPolicy: All}\n"), spec, strlen(spec) + 1);
    memcpy(spec, "  runPolicy: {cleanPodPolicy: All}\n", strlen("  runPolicy: {cleanPodPolicy: All}\n"));
    adapt(&a, doc);
    REQUIRE(a.rc == 0);
    CHECK_INT(a.job->clean_pods, CLEAN_PODS_ALL);
    release(&a);
}

static void pytorch_declared_port_is_master_port(void)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, "%s            ports: [{name: pytorchjob-port, containerPort: 29500}]\n", pytorch_job);
    struct adapted a;
    adapt(&a, yaml);
    REQUIRE(a.rc == 0);
    char args[256];
    plugin_args(&a, "pytorch", args, sizeof args);
    CHECK_STR(args, "--master=master --worker=worker --port=29500");
    release(&a);
    snprintf(yaml, sizeof yaml, "%s            ports: [{name: pytorchjob-port, containerPort: 70000}]\n", pytorch_job);
    adapt(&a, yaml);
    CHECK(a.rc != 0);
    CHECK_CONTAINS(a.st.message,
                   "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].ports[0].containerPort: "
                   "Invalid value: 70000: must be between 1 and 65535 (line 21, column 60)");
    release(&a);
}

/* ExitCode: 1-127 end the job, anything else restarts the pod, in the order Volcano matches them. */
static void exit_code_policies_split_permanent_and_retryable(void)
{
    struct adapted a;
    const char *with_exit_code =
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: ec}\nspec:\n  pytorchReplicaSpecs:\n"
        "    Master: {restartPolicy: Never, template: {spec: {containers: [{name: pytorch, command: [a]}]}}}\n"
        "    Worker: {replicas: 2, restartPolicy: ExitCode,\n"
        "             template: {spec: {containers: [{name: pytorch, command: [a]}]}}}\n";
    adapt(&a, with_exit_code);
    REQUIRE(a.rc == 0);
    const struct task_spec *worker = &a.job->tasks[1], *master = &a.job->tasks[0];
    CHECK_INT(worker->npolicies, 128);
    const struct lifecycle_policy *p = policy_choose(worker->policies, worker->npolicies, NULL, 0, EV_POD_FAILED, true,
                                                     3);
    CHECK(p && p->action == ACT_TERMINATE_JOB);
    p = policy_choose(worker->policies, worker->npolicies, NULL, 0, EV_POD_FAILED, true, 127);
    CHECK(p && p->action == ACT_TERMINATE_JOB);
    p = policy_choose(worker->policies, worker->npolicies, NULL, 0, EV_POD_FAILED, true, 137); /* OOM kill */
    CHECK(p && p->action == ACT_RESTART_POD);
    p = policy_choose(worker->policies, worker->npolicies, NULL, 0, EV_POD_FAILED, true, 255);
    CHECK(p && p->action == ACT_RESTART_POD);
    /* Never: a failure ends the job; the master's success completes it */
    p = policy_choose(master->policies, master->npolicies, NULL, 0, EV_POD_FAILED, true, 137);
    CHECK(p && p->action == ACT_TERMINATE_JOB);
    p = policy_choose(master->policies, master->npolicies, NULL, 0, EV_TASK_COMPLETED, false, 0);
    CHECK(p && p->action == ACT_COMPLETE_JOB);
    CHECK(policy_choose(worker->policies, worker->npolicies, NULL, 0, EV_TASK_COMPLETED, false, 0) == NULL);
    CHECK_STR(worker->restart_policy, "Never"); /* the pod restarts nothing itself */
    release(&a);
}

static void run_policy_becomes_volcano_fields(void)
{
    const char *yaml =
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: rp, annotations: {a: b}}\nspec:\n"
        "  runPolicy:\n"
        "    backoffLimit: 4\n    ttlSecondsAfterFinished: 60\n    activeDeadlineSeconds: 300\n"
        "    cleanPodPolicy: Running\n"
        "    schedulingPolicy: {minAvailable: 2, queue: q1, priorityClass: high, minResources: {cpu: 3, memory: 2Gi}}\n"
        "  pytorchReplicaSpecs:\n"
        "    Master: {template: {spec: {containers: [{name: pytorch, command: [a]}]}}}\n"
        "    Worker: {replicas: 2, restartPolicy: OnFailure, template: {spec: {restartPolicy: OnFailure, "
        "containers: [{name: pytorch, command: [a]}]}}}\n";
    struct adapted a;
    adapt(&a, yaml);
    REQUIRE(a.rc == 0);
    CHECK_INT(a.job->max_retry, 5); /* backoffLimit 4: four retries */
    CHECK_INT(a.job->tasks[0].max_retry, 5);
    CHECK_INT(a.job->ttl_seconds, 60);
    CHECK_INT(a.job->min_available, 2);
    CHECK_STR(a.job->queue, "q1");
    CHECK_STR(a.job->priority_class, "high");
    json_t *annotations = json_object_get(json_object_get(job_manifest(a.job), "metadata"), "annotations");
    CHECK_STR(json_string_value(json_object_get(annotations, "caldera.io/pod-group-min-resources")),
              "{\"cpu\":\"3\",\"memory\":\"2Gi\"}");
    CHECK_STR(json_string_value(json_object_get(annotations, "a")), "b");
    /* the source's annotations are untouched */
    CHECK_INT(json_object_size(json_object_get(json_object_get(a.job->source, "metadata"), "annotations")), 1);
    /* the deadline on every pod; the templates copied for it, their containers still shared */
    json_t *specs = json_object_get(json_object_get(a.in.docs[0].root, "spec"), "pytorchReplicaSpecs");
    for (size_t i = 0; i < 2; i++) {
        json_t *vt = json_object_get(vtask(&a, i), "template");
        json_t *st = json_object_get(json_object_get(specs, i ? "Worker" : "Master"), "template");
        CHECK(vt != st);
        CHECK_INT(json_integer_value(json_object_get(json_object_get(vt, "spec"), "activeDeadlineSeconds")), 300);
        CHECK(json_object_get(json_object_get(st, "spec"), "activeDeadlineSeconds") == NULL);
        CHECK(json_object_get(json_object_get(vt, "spec"), "containers") ==
              json_object_get(json_object_get(st, "spec"), "containers"));
    }
    /* the replica's restartPolicy decides; the user's template keeps its own text */
    CHECK_STR(a.job->tasks[1].restart_policy, "Never");
    json_t *worker_template = json_object_get(json_object_get(specs, "Worker"), "template");
    CHECK_STR(json_string_value(json_object_get(json_object_get(worker_template, "spec"), "restartPolicy")),
              "OnFailure");
    const struct task_spec *w = &a.job->tasks[1];
    const struct lifecycle_policy *p = policy_choose(w->policies, w->npolicies, NULL, 0, EV_POD_FAILED, true, 1);
    CHECK(p && p->action == ACT_RESTART_POD);
    release(&a);
}

static void tensorflow_roles_and_ports(void)
{
    const char *yaml =
        "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: tf}\nspec:\n  tfReplicaSpecs:\n"
        "    Worker: {replicas: 2, template: {spec: {containers: [{name: tensorflow, command: [a]}]}}}\n"
        "    Evaluator: {template: {spec: {containers: [{name: tensorflow, command: [a]}]}}}\n"
        "    PS: {template: {spec: {containers: [{name: tensorflow, command: [a]}]}}}\n"
        "    Master: {template: {spec: {containers: [{name: tensorflow, command: [a]}]}}}\n";
    struct adapted a;
    adapt(&a, yaml);
    REQUIRE(a.rc == 0);
    CHECK_STR(a.job->tasks[0].name, "master");
    CHECK_STR(a.job->tasks[1].name, "ps");
    CHECK_STR(a.job->tasks[2].name, "worker");
    CHECK_STR(a.job->tasks[3].name, "evaluator");
    char args[256];
    plugin_args(&a, "tensorflow", args, sizeof args);
    CHECK_STR(args, "--chief=master --ps=ps --worker=worker --evaluator=evaluator");
    /* the chief leads: TaskCompleted on it, not on the workers */
    CHECK(policy_choose(a.job->tasks[0].policies, a.job->tasks[0].npolicies, NULL, 0, EV_TASK_COMPLETED, false, 0));
    CHECK(!policy_choose(a.job->tasks[2].policies, a.job->tasks[2].npolicies, NULL, 0, EV_TASK_COMPLETED, false, 0));
    release(&a);

    const char *ports =
        "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: tf}\nspec:\n  tfReplicaSpecs:\n"
        "    PS: {template: {spec: {containers: [{name: tensorflow,\n"
        "                                        ports: [{name: tfjob-port, containerPort: 3000}]}]}}}\n"
        "    Worker: {template: {spec: {containers: [{name: tensorflow}]}}}\n";
    adapt(&a, ports);
    CHECK(a.rc != 0);
    CHECK_CONTAINS(a.st.message,
                   "spec.tfReplicaSpecs.Worker.template.spec.containers[0].ports: Invalid value: "
                   "tfjob-port 2222: Volcano's tensorflow plugin gives every replica one port, and "
                   "spec.tfReplicaSpecs.PS has 3000");
    release(&a);
}

static void mpi_launcher_and_workers(void)
{
    const char *yaml =
        "apiVersion: kubeflow.org/v1\nkind: MPIJob\nmetadata: {name: pi}\nspec:\n  slotsPerWorker: 1\n"
        "  mpiReplicaSpecs:\n"
        "    Worker: {template: {spec: {containers: [{name: w, command: [sshd]}]}}}\n"
        "    Launcher: {template: {spec: {containers: [{name: l, command: [mpirun]}]}}}\n";
    struct adapted a;
    adapt(&a, yaml);
    REQUIRE(a.rc == 0);
    CHECK_STR(a.job->tasks[0].name, "launcher");
    CHECK_STR(a.job->tasks[1].name, "worker");
    CHECK_INT(a.job->tasks[1].replicas, 0); /* Kubeflow's default for MPI workers */
    char args[256];
    plugin_args(&a, "mpi", args, sizeof args);
    CHECK_STR(args, "--master=launcher --worker=worker");
    json_t *plugins = json_object_get(vspec(&a), "plugins");
    CHECK(json_object_get(plugins, "ssh") && json_object_get(plugins, "svc"));
    CHECK(policy_choose(a.job->tasks[0].policies, a.job->tasks[0].npolicies, NULL, 0, EV_TASK_COMPLETED, false, 0));
    release(&a);
}

/* Causes the Volcano validation finds inside a template name the user's replica spec and line. */
static void causes_name_the_users_fields(void)
{
    const char *yaml =
        "apiVersion: kubeflow.org/v1\n"                       /* 1 */
        "kind: PyTorchJob\n"                                  /* 2 */
        "metadata: {name: bad}\n"                             /* 3 */
        "spec:\n"                                             /* 4 */
        "  runPolicy: {activeDeadlineSeconds: 10}\n"          /* 5 */
        "  pytorchReplicaSpecs:\n"                            /* 6 */
        "    Master:\n"                                       /* 7 */
        "      template:\n"                                   /* 8 */
        "        spec:\n"                                     /* 9 */
        "          containers:\n"                             /* 10 */
        "          - name: pytorch\n"                         /* 11 */
        "            workingDir: relative\n"                  /* 12 */
        "    Worker:\n"                                       /* 13 */
        "      replicas: 2\n"                                 /* 14 */
        "      template:\n"                                   /* 15 */
        "        spec:\n"                                     /* 16 */
        "          containers:\n"                             /* 17 */
        "          - name: pytorch\n"                         /* 18 */
        "            resources: {limits: {memory: 1.5GG}}\n"; /* 19 */
    struct adapted a;
    adapt(&a, yaml);
    REQUIRE(a.rc != 0);
    CHECK_INT(a.st.code, 422);
    CHECK_STR(a.st.kind, "PyTorchJob");
    CHECK_STR(a.st.group, "kubeflow.org");
    /* inside copied templates (the deadline) the containers keep their positions */
    CHECK_CONTAINS(a.st.message,
                   "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].workingDir: Invalid "
                   "value: \"relative\": must be an absolute path (line 12, column 25)");
    CHECK_CONTAINS(a.st.message,
                   "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.limits."
                   "memory: invalid quantity \"1.5GG\"");
    CHECK_CONTAINS(a.st.message, "(line 19, column 42)");
    release(&a);
}

static void refusals_name_the_field(void)
{
    static const struct {
        const char *spec;
        const char *expected;
    } cases[] = {
        {"  runPolicy: {cleanPodPolicy: Sometimes}\n",
         "spec.runPolicy.cleanPodPolicy: Unsupported value: \"Sometimes\": supported values: \"All\", "
         "\"Running\", \"None\""},
        {"  runPolicy: {suspend: true}\n", "spec.runPolicy.suspend: Unsupported value: true"},
        {"  runPolicy: {backoffLimit: -2}\n",
         "spec.runPolicy.backoffLimit: Invalid value: -2: must be greater than or equal to 0"},
        {"  runPolicy: {activeDeadlineSeconds: 0}\n", "spec.runPolicy.activeDeadlineSeconds: Invalid value: 0"},
        {"  runPolicy: {schedulingPolicy: {scheduleTimeoutSeconds: 5}}\n",
         "spec.runPolicy.schedulingPolicy.scheduleTimeoutSeconds: Unsupported value: 5"},
        {"  runPolicy: {schedulingPolicy: {minResources: {cpu: 1x}}}\n",
         "spec.runPolicy.schedulingPolicy.minResources.cpu: invalid quantity \"1x\""},
        {"  nprocPerNode: auto\n", "spec.nprocPerNode: Unsupported value: \"auto\""},
        {"  runPolicy: {cleanPodPolicies: All}\n",
         "spec.runPolicy.cleanPodPolicies: unknown field \"spec.runPolicy.cleanPodPolicies\""},
        {"  extra: 1\n", "spec.extra: unknown field \"spec.extra\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: r}\nspec:\n%s"
                 "  pytorchReplicaSpecs:\n    Master: {template: {spec: {containers: [{name: pytorch}]}}}\n",
                 cases[i].spec);
        struct adapted a;
        adapt(&a, yaml);
        CHECK(a.rc != 0);
        CHECK_CONTAINS(a.st.message, cases[i].expected);
        CHECK_CONTAINS(a.st.message, "(line 5, column");
        release(&a);
    }
}

static void replica_spec_refusals(void)
{
    static const struct {
        const char *replicas;
        const char *expected;
    } cases[] = {
        {"    Master: {replicas: 2, template: {spec: {containers: [{name: pytorch}]}}}\n",
         "spec.pytorchReplicaSpecs.Master.replicas: Invalid value: 2: there must be only 1 master replica "
         "(line 6, column 24)"},
        {"    Master: {restartPolicy: Sometimes, template: {spec: {containers: [{name: pytorch}]}}}\n",
         "spec.pytorchReplicaSpecs.Master.restartPolicy: Unsupported value: \"Sometimes\": supported values: "
         "\"Always\", \"OnFailure\", \"Never\", \"ExitCode\" (line 6, column 29)"},
        {"    Master: {template: {spec: {containers: [{name: main}]}}}\n",
         "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].name: Invalid value: \"main\": PyTorchJob runs "
         "the container named \"pytorch\" (line 6, column 52)"},
        {"    Master: {template: {spec: {containers: [{name: pytorch}]}}}\n    Chief: {}\n",
         "spec.pytorchReplicaSpecs.Chief: Unsupported value: \"Chief\": supported replica types: "
         "\"Master\", \"Worker\" "
         "(line 7, column 12)"},
        {"    Master: {template: {spec: {containers: [{name: pytorch}]}}}\n    master: {}\n",
         "spec.pytorchReplicaSpecs.master: Duplicate value: \"master\""},
        {"    Master: {}\n", "spec.pytorchReplicaSpecs.Master.template: Required value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: r}\nspec:\n"
                 "  pytorchReplicaSpecs:\n%s",
                 cases[i].replicas);
        struct adapted a;
        adapt(&a, yaml);
        CHECK(a.rc != 0);
        CHECK_CONTAINS(a.st.message, cases[i].expected);
        release(&a);
    }
}

/* The case-insensitive replica type keeps the user's key in causes. */
static void lower_case_types_are_kubeflows_too(void)
{
    const char *yaml =
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: lc}\nspec:\n  pytorchReplicaSpecs:\n"
        "    master: {template: {spec: {containers: [{name: pytorch}]}}}\n"
        "    worker: {template: {spec: {containers: [{name: pytorch, workingDir: x}]}}}\n";
    struct adapted a;
    adapt(&a, yaml);
    CHECK(a.rc != 0);
    CHECK_CONTAINS(a.st.message, "spec.pytorchReplicaSpecs.worker.template.spec.containers[0].workingDir");
    release(&a);
}

/* The value of variable name in what Volcano's plugins give replica index of task (new), or NULL. */
static char *plugin_env(const struct job *job, int task, int index, const char *name)
{
    struct plugin_attempt pa;
    char why[256];
    if (job_plugins_attempt(job, task, index, "/nonexistent", &pa, why, sizeof why) != 0)
        return NULL;
    char *value = NULL;
    size_t n = strlen(name);
    for (size_t i = 0; pa.env && pa.env[i] && !value; i++)
        if (strncmp(pa.env[i], name, n) == 0 && pa.env[i][n] == '=')
            value = strdup(pa.env[i] + n + 1);
    plugin_attempt_free(&pa);
    return value;
}

#define CHECK_ENV(job, task, index, name, expected)    \
    do {                                               \
        char *v_ = plugin_env(job, task, index, name); \
        CHECK_STR(v_, expected);                       \
        free(v_);                                      \
    } while (0)

/* What the frameworks' programs read, as the translated plugins give it. */
static void framework_environment(void)
{
    struct adapted a;
    adapt(&a, pytorch_job);
    REQUIRE(a.rc == 0);
    CHECK_ENV(a.job, 0, 0, "MASTER_ADDR", "mnist-master-0.mnist");
    CHECK_ENV(a.job, 0, 0, "RANK", "0");
    CHECK_ENV(a.job, 1, 2, "RANK", "3");
    CHECK_ENV(a.job, 1, 2, "WORLD_SIZE", "4");
    CHECK_ENV(a.job, 1, 0, "MASTER_PORT", "23456");
    release(&a);

    adapt(&a,
          "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: tf}\nspec:\n  tfReplicaSpecs:\n"
          "    Master: {template: {spec: {containers: [{name: tensorflow}]}}}\n"
          "    PS: {template: {spec: {containers: [{name: tensorflow}]}}}\n"
          "    Worker: {replicas: 2, template: {spec: {containers: [{name: tensorflow}]}}}\n");
    REQUIRE(a.rc == 0);
    CHECK_ENV(a.job, 2, 1, "TF_CONFIG",
              "{\"cluster\":{\"ps\":[\"tf-ps-0.tf:2222\"],\"worker\":[\"tf-worker-0.tf:2222\",\"tf-worker-1.tf:2222\"],"
              "\"chief\":[\"tf-master-0.tf:2222\"]},\"task\":{\"type\":\"worker\",\"index\":1}}");
    char *chief = plugin_env(a.job, 0, 0, "TF_CONFIG");
    CHECK_CONTAINS(chief, "\"task\":{\"type\":\"chief\",\"index\":0}");
    free(chief);
    release(&a);

    adapt(&a,
          "apiVersion: kubeflow.org/v1\nkind: MPIJob\nmetadata: {name: pi}\nspec:\n  mpiReplicaSpecs:\n"
          "    Launcher: {template: {spec: {containers: [{name: l}]}}}\n"
          "    Worker: {replicas: 2, template: {spec: {containers: [{name: w}]}}}\n");
    REQUIRE(a.rc == 0);
    CHECK_ENV(a.job, 0, 0, "MPI_HOST", "pi-worker-0.pi,pi-worker-1.pi");
    release(&a);
}

/* --- status ---------------------------------------------------------------------------------------------- */

static json_t *rendered(const char *phase, bool ran, const char *counts)
{
    json_t *v = json_pack("{s:{s:s, s:s, s:s}, s:{s:{s:s, s:s, s:s, s:s}}}", "metadata", "name", "mnist", "namespace",
                          "team-a", "creationTimestamp", "2026-01-01T00:00:00Z", "status", "state", "phase", phase,
                          "reason", "TerminateJob", "message", "policy: PodFailed -> TerminateJob",
                          "lastTransitionTime", "2026-01-01T01:00:00Z");
    json_t *status = json_object_get(v, "status");
    if (ran)
        json_object_set_new(status, "runningSince", json_string("2026-01-01T00:05:00Z"));
    json_object_set_new(status, "taskStatusCount", json_loads(counts, 0, NULL));
    return v;
}

/* The status of source (in its own dialect) when its Volcano Job is in phase. */
static json_t *status_in(const json_t *source, const char *phase, bool ran, const char *counts)
{
    const struct dialect *d = dialect_of_source(source);
    json_t *v = rendered(phase, ran, counts);
    json_t *s = d && d->render_status ? d->render_status(source, v) : NULL;
    json_decref(v);
    return s;
}

static const json_t *cond(const json_t *status, size_t i)
{
    return json_array_get(json_object_get(status, "conditions"), i);
}

/* replicaStatuses[type][key], 0 when absent. */
static int64_t replica_count(const json_t *status, const char *type, const char *key)
{
    return json_integer_value(json_object_get(json_object_get(json_object_get(status, "replicaStatuses"), type), key));
}
static const char *cond_field(const json_t *status, size_t i, const char *key)
{
    return json_string_value(json_object_get(cond(status, i), key));
}

static void status_follows_the_volcano_phase(void)
{
    struct adapted a;
    adapt(&a, pytorch_job);
    REQUIRE(a.rc == 0);
    json_t *s = status_in(a.job->source, "Pending", false, "{}");
    CHECK_INT(json_array_size(json_object_get(s, "conditions")), 1);
    CHECK_STR(cond_field(s, 0, "type"), "Created");
    CHECK_STR(cond_field(s, 0, "status"), "True");
    CHECK_STR(cond_field(s, 0, "reason"), "PyTorchJobCreated");
    CHECK_STR(cond_field(s, 0, "lastTransitionTime"), "2026-01-01T00:00:00Z");
    CHECK(json_object_get(s, "startTime") == NULL);
    json_t *empty = json_pack("{s:{}, s:{}}", "Master", "Worker");
    CHECK(json_equal(json_object_get(s, "replicaStatuses"), empty));
    json_decref(empty);
    json_decref(s);

    s = status_in(a.job->source, "Running", true,
                  "{\"master\":{\"phase\":{\"Running\":1}},\"worker\":{\"phase\":{\"Running\":2,\"Pending\":1}}}");
    CHECK_INT(json_array_size(json_object_get(s, "conditions")), 2);
    CHECK_STR(cond_field(s, 1, "type"), "Running");
    CHECK_STR(cond_field(s, 1, "status"), "True");
    CHECK_STR(cond_field(s, 1, "reason"), "PyTorchJobRunning");
    CHECK_STR(cond_field(s, 1, "message"), "PyTorchJob team-a/mnist is running.");
    CHECK_STR(json_string_value(json_object_get(s, "startTime")), "2026-01-01T00:05:00Z");
    CHECK_INT(replica_count(s, "Worker", "active"), 2);
    CHECK(json_object_get(s, "completionTime") == NULL);
    json_decref(s);

    s = status_in(a.job->source, "Restarting", true, "{\"worker\":{\"phase\":{\"Failed\":1}}}");
    CHECK_INT(json_array_size(json_object_get(s, "conditions")), 2); /* Restarting replaces Running */
    CHECK_STR(cond_field(s, 1, "type"), "Restarting");
    CHECK_STR(cond_field(s, 1, "message"), "PyTorchJob team-a/mnist is restarting because 1 Worker replica(s) failed.");
    json_decref(s);

    s = status_in(a.job->source, "Completed", true,
                  "{\"master\":{\"phase\":{\"Succeeded\":1}},\"worker\":{\"phase\":{\"Succeeded\":3}}}");
    CHECK_INT(json_array_size(json_object_get(s, "conditions")), 3);
    CHECK_STR(cond_field(s, 1, "type"), "Running");
    CHECK_STR(cond_field(s, 1, "status"), "False");
    CHECK_STR(cond_field(s, 2, "type"), "Succeeded");
    CHECK_STR(cond_field(s, 2, "status"), "True");
    CHECK_STR(cond_field(s, 2, "reason"), "PyTorchJobSucceeded");
    CHECK_STR(json_string_value(json_object_get(s, "completionTime")), "2026-01-01T01:00:00Z");
    CHECK_INT(replica_count(s, "Master", "succeeded"), 1);
    json_decref(s);

    static const char *const failed_phases[] = {"Failed", "Terminated", "Aborted"};
    for (size_t i = 0; i < 3; i++) {
        s = status_in(a.job->source, failed_phases[i], true, "{\"master\":{\"phase\":{\"Failed\":1}}}");
        CHECK_STR(cond_field(s, 2, "type"), "Failed");
        CHECK_STR(cond_field(s, 2, "reason"), "PyTorchJobFailed");
        CHECK_STR(cond_field(s, 2, "message"),
                  "PyTorchJob team-a/mnist has failed because 1 Master replica(s) failed.");
        CHECK_STR(json_string_value(json_object_get(s, "completionTime")), "2026-01-01T01:00:00Z");
        json_decref(s);
    }

    /* a job stopped before it ran: no Running condition; Volcano's reason in the message */
    s = status_in(a.job->source, "Terminating", false, "{}");
    CHECK_INT(json_array_size(json_object_get(s, "conditions")), 2);
    CHECK_STR(cond_field(s, 1, "type"), "Failed");
    CHECK_STR(cond_field(s, 1, "message"),
              "PyTorchJob team-a/mnist has failed: TerminateJob: policy: PodFailed -> TerminateJob.");
    CHECK(json_object_get(s, "completionTime") == NULL); /* not finished yet */
    json_decref(s);
    release(&a);
}

static void status_in_each_kinds_words(void)
{
    struct adapted a;
    adapt(&a,
          "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: tf}\nspec:\n  tfReplicaSpecs:\n"
          "    PS: {template: {spec: {containers: [{name: tensorflow}]}}}\n"
          "    worker: {template: {spec: {containers: [{name: tensorflow}]}}}\n");
    REQUIRE(a.rc == 0);
    json_t *s = status_in(a.job->source, "Running", true, "{\"ps\":{\"phase\":{\"Running\":1}}}");
    CHECK_STR(cond_field(s, 1, "reason"), "TFJobRunning");
    json_t *replicas = json_object_get(s, "replicaStatuses");
    CHECK_INT(replica_count(s, "PS", "active"), 1);
    CHECK(json_object_get(replicas, "Worker") != NULL); /* Kubeflow's name for the user's "worker" */
    CHECK_INT(json_object_size(replicas), 2);
    json_decref(s);
    release(&a);
    adapt(&a,
          "apiVersion: kubeflow.org/v1\nkind: MPIJob\nmetadata: {name: m}\nspec:\n  mpiReplicaSpecs:\n"
          "    Launcher: {template: {spec: {containers: [{name: l}]}}}\n"
          "    Worker: {replicas: 2, template: {spec: {containers: [{name: w}]}}}\n");
    REQUIRE(a.rc == 0);
    s = status_in(a.job->source, "Completed", true, "{\"launcher\":{\"phase\":{\"Succeeded\":1}}}");
    CHECK_STR(cond_field(s, 2, "reason"), "MPIJobSucceeded");
    CHECK_STR(cond_field(s, 2, "message"), "MPIJob team-a/mnist successfully completed.");
    CHECK_INT(replica_count(s, "Launcher", "succeeded"), 1);
    json_decref(s);
    release(&a);
}

static void dialects_at_their_paths(void)
{
    CHECK(dialect_by_plural("kubeflow.org", "v1", "pytorchjobs") == dialect_by_kind("kubeflow.org/v1", "PyTorchJob"));
    CHECK(dialect_by_plural("kubeflow.org", "v1", "tfjobs") == dialect_by_kind("kubeflow.org/v1", "TFJob"));
    CHECK(dialect_by_plural("kubeflow.org", "v1", "mpijobs") == dialect_by_kind("kubeflow.org/v1", "MPIJob"));
    CHECK(dialect_by_plural("kubeflow.org", "v1", "pytorchjobs") != NULL);
    CHECK(dialect_by_kind("kubeflow.org/v2beta1", "MPIJob") == NULL);
}

TEST_MAIN(TEST_CASE(pytorch_tasks_share_the_templates_master_first), TEST_CASE(clean_pod_policy_defaults_to_none),
          TEST_CASE(pytorch_declared_port_is_master_port), TEST_CASE(exit_code_policies_split_permanent_and_retryable),
          TEST_CASE(run_policy_becomes_volcano_fields), TEST_CASE(tensorflow_roles_and_ports),
          TEST_CASE(mpi_launcher_and_workers), TEST_CASE(causes_name_the_users_fields),
          TEST_CASE(refusals_name_the_field), TEST_CASE(replica_spec_refusals),
          TEST_CASE(lower_case_types_are_kubeflows_too), TEST_CASE(framework_environment),
          TEST_CASE(status_follows_the_volcano_phase), TEST_CASE(status_in_each_kinds_words),
          TEST_CASE(dialects_at_their_paths))
