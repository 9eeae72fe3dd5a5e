/* The Kubeflow training-operator dialects: PyTorchJob, TFJob and MPIJob (kubeflow.org/v1), each its
 * replica types, its own spec fields and its framework wired through Volcano's job plugins. */
#include <stdio.h>
#include <string.h>

#include "adapters/dialects/kubeflow/kubeflow.h"

#define KUBEFLOW_GROUP "kubeflow.org"
#define KUBEFLOW_VERSION "v1"

/* --- PyTorchJob: Volcano's pytorch plugin sets MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK ------------ */

static const struct kubeflow_replica_type pytorch_types[] = {
    {"Master", "master", 1, true, true},
    {"Worker", "worker", 1, false, false},
};

static const char *const pytorch_spec_fields[] = {"pytorchReplicaSpecs", "runPolicy", "elasticPolicy", "nprocPerNode",
                                                  NULL};

static void pytorch_check_spec(struct kubeflow_job *j)
{
    if (json_object_get(j->spec, "elasticPolicy"))
        field_error(j->f, j->spec, "elasticPolicy", "spec.elasticPolicy", "FieldValueNotSupported",
                    "Unsupported value: elastic training: Volcano's pytorch plugin gives every pod a fixed "
                    "WORLD_SIZE and RANK");
    if (json_object_get(j->spec, "nprocPerNode"))
        field_unsupported(j->f, j->spec, "nprocPerNode", "spec.nprocPerNode",
                          "PET_NPROC_PER_NODE is not set here: give torchrun --nproc-per-node in the command");
    const struct kubeflow_replica *master = kubeflow_replica(j, "Master");
    int64_t port;
    if (master)
        kubeflow_declared_port(j, master, "pytorchjob-port", &port);
    else if (j->nreplicas > 0)
        field_error(j->f, j->spec, "pytorchReplicaSpecs", "spec.pytorchReplicaSpecs.Master", "FieldValueRequired",
                    "Required value: Volcano's pytorch plugin gives MASTER_ADDR from the Master replica");
}

/* MASTER_PORT is the Master's port named "pytorchjob-port" when it declares one. Otherwise --port is
 * left out: the plugin's default is Kubeflow's (23456), and on one machine the plugin then gives each
 * job a port of its own, where a fixed 23456 would collide between jobs. */
static json_t *pytorch_plugins(struct kubeflow_job *j)
{
    json_t *args = json_array();
    kubeflow_arg(args, "master", "master");
    if (kubeflow_replica(j, "Worker"))
        kubeflow_arg(args, "worker", "worker");
    const struct kubeflow_replica *master = kubeflow_replica(j, "Master");
    int64_t port = 0;
    if (master && kubeflow_declared_port(j, master, "pytorchjob-port", &port) > 0) {
        char text[16];
        snprintf(text, sizeof text, "%lld", (long long)port);
        kubeflow_arg(args, "port", text);
    }
    return json_pack("{s:o}", "pytorch", args);
}

static const struct kubeflow_kind pytorch_kind = {
    .kind = "PyTorchJob",
    .specs_key = "pytorchReplicaSpecs",
    .container = "pytorch",
    .default_restart = "OnFailure",
    .types = pytorch_types,
    .ntypes = sizeof pytorch_types / sizeof *pytorch_types,
    .spec_fields = pytorch_spec_fields,
    .check_spec = pytorch_check_spec,
    .plugins = pytorch_plugins,
};

/* --- TFJob: Volcano's tensorflow plugin sets TF_CONFIG ------------------------------------------------- */

/* Chief (or Master, its older name) leads; without one the workers do. */
static const struct kubeflow_replica_type tf_types[] = {
    {"Chief", "chief", 1, false, true},   {"Master", "master", 1, false, true},        {"PS", "ps", 1, false, false},
    {"Worker", "worker", 1, false, true}, {"Evaluator", "evaluator", 1, false, false},
};

static const char *const tf_spec_fields[] = {"tfReplicaSpecs", "runPolicy", "successPolicy", "enableDynamicWorker",
                                             NULL};

/* The plugin gives every replica one port: each replica type's "tfjob-port" (default 2222, Kubeflow's and
 * the plugin's) must agree. --port only when declared, so that on one machine the plugin can give each
 * replica a port of its own otherwise. */
