/* A Volcano Job's spec.plugins as a model: which of Volcano's job plugins (env, svc, ssh, pytorch,
 * tensorflow, mpi, ray) a job names and their arguments, parsed and admitted as Volcano does. */
#ifndef CALDERA_VOLCANO_JOB_PLUGINS_H
#define CALDERA_VOLCANO_JOB_PLUGINS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/intake/fields.h"
#include "model/job.h"

/* The plugins in registry order: the order of admission checks, of each replica's variables and of
 * the plugins' parts of a job's port block. */
enum plugin_id {
    PLUGIN_ENV,
    PLUGIN_SVC,
    PLUGIN_SSH,
    PLUGIN_PYTORCH,
    PLUGIN_TENSORFLOW,
    PLUGIN_MPI,
    PLUGIN_RAY,
    PLUGIN_COUNT
};

/* Every plugin's arguments as parsed. Strings point into the job's manifest (or the admitted spec)
 * and are NULL when not given; ports are 0 when not given. Defaults are each plugin's to apply, but
 * for the booleans Volcano defaults to true, which the parse starts from (plugin_config_init). */
struct plugin_config {
    bool on[PLUGIN_COUNT];
    struct {
        bool publish_not_ready_addresses; /* --publish-not-ready-addresses: the Service's; no effect here */
        bool disable_network_policy;      /* --disable-network-policy: no NetworkPolicy here to leave out */
        bool inject_hosts_env;            /* --inject-hosts-env (default true): VC_<TASK>_HOSTS and _NUM */
    } svc;
    struct {
        const char *key_file_path;
        const char *private_key;
        const char *public_key;
    } ssh;
    struct {
        const char *master, *worker;
        int32_t port;
    } pytorch;
    struct {
        const char *ps, *worker, *chief, *evaluator;
        int32_t port;
    } tensorflow;
    struct {
        const char *master, *worker;
        int32_t port;
    } mpi;
    struct {
        const char *head, *head_container, *worker, *worker_container;
        int32_t port, dashboard_port, client_port;
    } ray;
};

/* Admission: spec.plugins must name known plugins with arguments they understand (each an error
 * cause with its path); the plugins frameworks need are added as Volcano's webhook adds them (svc
 * for tensorflow, mpi, pytorch and ray; ssh for mpi), written back into `plugins`. Returns false
 * after adding causes. */
bool job_plugins_admit(struct fields *f, json_t *spec);

/* Empties cfg and sets the defaults Volcano's flags start from (svc's --inject-hosts-env: true). */
void plugin_config_init(struct plugin_config *cfg);

/* The plugins of an admitted job and their arguments (pointing into its manifest). Returns 0, or -1
 * with a sentence in why. */
int job_plugins_config(const struct job *job, struct plugin_config *cfg, char *why, size_t why_len);

/* A plugin's name as a Job spells it ("pytorch"). */
const char *job_plugin_name(enum plugin_id id);

/* The task playing a part: the one an argument names, else Volcano's default. */
const char *plugin_mpi_master(const struct plugin_config *cfg);     /* --master, "master" */
const char *plugin_mpi_worker(const struct plugin_config *cfg);     /* --worker, "worker" */
const char *plugin_pytorch_master(const struct plugin_config *cfg); /* --master, "master" */
const char *plugin_pytorch_worker(const struct plugin_config *cfg); /* --worker, "worker" */
const char *plugin_ray_head(const struct plugin_config *cfg);       /* --head, "head" */
const char *plugin_ray_worker(const struct plugin_config *cfg);     /* --worker, "worker" */
/* The containers whose command ray replaces: --headContainer ("head"), --workerContainer ("worker"). */
const char *plugin_ray_head_container(const struct plugin_config *cfg);
const char *plugin_ray_worker_container(const struct plugin_config *cfg);

/* TensorFlow's roles in Volcano's order: the order of its clusterInfo fields and of its task-name switch. */
enum tf_role { TF_PS, TF_WORKER, TF_CHIEF, TF_EVALUATOR, TF_ROLE_COUNT };
/* "ps", "worker", "chief", "evaluator". */
const char *plugin_tf_role_name(enum tf_role role);
/* The task of a role: --ps, --worker, --chief or --evaluator, else the role's name. */
const char *plugin_tf_role_task(const struct plugin_config *cfg, enum tf_role role);

#endif
