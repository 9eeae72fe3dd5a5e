/* Deep copies of attempt specs for starts that go on off the core thread: the argv and environment,
 * the paths, the Job's volumes and the GPU devices, each owned by the copy. */
#include "runtime/attempt_copy.h"

#include <stdlib.h>
#include <string.h>

#include "common/strv.h"

bool attempt_copyable(const struct attempt_spec *spec) { return spec->nmounts == 0 && !spec->oci_image; }

/* n strings, some of which may be NULL. */
static void free_strings(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* A copy of n strings (each may be NULL), or NULL when out of memory; n == 0 gives NULL too. */
static char **copy_strings(const char *const *v, int n, bool *failed)
{
    if (n <= 0 || !v)
        return NULL;
    char **out = calloc((size_t)n + 1, sizeof *out);
    for (int i = 0; out && i < n; i++)
        if (v[i] && !(out[i] = strdup(v[i]))) {
            free_strings(out, n);
            out = NULL;
        }
    *failed |= !out;
    return out;
}

static const char *copy_string(struct attempt_copy *c, int i, const char *s, bool *failed)
{
    if (!s)
        return NULL;
    c->strings[i] = strdup(s);
    *failed |= !c->strings[i];
    return c->strings[i];
}

struct attempt_copy *attempt_copy(const struct attempt_spec *spec)
{
    struct attempt_copy *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    bool failed = false;
    c->spec = *spec;
    c->argv = spec->argv ? strv_dup(spec->argv) : NULL;
    c->envp = spec->envp ? strv_dup(spec->envp) : NULL;
    failed |= (spec->argv && !c->argv) || (spec->envp && !c->envp);
    c->spec.argv = c->argv;
    c->spec.envp = c->envp;
    c->spec.work_dir = copy_string(c, 0, spec->work_dir, &failed);
    c->spec.chdir_to = copy_string(c, 1, spec->chdir_to, &failed);
    c->spec.log_path = copy_string(c, 2, spec->log_path, &failed);
    c->spec.cgroup_name = copy_string(c, 3, spec->cgroup_name, &failed);
    c->spec.hosts_file = copy_string(c, 4, spec->hosts_file, &failed);
    c->spec.ssh_dir = copy_string(c, 5, spec->ssh_dir, &failed);
    c->spec.exits_path = copy_string(c, 6, spec->exits_path, &failed);
    c->spec.pod = copy_string(c, 7, spec->pod, &failed);
    c->volume_dirs = copy_strings(spec->volume_dirs, spec->nvolumes, &failed);
    c->volume_targets = copy_strings(spec->volume_targets, spec->nvolumes, &failed);
    c->spec.volume_dirs = (const char *const *)c->volume_dirs;
    c->spec.volume_targets = (const char *const *)c->volume_targets;
    c->gpu_uuid = copy_strings(spec->gpu_uuid, spec->ngpus, &failed);
    c->spec.gpu_uuid = (const char *const *)c->gpu_uuid;
    if (spec->ngpus > 0 && spec->gpu_index) {
        c->gpu_index = malloc((size_t)spec->ngpus * sizeof *c->gpu_index);
        if (c->gpu_index)
            memcpy(c->gpu_index, spec->gpu_index, (size_t)spec->ngpus * sizeof *c->gpu_index);
        failed |= !c->gpu_index;
    }
    c->spec.gpu_index = c->gpu_index;
    c->spec.mounts = NULL;
    c->spec.nmounts = 0;
    if (failed) {
        attempt_copy_free(c);
        return NULL;
    }
    return c;
}

void attempt_copy_free(struct attempt_copy *c)
{
    if (!c)
        return;
    strv_free(c->argv);
    strv_free(c->envp);
    for (size_t i = 0; i < sizeof c->strings / sizeof c->strings[0]; i++)
        free(c->strings[i]);
    free_strings(c->volume_dirs, c->spec.nvolumes);
    free_strings(c->volume_targets, c->spec.nvolumes);
    free_strings(c->gpu_uuid, c->spec.ngpus);
    free(c->gpu_index);
    free(c);
}
