/* The OCI runtime behind runtimeClassName: oci: where podman is (found once at start), how a bound
 * GPU is passed to a container (CDI where a spec names nvidia.com/gpu, else the device nodes), and
 * the removal of an ended attempt's container and cgroup on a thread of its own. */
#ifndef CALDERA_RUNTIME_OCI_RUNTIME_H
#define CALDERA_RUNTIME_OCI_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

/* Finds podman: path as given (--oci-runtime), else "podman" on the server's PATH. Call once at
 * start, before the first task. Returns NULL when it is there, else why not ("podman is not
 * installed", "--oci-runtime /x: No such file or directory"), for admission to name. */
const char *oci_runtime_configure(const char *path);
/* The program found, or NULL. */
const char *oci_runtime_path(void);

/* The --device values for the attempt's GPUs (indexes, UUIDs "" when unknown), NULL-terminated:
 * "nvidia.com/gpu=<UUID or index>" when a CDI spec in /etc/cdi or /var/run/cdi names nvidia.com/gpu,
 * else /dev/nvidia<index> and the driver's control nodes that exist. *cdi says which. Returns 0, or
 * -1 when memory ran out. */
int oci_gpu_devices(int n, const int32_t *index, const char *const *uuid, char ***devices, bool *cdi);

/* Whether the attempt cgroup holds a container's supervisor (an OCI attempt). */
bool oci_cgroup_is_container(const char *cgroup_name);
/* An ended OCI attempt: `podman rm -f` its container (whatever was left of it: killed mid-way, a
 * server gone), then removes its cgroup (and the directories podman made in v1 hierarchies Caldera
 * does not use) and its env file, on the cleaner of OCI attempts, in order. container and env_file
 * may be NULL (the container is then named from the cgroup name). */
void oci_remove_async(const char *container, const char *cgroup_name, const char *env_file);
/* cgroup_remove_async, or oci_remove_async for an OCI attempt's cgroup. */
void oci_or_cgroup_remove_async(const char *cgroup_name);
/* Waits until every removal asked so far is done. Returns 0, or -1 on timeout. */
int oci_cleanup_flush(int timeout_ms);

#endif
