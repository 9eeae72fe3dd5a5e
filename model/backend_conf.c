/* Backend kinds by name (what --backend, the --backends file and a job's stored status say) and the
 * routes from queues to backends (model/backend_conf.h). */
#include "model/backend_conf.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[BACKEND_KIND_COUNT] = {"local", "kubernetes", "slurm"};

const char *backend_kind_name(enum backend_kind k)
{
    return (unsigned)k < BACKEND_KIND_COUNT ? kind_names[k] : "unknown";
}

int backend_kind_parse(const char *s)
{
    for (int k = 0; s && k < BACKEND_KIND_COUNT; k++)
        if (strcmp(s, kind_names[k]) == 0)
            return k;
    return -1;
}

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
