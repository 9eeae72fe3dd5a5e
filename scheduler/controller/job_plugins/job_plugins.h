/* Volcano's job plugins at run time, with their exact variables: env, svc, ssh, pytorch, tensorflow,
 * mpi, ray (their arguments and admission: adapters/dialects/volcano/job_plugins/). For the process
 * runtime every replica runs on this machine, so svc's names resolve through a per-job hosts file
 * and each replica gets a port of its own from the job's block. */
#ifndef CALDERA_JOB_PLUGINS_H
#define CALDERA_JOB_PLUGINS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/job.h"

/* How many consecutive ports the job needs (0 when none): one per replica for the frameworks that
 * address replicas by host:port. The controller allocates the block (job->port_base). */
int32_t job_plugins_ports_needed(const struct job *job);

/* Writes the job's files before any of its replicas starts (or after a job restart): the svc host
 * lists (<job dir>/etc/volcano/<task>.host), the hosts file (<job dir>/etc/hosts, every
 * "<pod>.<job>" and "<pod>" at 127.0.0.1, plus this machine's own entries), the ssh key pair and
 * its authorized_keys and config (<job dir>/ssh, mode 0600). Idempotent. Returns 0, or -1 with a
 * sentence in why. */
int job_plugins_prepare(const struct job *job, const char *job_dir, char *why, size_t why_len);

/* What one replica's attempt gets from the plugins: environment variables (appended with
 * strv_setenv, so the container's own env may not override Volcano's), a rewritten argv (ray), the
 * hosts file and ssh directory to bind. Paths point into job_dir. Returns 0 or -1 with why. */
struct plugin_attempt {
    char **env;           /* owned by the caller once returned */
    char **argv;          /* NULL: keep the task's own */
    char hosts_file[512]; /* "" when no plugin asks for name resolution */
    char ssh_dir[512];    /* "" without the ssh plugin */
};
int job_plugins_attempt(const struct job *job, int task, int index, const char *job_dir, struct plugin_attempt *out,
                        char *why, size_t why_len);
void plugin_attempt_free(struct plugin_attempt *pa);

#endif
