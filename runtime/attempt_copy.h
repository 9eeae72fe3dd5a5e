/* An attempt_spec that outlives the caller's buffers: everything it points to copied, so that a
 * start can go on on another thread (runtime/launcher.h) after the core has moved on. */
#ifndef CALDERA_ATTEMPT_COPY_H
#define CALDERA_ATTEMPT_COPY_H

#include <stdbool.h>

#include "runtime/attempt.h"

struct attempt_copy {
    struct attempt_spec spec; /* points into the fields below */
    char **argv, **envp;
    char *strings[8]; /* work_dir, chdir_to, log_path, cgroup_name, hosts_file, ssh_dir, exits_path, pod */
    char **volume_dirs, **volume_targets, **gpu_uuid;
    int32_t *gpu_index;
};

/* Whether spec can be copied: a process attempt without pod volumes (hostPath, emptyDir,
 * configMap and secret mounts) and not an OCI container; those start where they are asked. */
bool attempt_copyable(const struct attempt_spec *spec);
/* A copy of a copyable spec, or NULL when out of memory. */
struct attempt_copy *attempt_copy(const struct attempt_spec *spec);
void attempt_copy_free(struct attempt_copy *c);

#endif
