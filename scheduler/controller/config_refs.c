/* ConfigMap and Secret values for a starting pod, found in the cluster: envFrom's keys with their
 * prefix, single keys for configMapKeyRef and secretKeyRef, and a volume's files (its items, or every
 * key at its own name), with the kubelet's messages for what is missing. Core thread. */
#include "scheduler/controller/config_refs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/config_object.h"
#include "common/strv.h"
#include "scheduler/controller/configs.h"

#define SECRET_DEFAULT_MODE 0400
#define CONFIG_MAP_DEFAULT_MODE 0644

static int missing_object(enum config_kind kind, const char *name, char *why, size_t why_len)
{
    snprintf(why, why_len, "%s \"%s\" not found", kind == CONFIG_SECRET ? "secret" : "configmap", name);
    return CONFIG_REFS_MISSING;
}

static int no_memory(char *why, size_t why_len)
{
    snprintf(why, why_len, "out of memory reading ConfigMaps and Secrets");
    return CONFIG_REFS_NO_MEMORY;
}

/* Sets prefix+key to the key's value; a name the kubelet would skip is skipped. */
struct env_from_ctx {
    const struct config_object *o;
    const char *prefix;
    char ***env;
};

static int set_one(void *ctx, const char *key)
{
    struct env_from_ctx *x = ctx;
    char *value;
    size_t len;
    if (strchr(x->prefix, '=') || (!*x->prefix && !*key))
        return 0;
    if (config_object_value(x->o, key, &value, &len) != 0)
        return CONFIG_REFS_NO_MEMORY;
    int rc = strv_setenvf(x->env, "%s%s=%s", x->prefix, key, value) == 0 ? 0 : CONFIG_REFS_NO_MEMORY;
    free(value);
    return rc;
}

int config_refs_env_from(const struct cluster *c, const char *ns, const struct task_spec *ts, char ***env, char *why,
                         size_t why_len)
{
    for (int i = 0; i < ts->nenv_from; i++) {
        const struct task_env_from *e = &ts->env_from[i];
        const struct config_object *o = controller_find_config(c, (enum config_kind)e->kind, ns, e->name);
        if (!o) {
            if (e->optional)
                continue;
            return missing_object((enum config_kind)e->kind, e->name, why, why_len);
        }
        struct env_from_ctx x = {o, e->prefix, env};
        if (config_object_each_key(o, set_one, &x) != 0)
            return no_memory(why, why_len);
    }
    return 0;
}

int config_refs_env(const struct cluster *c, const char *ns, const struct task_env_ref *ref, char ***env, char *why,
                    size_t why_len)
{
    enum config_kind kind = (enum config_kind)(ref->config - 1);
    const struct config_object *o = controller_find_config(c, kind, ns, ref->object_name);
    if (!o)
        return ref->optional ? 0 : missing_object(kind, ref->object_name, why, why_len);
    char *value;
    size_t len;
    int rc = config_object_value(o, ref->key, &value, &len);
    if (rc < 0)
        return no_memory(why, why_len);
    if (rc > 0) {
        if (ref->optional)
            return 0;
        snprintf(why, why_len, "couldn't find key %s in %s %s/%s", ref->key, config_kind_name(kind), ns,
                 ref->object_name);
        return CONFIG_REFS_MISSING;
    }
    rc = strv_setenvf(env, "%s=%s", ref->name, value) == 0 ? 0 : no_memory(why, why_len);
    free(value);
    return rc;
}

void config_refs_files_free(struct attempt_file *files, int n)
{
    for (int i = 0; i < n; i++)
        free(files[i].path), free(files[i].data);
    free(files);
}

struct files_ctx {
    const struct config_object *o;
    struct attempt_file *files;
    int n, mode;
};

/* One file: key's value at path with mode (-1: the volume's). */
static int add_file(struct files_ctx *x, const char *key, const char *path, int mode)
{
    struct attempt_file *f = &x->files[x->n];
    if (config_object_value(x->o, key, &f->data, &f->len) != 0 || !(f->path = strdup(path))) {
        free(f->data);
        return CONFIG_REFS_NO_MEMORY;
    }
    f->mode = mode >= 0 ? mode : x->mode;
    if (x->o->kind == CONFIG_SECRET)
        f->mode &= 0770; /* a Secret's file is never readable by every user */
    x->n++;
    return 0;
}

static int add_key(void *ctx, const char *key) { return add_file(ctx, key, key, -1); }

static int count_key(void *ctx, const char *key)
{
    (void)key;
    (*(int *)ctx)++;
    return 0;
}

int config_refs_files(const struct cluster *c, const char *ns, const struct pod_mount *m, struct attempt_file **files,
                      int *nfiles, char *why, size_t why_len)
{
    enum config_kind kind = m->kind == POD_VOLUME_SECRET ? CONFIG_SECRET : CONFIG_MAP;
    *files = NULL;
    *nfiles = 0;
    const struct config_object *o = controller_find_config(c, kind, ns, m->host_path);
    if (!o)
        return m->optional ? 0 : missing_object(kind, m->host_path, why, why_len);
    int keys = 0;
    config_object_each_key(o, count_key, &keys);
    int cap = m->nitems > 0 ? m->nitems : keys;
    struct files_ctx x = {.o = o, .files = calloc((size_t)(cap ? cap : 1), sizeof *x.files)};
    x.mode = m->default_mode >= 0    ? m->default_mode
             : kind == CONFIG_SECRET ? SECRET_DEFAULT_MODE
                                     : CONFIG_MAP_DEFAULT_MODE;
    int rc = x.files ? 0 : CONFIG_REFS_NO_MEMORY;
    if (rc == 0 && m->nitems == 0)
        rc = config_object_each_key(o, add_key, &x);
    for (int i = 0; rc == 0 && i < m->nitems; i++) {
        char *value;
        size_t len;
        int found = config_object_value(o, m->items[i].key, &value, &len);
        free(value);
        if (found < 0) {
            rc = CONFIG_REFS_NO_MEMORY;
        } else if (found > 0) {
            if (m->optional)
                continue;
            snprintf(why, why_len, "%s references non-existent %s key: %s",
                     kind == CONFIG_SECRET ? "secret" : "configmap", kind == CONFIG_SECRET ? "secret" : "config",
                     m->items[i].key);
            config_refs_files_free(x.files, x.n);
            return CONFIG_REFS_MISSING;
        } else {
            rc = add_file(&x, m->items[i].key, m->items[i].path, m->items[i].mode);
        }
    }
    if (rc != 0) {
        config_refs_files_free(x.files, x.n);
        return no_memory(why, why_len);
    }
    *files = x.files;
    *nfiles = x.n;
    return 0;
}
