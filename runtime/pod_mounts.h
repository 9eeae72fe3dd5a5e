/* The parent's half of a pod's hostPath and emptyDir mounts: the hostPath checked (and made) by its
 * type as the kubelet does, the emptyDir's directory made for the task's user, the mount point made
 * without following a symbolic link, and each turned into the spawn_mount the child mounts. */
#ifndef CALDERA_RUNTIME_POD_MOUNTS_H
#define CALDERA_RUNTIME_POD_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/attempt.h"
#include "runtime/spawn.h"

struct pod_mounts {
    int count;
    struct spawn_mount mounts[ATTEMPT_MOUNTS_MAX];
    char names[ATTEMPT_MOUNTS_MAX][4096]; /* each target's names, NUL-separated */
    char size[ATTEMPT_MOUNTS_MAX][24], uid[ATTEMPT_MOUNTS_MAX][16], gid[ATTEMPT_MOUNTS_MAX][16];
};

/* Prepares spec's mounts into out; the emptyDir directories are given to the task's user when
 * chown_to_user. For a container (for_container) no mount point is made on the node: podman makes
 * them in the container's own root. Returns 0, or -1 with why ("hostPath type check failed: /x is not a directory",
 * "the mountPath /a/b passes through a symbolic link: not followed"). */
int pod_mounts_prepare(const struct attempt_spec *spec, bool chown_to_user, bool for_container, struct pod_mounts *out,
                       char *why, size_t why_len);

#endif