static bool tf_port(struct kubeflow_job *j, int64_t *port)
{
    const int64_t default_port = 2222;
    bool declared = false;
    *port = default_port;
    for (int i = 0; i < j->nreplicas; i++) {
        const struct kubeflow_replica *r = &j->replicas[i];
        int64_t own = default_port;
        int rc = kubeflow_declared_port(j, r, "tfjob-port", &own);
        if (rc < 0)
            return false;
        if (i > 0 && own != *port) {
            char path[FIELD_PATH_MAX];
            snprintf(path, sizeof path, "%s.template.spec.containers[0].ports", r->path);
            json_t *c0 = json_array_get(json_object_get(json_object_get(r->template, "spec"), "containers"), 0);
            field_error(j->f, c0, "ports", path, "FieldValueInvalid",
                        "Invalid value: tfjob-port %lld: Volcano's tensorflow plugin gives every replica one port, "
                        "and %s has %lld",
                        (long long)own, j->replicas[0].path, (long long)*port);
            return false;
        }
        *port = own;
        declared = declared || rc > 0;
    }
    return declared;
}

/* successPolicy "" ends the job when worker 0 succeeds (without a chief) and "AllWorkers" when every
 * worker has: Volcano has no event for one pod's success, so both complete the job with the whole
 * Worker task (TaskCompleted -> CompleteJob). With a chief, Kubeflow's success is the chief's in both. */
static void tf_check_spec(struct kubeflow_job *j)
{
    const char *success = NULL;
    if (field_string(j->f, j->spec, "successPolicy", "spec.successPolicy", false, &success) && success && *success &&
        strcmp(success, "AllWorkers") != 0)
        field_unsupported(j->f, j->spec, "successPolicy", "spec.successPolicy",
                          "supported values: \"\", \"AllWorkers\"");
    bool dynamic = false;
    if (field_bool(j->f, j->spec, "enableDynamicWorker", "spec.enableDynamicWorker", &dynamic) && dynamic)
        field_unsupported(j->f, j->spec, "enableDynamicWorker", "spec.enableDynamicWorker",
                          "Volcano's tensorflow plugin writes a fixed TF_CONFIG cluster");
    const struct kubeflow_replica *master = kubeflow_replica(j, "Master");
    if (master && kubeflow_replica(j, "Chief"))
        field_error(j->f, json_object_get(j->spec, "tfReplicaSpecs"), master->key, master->path, "FieldValueForbidden",
                    "Forbidden: more than 1 chief/master found: give Chief or Master, not both");
    int64_t port;
    tf_port(j, &port);
}

/* Task names are the plugin's roles; Master is Chief's older name, so it is the chief role. */
static json_t *tf_plugins(struct kubeflow_job *j)
{
    json_t *args = json_array();
    for (int i = 0; i < j->nreplicas; i++) {
        const struct kubeflow_replica_type *t = j->replicas[i].type;
        kubeflow_arg(args, strcmp(t->name, "Master") == 0 ? "chief" : t->task, t->task);
    }
    int64_t port;
    if (tf_port(j, &port)) {
        char text[16];
        snprintf(text, sizeof text, "%lld", (long long)port);
        kubeflow_arg(args, "port", text);
    }
    return json_pack("{s:o}", "tensorflow", args);
}

static const struct kubeflow_kind tf_kind = {
    .kind = "TFJob",
    .specs_key = "tfReplicaSpecs",
    .container = "tensorflow",
    .default_restart = "Never",
    .types = tf_types,
    .ntypes = sizeof tf_types / sizeof *tf_types,
    .spec_fields = tf_spec_fields,
    .check_spec = tf_check_spec,
    .plugins = tf_plugins,
};

/* --- MPIJob: Volcano's mpi plugin sets MPI_HOST on the launcher; its admission adds ssh and svc --------- */

static const struct kubeflow_replica_type mpi_types[] = {
    {"Launcher", "launcher", 1, true, true},
    {"Worker", "worker", 0, false, false},
};

static const char *const mpi_spec_fields[] = {"mpiReplicaSpecs", "runPolicy",     "slotsPerWorker",
                                              "cleanPodPolicy",  "mainContainer", NULL};

