/* Each job plugin's arguments as Volcano names them, the tasks they name with Volcano's defaults, and
 * the admission checks beyond the flags (a task a framework needs must be a task of the job). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "adapters/dialects/volcano/job_plugins/internal.h"

#define OR_DEFAULT(v, d) ((v) ? (v) : (d))

/* --- the tasks a plugin names ------------------------------------------------------------------- */

/* Whether the spec being admitted has a task named name (an unnamed task i is "default<i>"). */
static bool spec_has_task(const json_t *spec, const char *name)
{
    const json_t *tasks = json_object_get(spec, "tasks");
    for (size_t i = 0; i < json_array_size(tasks); i++) {
        const char *n = json_string_value(json_object_get(json_array_get(tasks, i), "name"));
        char default_name[32];
        if (!n || !*n) { /* not defaulted yet: the name admission will give it */
            snprintf(default_name, sizeof default_name, "default%zu", i);
            n = default_name;
        }
        if (strcmp(n, name) == 0)
            return true;
    }
    return false;
}

/* Adds the admission cause "spec.plugins[<plugin>]: Invalid value: "<task>": ..." when a task a
 * framework needs is missing. role: "master"; flag: "--master". Returns false when it added one. */
static bool require_task(struct fields *f, json_t *plugins, const char *plugin, const json_t *spec, const char *task,
                         const char *role, const char *flag)
{
    if (spec_has_task(spec, task))
        return true;
    char path[FIELD_PATH_MAX];
    snprintf(path, sizeof path, "spec.plugins[%s]", plugin);
    field_error(f, plugins, plugin, path, "FieldValueInvalid",
                "Invalid value: \"%.63s\": the %s %s task is not a task of the job (name it with %s=<task>)", task,
                plugin, role, flag);
    return false;
}

const char *plugin_mpi_master(const struct plugin_config *cfg) { return OR_DEFAULT(cfg->mpi.master, "master"); }
const char *plugin_mpi_worker(const struct plugin_config *cfg) { return OR_DEFAULT(cfg->mpi.worker, "worker"); }
const char *plugin_pytorch_master(const struct plugin_config *cfg) { return OR_DEFAULT(cfg->pytorch.master, "master"); }
const char *plugin_pytorch_worker(const struct plugin_config *cfg) { return OR_DEFAULT(cfg->pytorch.worker, "worker"); }
const char *plugin_ray_head(const struct plugin_config *cfg) { return OR_DEFAULT(cfg->ray.head, "head"); }
const char *plugin_ray_worker(const struct plugin_config *cfg) { return OR_DEFAULT(cfg->ray.worker, "worker"); }
const char *plugin_ray_head_container(const struct plugin_config *cfg)
{
    return OR_DEFAULT(cfg->ray.head_container, "head");
}
const char *plugin_ray_worker_container(const struct plugin_config *cfg)
{
    return OR_DEFAULT(cfg->ray.worker_container, "worker");
}

static const char *const tf_role_names[TF_ROLE_COUNT] = {"ps", "worker", "chief", "evaluator"};

const char *plugin_tf_role_name(enum tf_role role) { return tf_role_names[role]; }

/* The roles' tasks as given, NULL where an argument names none. */
static void tf_given(const struct plugin_config *cfg, const char *given[TF_ROLE_COUNT])
{
    given[TF_PS] = cfg->tensorflow.ps;
    given[TF_WORKER] = cfg->tensorflow.worker;
    given[TF_CHIEF] = cfg->tensorflow.chief;
    given[TF_EVALUATOR] = cfg->tensorflow.evaluator;
}

const char *plugin_tf_role_task(const struct plugin_config *cfg, enum tf_role role)
{
    const char *given[TF_ROLE_COUNT];
    tf_given(cfg, given);
    return given[role] ? given[role] : tf_role_names[role];
}

/* --- env and svc: no checks beyond the flags -------------------------------------------------------- */

/* Volcano's env plugin takes no arguments (it ignores any); Caldera refuses them. */
static const struct plugin_args env_args = {.id = PLUGIN_ENV, .name = "env", .flags = NULL, .nflags = 0};

