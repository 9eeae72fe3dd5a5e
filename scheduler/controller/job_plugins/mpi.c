/* Volcano's mpi plugin: the master task's pods get MPI_HOST, the worker pods' FQDNs comma-joined, for
 * mpirun's --host. The port (22 by default) is the workers' sshd; Volcano only opens it on containers.
 * On one machine every worker's sshd needs a port of its own: each worker gets one from the job's block
 * (MPI_SSH_PORT, what its sshd listens on; the ssh plugin's config names it for the worker's host), and
 * the master gets Open MPI's hostfile (<job dir>/etc/mpi/hostfile, "<host> slots=1" per worker), as the
 * MPI operator gives its launchers, with keep_fqdn_hostnames as it sets it and, since every pod's name
 * resolves to 127.0.0.1 here, if_base_do_not_resolve: Open MPI would take the workers for the launcher's
 * own machine and start their ranks beside itself instead of through their sshd. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/fs.h"
#include "common/sbuf.h"
#include "common/strv.h"
#include "scheduler/controller/job_plugins/internal.h"

#define MPI_CONFIG_SUBDIR "etc/mpi"
#define MPI_HOSTFILE "hostfile"

static int32_t mpi_ports_needed(const struct job *job, const struct plugin_config *cfg)
{
    int worker = plugin_task_index(job, plugin_mpi_worker(cfg));
    return cfg->mpi.port || worker < 0 ? 0 : job->tasks[worker].replicas;
}

/* "<worker FQDN> slots=1" per worker: Open MPI's hostfile, one slot each as MPI_HOST lists them. */
static int mpi_prepare(const struct job *job, const struct plugin_config *cfg, const char *job_dir, char *why,
                       size_t why_len)
{
    int worker = plugin_task_index(job, plugin_mpi_worker(cfg));
    if (worker < 0)
        return 0;
    char dir[1024];
    if (snprintf(dir, sizeof dir, "%s/%s", job_dir, MPI_CONFIG_SUBDIR) >= (int)sizeof dir) {
        snprintf(why, why_len, "job directory path too long: %s", job_dir);
        return -1;
    }
    if (mkdir_p(dir, 0755) != 0) {
        snprintf(why, why_len, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    struct sbuf hosts = {0};
    char name[320];
    for (int i = 0; i < job->tasks[worker].replicas; i++) {
        plugin_domain_name(job, worker, i, name, sizeof name);
        sbuf_printf(&hosts, "%s slots=1\n", name);
    }
    int rc = -1;
    if (hosts.failed)
        snprintf(why, why_len, "out of memory");
    else
        rc = plugin_write_file(dir, MPI_HOSTFILE, sbuf_str(&hosts), hosts.len, 0644, why, why_len);
    sbuf_free(&hosts);
    return rc;
}

static int mpi_attempt(const struct job *job, const struct plugin_config *cfg, int task, int index, const char *job_dir,
                       int32_t first_port, struct plugin_attempt *out, char *why, size_t why_len)
{
    (void)why, (void)why_len;
    int worker = plugin_task_index(job, plugin_mpi_worker(cfg));
    if (task == worker)
        return strv_setenvf(&out->env, "MPI_SSH_PORT=%d", plugin_mpi_ssh_port(job, cfg, task, index, first_port));
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
    if (rc != 0 || strv_setenvf(&out->env, "OMPI_MCA_orte_default_hostfile=%s/%s/%s", job_dir, MPI_CONFIG_SUBDIR,
                                MPI_HOSTFILE) != 0)
        return -1;
    if (strv_setenvf(&out->env, "OMPI_MCA_orte_keep_fqdn_hostnames=true") != 0)
        return -1;
    return strv_setenvf(&out->env, "OMPI_MCA_if_base_do_not_resolve=true");
}

const struct plugin_def plugin_mpi = {
    .id = PLUGIN_MPI,
    .ports_needed = mpi_ports_needed,
    .prepare = mpi_prepare,
    .attempt = mpi_attempt,
};
