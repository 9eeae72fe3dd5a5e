/* Inside the job plugins' runtime side: each plugin's callbacks over its parsed arguments (the
 * adapter's struct plugin_config) and the helpers they share (pod domain names, file writing). */
#ifndef CALDERA_JOB_PLUGINS_INTERNAL_H
#define CALDERA_JOB_PLUGINS_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "adapters/dialects/volcano/job_plugins/job_plugins.h"
#include "model/job.h"
#include "scheduler/controller/job_plugins/job_plugins.h"

/* --- the job as plugins see it --------------------------------------------------------------------- */

/* Volcano's MakeDomainName for Caldera's pods: "<job>-<task>-<index>.<job>". The short host name is
 * the part before the dot (job_pod_name). */
void plugin_domain_name(const struct job *job, int task, int index, char *buf, size_t len);
/* The index of the task named name, or -1. */
int plugin_task_index(const struct job *job, const char *name);
/* The first port of plugin id's part of the job's block (plugins in registry order), 0 when the
 * controller allocated none. */
int32_t plugin_first_port(const struct job *job, const struct plugin_config *cfg, enum plugin_id id);
/* The port the sshd of the mpi plugin's worker pod (task, index) listens on: --port when given, else on
 * one machine a port of its own from the job's block (first_port: mpi's first, 0 when there is no
 * block), else 22; 0 when the pod is no mpi worker. */
int32_t plugin_mpi_ssh_port(const struct job *job, const struct plugin_config *cfg, int task, int index,
                            int32_t first_port);
/* Writes a file under dir through common/fs.h; returns 0 or -1 with why. */
int plugin_write_file(const char *dir, const char *name, const char *data, size_t len, mode_t mode, char *why,
                      size_t why_len);

/* --- one plugin -------------------------------------------------------------------------------------- */

struct plugin_def {
    enum plugin_id id;
    /* Ports this plugin takes from the job's block (0 when it needs none). */
    int32_t (*ports_needed)(const struct job *job, const struct plugin_config *cfg);
    /* Files before the job's replicas start; idempotent. */
    int (*prepare)(const struct job *job, const struct plugin_config *cfg, const char *job_dir, char *why,
                   size_t why_len);
    /* One replica's env/argv/binds. first_port: this plugin's first port in the job's block, 0 when the
     * controller allocated none (then Volcano's default ports are used). */
    int (*attempt)(const struct job *job, const struct plugin_config *cfg, int task, int index, const char *job_dir,
                   int32_t first_port, struct plugin_attempt *out, char *why, size_t why_len);
};

extern const struct plugin_def plugin_env;
extern const struct plugin_def plugin_svc;
extern const struct plugin_def plugin_ssh;
extern const struct plugin_def plugin_pytorch;
extern const struct plugin_def plugin_tensorflow;
extern const struct plugin_def plugin_mpi;
extern const struct plugin_def plugin_ray;

#endif
