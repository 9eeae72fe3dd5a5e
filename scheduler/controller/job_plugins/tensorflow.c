/* Volcano's tensorflow plugin: TF_CONFIG with the cluster's ps, worker, chief and evaluator hosts and the
 * pod's own role and index. On one machine every replica listens on a port of its own from the job's block. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/strv.h"
#include "scheduler/controller/job_plugins/internal.h"

#define TF_DEFAULT_PORT 2222

/* The first role whose task this is, or -1 (Volcano then uses the task's own name as the type). */
static int role_of_task(const struct plugin_config *cfg, const char *task)
{
    for (int r = 0; r < TF_ROLE_COUNT; r++)
        if (strcmp(task, plugin_tf_role_task(cfg, (enum tf_role)r)) == 0)
            return r;
    return -1;
}

/* A stand-alone job (one task of one replica) gets no TF_CONFIG, as in Volcano. */
static bool stand_alone(const struct job *job) { return job->ntasks == 1 && job->tasks[0].replicas == 1; }

static int32_t tensorflow_ports_needed(const struct job *job, const struct plugin_config *cfg)
{
    return cfg->tensorflow.port || stand_alone(job) ? 0 : job->total_replicas;
}

/* A replica's port: the given --port, else its own port in the block (first + its flat index), else 2222. */
static int32_t replica_port(const struct job *job, const struct plugin_config *cfg, int32_t first_port, int task,
                            int index)
{
    if (cfg->tensorflow.port)
        return cfg->tensorflow.port;
    return first_port ? first_port + job->task_first[task] + index : TF_DEFAULT_PORT;
}

/* {"cluster":{"ps":[..],"worker":[..],"chief":[..],"evaluator":[..]},"task":{"type":..,"index":..}}, with
 * the roles that have no task left out (Go's omitempty) and a role's hosts "<pod>.<job>:<port>". */
static char *tf_config_json(const struct job *job, const struct plugin_config *cfg, int task, int index,
                            int32_t first_port)
{
    json_t *cluster = json_object(), *doc = json_object(), *self = json_object();
    bool ok = cluster && doc && self;
    for (int r = 0; ok && r < TF_ROLE_COUNT; r++) {
        for (int t = 0; ok && t < job->ntasks; t++) {
            if (role_of_task(cfg, job->tasks[t].name) != r)
                continue;
            json_t *hosts = json_array();
            ok = hosts && json_object_set_new(cluster, plugin_tf_role_name((enum tf_role)r), hosts) == 0;
            for (int i = 0; ok && i < job->tasks[t].replicas; i++) {
                char name[320], host[340];
                plugin_domain_name(job, t, i, name, sizeof name);
                snprintf(host, sizeof host, "%s:%d", name, replica_port(job, cfg, first_port, t, i));
                ok = json_array_append_new(hosts, json_string(host)) == 0;
            }
            if (ok && json_array_size(hosts) == 0)
                json_object_del(cluster, plugin_tf_role_name((enum tf_role)r));
            /* Volcano's last task of a role wins; Caldera's task names are unique, so there is one. */
        }
    }
    int role = role_of_task(cfg, job->tasks[task].name);
    const char *type = role >= 0 ? plugin_tf_role_name((enum tf_role)role) : job->tasks[task].name;
    ok = ok && json_object_set_new(self, "type", json_string(type)) == 0 &&
         json_object_set_new(self, "index", json_integer(index)) == 0 &&
         json_object_set(doc, "cluster", cluster) == 0 && json_object_set(doc, "task", self) == 0;
    char *text = ok ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(cluster);
    json_decref(self);
    json_decref(doc);
    return text;
}

static int tensorflow_attempt(const struct job *job, const struct plugin_config *cfg, int task, int index,
                              const char *job_dir, int32_t first_port, struct plugin_attempt *out, char *why,
                              size_t why_len)
{
    (void)job_dir, (void)why, (void)why_len;
    if (stand_alone(job))
        return 0;
    char *tf_config = tf_config_json(job, cfg, task, index, first_port);
    int rc = tf_config ? strv_setenvf(&out->env, "TF_CONFIG=%s", tf_config) : -1;
    free(tf_config);
    return rc;
}

const struct plugin_def plugin_tensorflow = {
    .id = PLUGIN_TENSORFLOW,
    .ports_needed = tensorflow_ports_needed,
    .attempt = tensorflow_attempt,
};