static const struct plugin_flag svc_flags[] = {
    {"publish-not-ready-addresses", FLAG_BOOL, offsetof(struct plugin_config, svc.publish_not_ready_addresses)},
    {"disable-network-policy", FLAG_BOOL, offsetof(struct plugin_config, svc.disable_network_policy)},
    {"inject-hosts-env", FLAG_BOOL, offsetof(struct plugin_config, svc.inject_hosts_env)},
};

/* Volcano's svc flags (pkg/controllers/job/plugins/svc/svc.go). The Service and NetworkPolicy have no
 * counterpart on one machine, so --publish-not-ready-addresses and --disable-network-policy are
 * accepted and change nothing (every replica's name resolves whatever its readiness, and nothing
 * fences the tasks' network). --inject-hosts-env=false (Volcano #5472: a job of a thousand pods
 * passes ARG_MAX) leaves VC_<TASK>_HOSTS and VC_<TASK>_NUM out of the tasks' environment; the host
 * files stay. */
static const struct plugin_args svc_args = {
    .id = PLUGIN_SVC,
    .name = "svc",
    .flags = svc_flags,
    .nflags = sizeof svc_flags / sizeof svc_flags[0],
};

/* --- ssh -------------------------------------------------------------------------------------------- */

static const struct plugin_flag ssh_flags[] = {
    {"ssh-key-file-path", FLAG_STRING, offsetof(struct plugin_config, ssh.key_file_path)},
    {"ssh-private-key", FLAG_STRING, offsetof(struct plugin_config, ssh.private_key)},
    {"ssh-public-key", FLAG_STRING, offsetof(struct plugin_config, ssh.public_key)},
};

/* --ssh-key-file-path is where the keys appear in the container (/root/.ssh by default): an absolute
 * path. A public key alone is ignored by Volcano (it generates a pair); Caldera refuses it. */
static void ssh_admit(struct fields *f, json_t *plugins, const json_t *spec, const struct plugin_config *cfg)
{
    (void)spec;
    if (cfg->ssh.key_file_path && cfg->ssh.key_file_path[0] != '/')
        field_error(f, plugins, "ssh", "spec.plugins[ssh]", "FieldValueInvalid",
                    "Invalid value: \"%.64s\": --ssh-key-file-path must be an absolute path", cfg->ssh.key_file_path);
    if (cfg->ssh.public_key && *cfg->ssh.public_key && !(cfg->ssh.private_key && *cfg->ssh.private_key))
        field_error(f, plugins, "ssh", "spec.plugins[ssh]", "FieldValueInvalid",
                    "Invalid value: --ssh-public-key needs --ssh-private-key (alone it would be ignored)");
}

static const struct plugin_args ssh_args = {
    .id = PLUGIN_SSH,
    .name = "ssh",
    .flags = ssh_flags,
    .nflags = sizeof ssh_flags / sizeof ssh_flags[0],
    .admit = ssh_admit,
};

/* --- pytorch ---------------------------------------------------------------------------------------- */

static const struct plugin_flag pytorch_flags[] = {
    {"master", FLAG_STRING, offsetof(struct plugin_config, pytorch.master)},
    {"worker", FLAG_STRING, offsetof(struct plugin_config, pytorch.worker)},
    {"port", FLAG_PORT, offsetof(struct plugin_config, pytorch.port)},
};

/* Volcano sets nothing when the master task is missing; Caldera refuses such a job. A job of a master
 * alone is fine, so the worker task must exist only when --worker names it. */
static void pytorch_admit(struct fields *f, json_t *plugins, const json_t *spec, const struct plugin_config *cfg)
{
    require_task(f, plugins, "pytorch", spec, plugin_pytorch_master(cfg), "master", "--master");
    if (cfg->pytorch.worker)
        require_task(f, plugins, "pytorch", spec, cfg->pytorch.worker, "worker", "--worker");
}

static const struct plugin_args pytorch_args = {
    .id = PLUGIN_PYTORCH,
    .name = "pytorch",
    .flags = pytorch_flags,
    .nflags = sizeof pytorch_flags / sizeof pytorch_flags[0],
    .admit = pytorch_admit,
};

/* --- tensorflow ------------------------------------------------------------------------------------- */

static const struct plugin_flag tensorflow_flags[] = {
    {"ps", FLAG_STRING, offsetof(struct plugin_config, tensorflow.ps)},
    {"worker", FLAG_STRING, offsetof(struct plugin_config, tensorflow.worker)},
    {"chief", FLAG_STRING, offsetof(struct plugin_config, tensorflow.chief)},
    {"evaluator", FLAG_STRING, offsetof(struct plugin_config, tensorflow.evaluator)},
    {"port", FLAG_PORT, offsetof(struct plugin_config, tensorflow.port)},
};

