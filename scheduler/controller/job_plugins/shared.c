/* What the job plugins' runtime side shares: pod domain names as Volcano makes them, finding a task
 * of the job by name, an mpi worker's sshd port (mpi and ssh both need it), writing a plugin's files. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "common/strv.h"
#include "scheduler/controller/job_plugins/internal.h"

#define MPI_DEFAULT_SSH_PORT 22 /* Volcano's mpi plugin's --port */

void plugin_domain_name(const struct job *job, int task, int index, char *buf, size_t len)
{
    char pod[256];
    job_pod_name(job, task, index, pod, (int)sizeof pod);
    snprintf(buf, len, "%s.%s", pod, job->name);
}

int32_t plugin_mpi_ssh_port(const struct job *job, const struct plugin_config *cfg, int task, int index,
                            int32_t first_port)
{
    if (!cfg->on[PLUGIN_MPI] || strcmp(job->tasks[task].name, plugin_mpi_worker(cfg)) != 0)
        return 0;
    if (cfg->mpi.port)
        return cfg->mpi.port;
    return first_port ? first_port + index : MPI_DEFAULT_SSH_PORT;
}

int plugin_task_index(const struct job *job, const char *name)
{
    for (int t = 0; name && t < job->ntasks; t++)
        if (job->tasks[t].name && strcmp(job->tasks[t].name, name) == 0)
            return t;
    return -1;
}

int plugin_write_file(const char *dir, const char *name, const char *data, size_t len, mode_t mode, char *why,
                      size_t why_len)
{
    char path[1024];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        snprintf(why, why_len, "path too long: %s/%s", dir, name);
        return -1;
    }
    if (write_file_atomic(path, data, len, mode) != 0) {
        snprintf(why, why_len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
