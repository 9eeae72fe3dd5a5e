/* Volcano's mpi plugin: the master task's pods get MPI_HOST, the worker pods' FQDNs comma-joined, for
 * mpirun's --host. The port (22 by default) is the workers' sshd; Volcano only opens it on containers. */
#include <stddef.h>
#include <string.h>

#include "common/sbuf.h"
#include "common/strv.h"
#include "scheduler/controller/job_plugins/internal.h"

#define MPI_DEFAULT_MASTER "master"
#define MPI_DEFAULT_WORKER "worker"

static const struct plugin_flag mpi_flags[] = {
    {"master", FLAG_STRING, offsetof(struct plugin_config, mpi.master)},
    {"worker", FLAG_STRING, offsetof(struct plugin_config, mpi.worker)},
    {"port", FLAG_PORT, offsetof(struct plugin_config, mpi.port)},
};

static const char *master_of(const struct plugin_config *cfg)
{
    return cfg->mpi.master ? cfg->mpi.master : MPI_DEFAULT_MASTER;
}

static const char *worker_of(const struct plugin_config *cfg)
{
    return cfg->mpi.worker ? cfg->mpi.worker : MPI_DEFAULT_WORKER;
}

/* Volcano's master pod looks the worker task up unchecked (a missing one fails the pod); both must exist. */
static void mpi_admit(struct fields *f, json_t *plugins, const json_t *spec, const struct plugin_config *cfg)
{
    plugin_require_task(f, plugins, "mpi", spec, master_of(cfg), "master", "--master");
    plugin_require_task(f, plugins, "mpi", spec, worker_of(cfg), "worker", "--worker");
}

static int mpi_attempt(const struct job *job, const struct plugin_config *cfg, int task, int index,
                       const char *job_dir, int32_t first_port, struct plugin_attempt *out, char *why, size_t why_len)
{
    (void)index, (void)job_dir, (void)first_port, (void)why, (void)why_len;
    int worker = plugin_task_index(job, worker_of(cfg));
    if (strcmp(job->tasks[task].name, master_of(cfg)) != 0 || worker < 0)
        return 0;
    struct sbuf hosts = {0};
    char name[320];
    for (int i = 0; i < job->tasks[worker].replicas; i++) {
        plugin_domain_name(job, worker, i, name, sizeof name);
        sbuf_printf(&hosts, "%s%s", i ? "," : "", name);
    }
    int rc = hosts.failed ? -1 : strv_setenvf(&out->env, "MPI_HOST=%s", sbuf_str(&hosts));
    sbuf_free(&hosts);
    return rc;
}

const struct plugin_def plugin_mpi = {
    .id = PLUGIN_MPI,
    .name = "mpi",
    .flags = mpi_flags,
    .nflags = sizeof mpi_flags / sizeof mpi_flags[0],
    .admit = mpi_admit,
    .attempt = mpi_attempt,
};
