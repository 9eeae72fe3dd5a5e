/* Volcano's mpi plugin: the master task's pods get MPI_HOST, the worker pods' FQDNs comma-joined, for
 * mpirun's --host. The port (22 by default) is the workers' sshd; Volcano only opens it on containers. */
#include <stddef.h>
#include <string.h>

#include "common/sbuf.h"
#include "common/strv.h"
#include "scheduler/controller/job_plugins/internal.h"

static int mpi_attempt(const struct job *job, const struct plugin_config *cfg, int task, int index, const char *job_dir,
                       int32_t first_port, struct plugin_attempt *out, char *why, size_t why_len)
{
    (void)index, (void)job_dir, (void)first_port, (void)why, (void)why_len;
    int worker = plugin_task_index(job, plugin_mpi_worker(cfg));
    if (strcmp(job->tasks[task].name, plugin_mpi_master(cfg)) != 0 || worker < 0)
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
    .attempt = mpi_attempt,
};
