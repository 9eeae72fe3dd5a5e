/* What a starting pod reads from ConfigMaps and Secrets, as the kubelet resolves it: envFrom,
 * configMapKeyRef and secretKeyRef variables, and the files of configMap and secret volumes. A
 * missing object or key that is not optional is the pod's CreateContainerConfigError, in the
 * kubelet's words; no message ever carries a value. */
#ifndef CALDERA_CONTROLLER_CONFIG_REFS_H
#define CALDERA_CONTROLLER_CONFIG_REFS_H

#include <stddef.h>

#include "model/cluster.h"
#include "runtime/attempt.h"

/* What the functions below return besides 0: out of memory, or a config error (why says which). */
#define CONFIG_REFS_NO_MEMORY (-1)
#define CONFIG_REFS_MISSING (-2)

/* The container's envFrom into env, in order (a later source's key wins; keys that are no valid
 * variable name are skipped, as the kubelet skips them). */
int config_refs_env_from(const struct cluster *c, const char *ns, const struct task_spec *ts, char ***env, char *why,
                         size_t why_len);
/* One configMapKeyRef or secretKeyRef variable into env (left unset when optional and missing). */
int config_refs_env(const struct cluster *c, const char *ns, const struct task_env_ref *ref, char ***env, char *why,
                    size_t why_len);

/* The files of a configMap or secret volume m: *files gets *nfiles new entries (free them with
 * config_refs_files_free), each a path relative to the volume, its bytes and mode. */
int config_refs_files(const struct cluster *c, const char *ns, const struct pod_mount *m, struct attempt_file **files,
                      int *nfiles, char *why, size_t why_len);
void config_refs_files_free(struct attempt_file *files, int n);

#endif
