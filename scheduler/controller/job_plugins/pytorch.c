/* Volcano's pytorch plugin: MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK for torch.distributed. On one
 * machine MASTER_PORT comes from the job's port block unless --port names one. */
#include <stddef.h>
#include <string.h>

#include "common/strv.h"
#include "scheduler/controller/job_plugins/internal.h"

#define PYTORCH_DEFAULT_PORT 23456
static int32_t pytorch_ports_needed(const struct job *job, const struct plugin_config *cfg)
{
    (void)job;
    return cfg->pytorch.port ? 0 : 1;
}

/* Every pod gets MASTER_ADDR (the master task's pod 0), MASTER_PORT and WORLD_SIZE (the replicas of all
 * the job's tasks, as Volcano counts them); RANK is index + 1 on workers and 0 on the master task. */
static int pytorch_attempt(const struct job *job, const struct plugin_config *cfg, int task, int index,
                           const char *job_dir, int32_t first_port, struct plugin_attempt *out, char *why,
                           size_t why_len)
{
    (void)job_dir, (void)why, (void)why_len;
    int master = plugin_task_index(job, plugin_pytorch_master(cfg));
    if (master < 0)
        return 0;
    char addr[320];
    plugin_domain_name(job, master, 0, addr, sizeof addr);
    int32_t port = cfg->pytorch.port ? cfg->pytorch.port : first_port ? first_port : PYTORCH_DEFAULT_PORT;
    int32_t world = 0;
    for (int t = 0; t < job->ntasks; t++)
        world += job->tasks[t].replicas;
    if (strv_setenvf(&out->env, "MASTER_ADDR=%s", addr) != 0 || strv_setenvf(&out->env, "MASTER_PORT=%d", port) != 0 ||
        strv_setenvf(&out->env, "WORLD_SIZE=%d", world) != 0)
        return -1;
    const char *name = job->tasks[task].name;
    if (strcmp(name, plugin_pytorch_worker(cfg)) == 0)
        return strv_setenvf(&out->env, "RANK=%d", index + 1);
    if (strcmp(name, plugin_pytorch_master(cfg)) == 0)
        return strv_setenvf(&out->env, "RANK=0");
    return 0;
}

const struct plugin_def plugin_pytorch = {
    .id = PLUGIN_PYTORCH,
    .ports_needed = pytorch_ports_needed,
    .attempt = pytorch_attempt,
};
