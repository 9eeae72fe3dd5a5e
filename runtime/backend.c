/* The backend interface's small shared parts: reports made and freed, backend names, and which
 * backend runs a queue's jobs (runtime/backend.h). */
#include "runtime/backend.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct backend_update *backend_update_new(enum backend_update_kind kind, const char *job_uid, const char *ref)
{
    struct backend_update *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->kind = kind;
    if (job_uid)
        snprintf(u->job_uid, sizeof u->job_uid, "%s", job_uid);
    if (ref)
        snprintf(u->ref, sizeof u->ref, "%s", ref);
    return u;
}

void backend_update_free(struct backend_update *u) { free(u); }

enum backend_kind backend_conf_route(const struct backend_conf *conf, const char *queue)
{
    if (!conf)
        return BACKEND_LOCAL;
    for (int i = 0; queue && i < conf->nqueues; i++)
        if (strcmp(conf->queues[i].queue, queue) == 0)
            return conf->queues[i].kind;
    return conf->default_kind;
}

void backend_conf_free(struct backend_conf *conf)
{
    if (!conf)
        return;
    free(conf->kubeconfig);
    free(conf->slurmrestd);
    free(conf->slurm_token_file);
    free(conf->slurm_user);
    free(conf->slurm_partition);
    free(conf->slurm_work_dir);
    for (int i = 0; i < conf->nqueues; i++)
        free(conf->queues[i].queue);
    free(conf->queues);
    memset(conf, 0, sizeof *conf);
}