static void mpi_check_spec(struct kubeflow_job *j)
{
    int64_t slots = 1;
    if (field_int(j->f, j->spec, "slotsPerWorker", "spec.slotsPerWorker", false, 1, INT32_MAX, &slots) && slots != 1)
        field_unsupported(j->f, j->spec, "slotsPerWorker", "spec.slotsPerWorker",
                          "Volcano's mpi plugin lists each worker once in MPI_HOST (one slot per worker); "
                          "give mpirun its process count in the command");
    kubeflow_clean_pod_policy(j, j->spec, "spec.cleanPodPolicy");
    const struct kubeflow_replica *launcher = kubeflow_replica(j, "Launcher");
    const char *main_container = NULL;
    if (field_string(j->f, j->spec, "mainContainer", "spec.mainContainer", false, &main_container) && main_container &&
        launcher) {
        json_t *c0 = json_array_get(json_object_get(json_object_get(launcher->template, "spec"), "containers"), 0);
        const char *name = json_string_value(json_object_get(c0, "name"));
        if (name && strcmp(name, main_container) != 0)
            field_invalid(j->f, j->spec, "mainContainer", "spec.mainContainer",
                          "the process runtime runs a pod's only container, and the Launcher's is named otherwise");
    }
    if (j->nreplicas == 0)
        return;
    static const char *const needed[] = {"Launcher", "Worker"};
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++) {
        if (kubeflow_replica(j, needed[i]))
            continue;
        char path[FIELD_PATH_MAX];
        snprintf(path, sizeof path, "spec.mpiReplicaSpecs.%s", needed[i]);
        field_error(j->f, j->spec, "mpiReplicaSpecs", path, "FieldValueRequired",
                    "Required value: Volcano's mpi plugin needs a launcher and a worker task");
    }
}

static json_t *mpi_plugins(struct kubeflow_job *j)
{
    (void)j;
    json_t *args = json_array();
    kubeflow_arg(args, "master", "launcher");
    kubeflow_arg(args, "worker", "worker");
    return json_pack("{s:o}", "mpi", args);
}

static const struct kubeflow_kind mpi_kind = {
    .kind = "MPIJob",
    .specs_key = "mpiReplicaSpecs",
    .container = NULL,
    .default_restart = "Never",
    .types = mpi_types,
    .ntypes = sizeof mpi_types / sizeof *mpi_types,
    .spec_fields = mpi_spec_fields,
    .check_spec = mpi_check_spec,
    .plugins = mpi_plugins,
};

/* --- the dialects ------------------------------------------------------------------------------------ */

static int pytorch_translate(struct fields *f, json_t *source, const char *ns, struct dialect_translation *out)
{
    (void)ns; /* metadata.namespace against the path's: the Volcano Job's validation */
    return kubeflow_translate(&pytorch_kind, f, source, out);
}

static int tf_translate(struct fields *f, json_t *source, const char *ns, struct dialect_translation *out)
{
    (void)ns;
    return kubeflow_translate(&tf_kind, f, source, out);
}

static int mpi_translate(struct fields *f, json_t *source, const char *ns, struct dialect_translation *out)
{
    (void)ns;
    return kubeflow_translate(&mpi_kind, f, source, out);
}

static json_t *pytorch_status(const json_t *source, const json_t *volcano_job)
{
    return kubeflow_render_status(&pytorch_kind, source, volcano_job);
}

static json_t *tf_status(const json_t *source, const json_t *volcano_job)
{
    return kubeflow_render_status(&tf_kind, source, volcano_job);
}

static json_t *mpi_status(const json_t *source, const json_t *volcano_job)
{
    return kubeflow_render_status(&mpi_kind, source, volcano_job);
}

const struct dialect kubeflow_pytorchjob = {KUBEFLOW_GROUP,    KUBEFLOW_VERSION, "PyTorchJob", "pytorchjobs",
                                            pytorch_translate, pytorch_status,   false};
const struct dialect kubeflow_tfjob = {KUBEFLOW_GROUP, KUBEFLOW_VERSION, "TFJob", "tfjobs",
                                       tf_translate,   tf_status,        false};
const struct dialect kubeflow_mpijob = {KUBEFLOW_GROUP, KUBEFLOW_VERSION, "MPIJob", "mpijobs",
                                        mpi_translate,  mpi_status,       false};
