/* The job plugins' runtime side, and job_plugins.h on top of them, from each job's parsed arguments:
 * the port block's layout (plugins in registry order), the job's files, one replica's env. */
#include <stdio.h>
#include <string.h>

#include "common/strv.h"
#include "scheduler/controller/job_plugins/internal.h"

/* Registry order: the order of each replica's variables and of the plugins' parts of the port block. */
static const struct plugin_def *const plugin_defs[PLUGIN_COUNT] = {
    &plugin_env, &plugin_svc, &plugin_ssh, &plugin_pytorch, &plugin_tensorflow, &plugin_mpi, &plugin_ray,
};

static int32_t ports_of(const struct plugin_def *def, const struct job *job, const struct plugin_config *cfg)
{
    return cfg->on[def->id] && def->ports_needed ? def->ports_needed(job, cfg) : 0;
}

int32_t plugin_first_port(const struct job *job, const struct plugin_config *cfg, enum plugin_id id)
{
    if (job->port_base <= 0)
        return 0;
    int32_t offset = 0;
    for (int i = 0; i < PLUGIN_COUNT && plugin_defs[i]->id != id; i++)
        offset += ports_of(plugin_defs[i], job, cfg);
    return job->port_base + offset;
}

int32_t job_plugins_ports_needed(const struct job *job)
{
    struct plugin_config cfg;
    char why[256];
    if (job_plugins_config(job, &cfg, why, sizeof why) != 0)
        return 0;
    int32_t total = 0;
    for (int i = 0; i < PLUGIN_COUNT; i++)
        total += ports_of(plugin_defs[i], job, &cfg);
    return total;
}

int job_plugins_prepare(const struct job *job, const char *job_dir, char *why, size_t why_len)
{
    struct plugin_config cfg;
    why[0] = '\0';
    if (job_plugins_config(job, &cfg, why, why_len) != 0)
        return -1;
    for (int i = 0; i < PLUGIN_COUNT; i++) {
        const struct plugin_def *def = plugin_defs[i];
        if (cfg.on[def->id] && def->prepare && def->prepare(job, &cfg, job_dir, why, why_len) != 0) {
            if (!why[0])
                snprintf(why, why_len, "%s plugin: out of memory", job_plugin_name(def->id));
            return -1;
        }
    }
    return 0;
}

int job_plugins_attempt(const struct job *job, int task, int index, const char *job_dir, struct plugin_attempt *out,
                        char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    why[0] = '\0';
    if (task < 0 || task >= job->ntasks || index < 0 || index >= job->tasks[task].replicas) {
        snprintf(why, why_len, "no replica %d of task %d in job %s", index, task, job->name);
        return -1;
    }
    struct plugin_config cfg;
    if (job_plugins_config(job, &cfg, why, why_len) != 0)
        return -1;
    cfg.on[PLUGIN_ENV] = true; /* VK_TASK_INDEX and VC_TASK_INDEX always */
    int32_t offset = 0;
    for (int i = 0; i < PLUGIN_COUNT; i++) {
        const struct plugin_def *def = plugin_defs[i];
        int32_t first_port = job->port_base > 0 ? job->port_base + offset : 0;
        offset += ports_of(def, job, &cfg);
        if (!cfg.on[def->id] || !def->attempt)
            continue;
        if (def->attempt(job, &cfg, task, index, job_dir, first_port, out, why, why_len) != 0) {
            if (!why[0])
                snprintf(why, why_len, "%s plugin: out of memory", job_plugin_name(def->id));
            plugin_attempt_free(out);
            return -1;
        }
    }
    return 0;
}

void plugin_attempt_free(struct plugin_attempt *pa)
{
    strv_free(pa->env);
    strv_free(pa->argv);
    memset(pa, 0, sizeof *pa);
}
