/* The --backends file read field by field (adapters/objects/backend_conf.h): default, kubernetes,
 * slurm and queues; every mistake a cause with its path and line. */
#include "adapters/objects/backend_conf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/intake/intake.h"

/* A string field into *dst (replacing what a flag put there). */
static void read_string(struct fields *f, const json_t *obj, const char *key, const char *parent, char **dst)
{
    const char *v = NULL;
    if (field_string_in(f, obj, key, parent, false, &v) && v) {
        free(*dst);
        *dst = strdup(v);
    }
}

static bool read_kind(struct fields *f, const json_t *obj, const char *key, const char *path, enum backend_kind *out)
{
    const char *v = NULL;
    if (!field_string(f, obj, key, path, false, &v) || !v)
        return false;
    int k = backend_kind_parse(v);
    if (k < 0) {
        field_unsupported(f, obj, key, path, "supported values: \"local\", \"kubernetes\", \"slurm\"");
        return false;
    }
    *out = (enum backend_kind)k;
    return true;
}

static void read_queues(struct fields *f, const json_t *root, struct backend_conf *c)
{
    json_t *queues = NULL;
    if (!field_object_in(f, root, "queues", "", false, &queues) || !queues)
        return;
    const char *name;
    json_t *value;
    json_object_foreach(queues, name, value)
    {
        char path[FIELD_PATH_MAX];
        field_path(path, "queues", name);
        enum backend_kind kind;
        if (!read_kind(f, queues, name, path, &kind))
            continue;
        struct backend_queue_route *grown = realloc(c->queues, (size_t)(c->nqueues + 1) * sizeof *grown);
        if (!grown) {
            api_fail(f->st, 500, "InternalError", "out of memory");
            return;
        }
        c->queues = grown;
        c->queues[c->nqueues] = (struct backend_queue_route){strdup(name), kind};
        c->nqueues++;
    }
}

int backend_conf_parse(const char *data, size_t len, struct backend_conf *out, struct api_status *st)
{
    struct intake in;
    int found = intake_parse_config(data, len, "a backends file is one YAML mapping", &in, st);
    if (found <= 0)
        return found;
    static const char *const root_keys[] = {"default", "kubernetes", "slurm", "queues", NULL};
    static const char *const kube_keys[] = {"kubeconfig", NULL};
    static const char *const slurm_keys[] = {"url", "tokenFile", "user", "partition", "workDir", NULL};
    struct fields f = {&in.docs[0], st, false};
    json_t *root = in.docs[0].root, *kube = NULL, *slurm = NULL;
    field_check_known(&f, root, "", root_keys);
    read_kind(&f, root, "default", "default", &out->default_kind);
    if (field_object_in(&f, root, "kubernetes", "", false, &kube) && kube) {
        field_check_known(&f, kube, "kubernetes", kube_keys);
        read_string(&f, kube, "kubeconfig", "kubernetes", &out->kubeconfig);
    }
    if (field_object_in(&f, root, "slurm", "", false, &slurm) && slurm) {
        field_check_known(&f, slurm, "slurm", slurm_keys);
        read_string(&f, slurm, "url", "slurm", &out->slurmrestd);
        read_string(&f, slurm, "tokenFile", "slurm", &out->slurm_token_file);
        read_string(&f, slurm, "user", "slurm", &out->slurm_user);
        read_string(&f, slurm, "partition", "slurm", &out->slurm_partition);
        read_string(&f, slurm, "workDir", "slurm", &out->slurm_work_dir);
    }
    read_queues(&f, root, out);
    intake_free(&in);
    if (st->ncauses > 0 || !api_ok(st))
        return api_ok(st) ? api_fail_invalid(st, "backends file", "") : -1;
    return 0;
}

static bool used(const struct backend_conf *c, enum backend_kind kind)
{
    if (c->default_kind == kind)
        return true;
    for (int i = 0; i < c->nqueues; i++)
        if (c->queues[i].kind == kind)
            return true;
    return false;
}

int backend_conf_check(const struct backend_conf *c, struct api_status *st)
{
    if (used(c, BACKEND_KUBERNETES) && !c->kubeconfig)
        return api_fail(st, 400, "BadRequest",
                        "jobs are routed to kubernetes but no kubeconfig is given (--kubeconfig FILE, or "
                        "kubernetes.kubeconfig in the backends file)");
    if (used(c, BACKEND_SLURM) && !c->slurmrestd)
        return api_fail(st, 400, "BadRequest",
                        "jobs are routed to slurm but no slurmrestd is given (--slurmrestd URL, or slurm.url in "
                        "the backends file)");
    return 0;
}