/* Volcano needs no role; a role named by an argument must be a task of the job. */
static void tensorflow_admit(struct fields *f, json_t *plugins, const json_t *spec, const struct plugin_config *cfg)
{
    const char *given[TF_ROLE_COUNT];
    tf_given(cfg, given);
    static const char *const flags[TF_ROLE_COUNT] = {"--ps", "--worker", "--chief", "--evaluator"};
    for (int r = 0; r < TF_ROLE_COUNT; r++)
        if (given[r])
            require_task(f, plugins, "tensorflow", spec, given[r], tf_role_names[r], flags[r]);
}

static const struct plugin_args tensorflow_args = {
    .id = PLUGIN_TENSORFLOW,
    .name = "tensorflow",
    .flags = tensorflow_flags,
    .nflags = sizeof tensorflow_flags / sizeof tensorflow_flags[0],
    .admit = tensorflow_admit,
};

/* --- mpi -------------------------------------------------------------------------------------------- */

static const struct plugin_flag mpi_flags[] = {
    {"master", FLAG_STRING, offsetof(struct plugin_config, mpi.master)},
    {"worker", FLAG_STRING, offsetof(struct plugin_config, mpi.worker)},
    {"port", FLAG_PORT, offsetof(struct plugin_config, mpi.port)},
};

/* Volcano's master pod looks the worker task up unchecked (a missing one fails the pod); both must exist. */
static void mpi_admit(struct fields *f, json_t *plugins, const json_t *spec, const struct plugin_config *cfg)
{
    require_task(f, plugins, "mpi", spec, plugin_mpi_master(cfg), "master", "--master");
    require_task(f, plugins, "mpi", spec, plugin_mpi_worker(cfg), "worker", "--worker");
}

static const struct plugin_args mpi_args = {
    .id = PLUGIN_MPI,
    .name = "mpi",
    .flags = mpi_flags,
    .nflags = sizeof mpi_flags / sizeof mpi_flags[0],
    .admit = mpi_admit,
};

/* --- ray -------------------------------------------------------------------------------------------- */

/* Volcano's flag names (its user guide says --clientServerPort; its code reads --clientPort). */
static const struct plugin_flag ray_flags[] = {
    {"head", FLAG_STRING, offsetof(struct plugin_config, ray.head)},
    {"headContainer", FLAG_STRING, offsetof(struct plugin_config, ray.head_container)},
    {"worker", FLAG_STRING, offsetof(struct plugin_config, ray.worker)},
    {"workerContainer", FLAG_STRING, offsetof(struct plugin_config, ray.worker_container)},
    {"port", FLAG_PORT, offsetof(struct plugin_config, ray.port)},
    {"dashboardPort", FLAG_PORT, offsetof(struct plugin_config, ray.dashboard_port)},
    {"clientPort", FLAG_PORT, offsetof(struct plugin_config, ray.client_port)},
};

/* Volcano fails the pods of a job without the head task; Caldera refuses the job. Workers are optional
 * (a head alone is a cluster) unless --worker names a task. */
static void ray_admit(struct fields *f, json_t *plugins, const json_t *spec, const struct plugin_config *cfg)
{
    require_task(f, plugins, "ray", spec, plugin_ray_head(cfg), "head", "--head");
    if (cfg->ray.worker)
        require_task(f, plugins, "ray", spec, cfg->ray.worker, "worker", "--worker");
}

static const struct plugin_args ray_args = {
    .id = PLUGIN_RAY,
    .name = "ray",
    .flags = ray_flags,
    .nflags = sizeof ray_flags / sizeof ray_flags[0],
    .admit = ray_admit,
};

const struct plugin_args *const plugin_args[PLUGIN_COUNT] = {
    [PLUGIN_ENV] = &env_args,
    [PLUGIN_SVC] = &svc_args,
    [PLUGIN_SSH] = &ssh_args,
    [PLUGIN_PYTORCH] = &pytorch_args,
    [PLUGIN_TENSORFLOW] = &tensorflow_args,
    [PLUGIN_MPI] = &mpi_args,
    [PLUGIN_RAY] = &ray_args,
};
