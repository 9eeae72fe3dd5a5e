/* Starting an attempt as an OCI container: what the process runtime runs under the supervisor in
 * place of the task's command, `podman run ...` (oci_args.h), with the container's environment in a
 * file beside the attempt's log. The supervisor, the cgroup, the log and the exits file are the
 * process runtime's as for any task (process.c). */
#ifndef CALDERA_RUNTIME_OCI_LAUNCH_H
#define CALDERA_RUNTIME_OCI_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/attempt.h"
#include "runtime/pod_mounts.h"

struct oci_launch {
    char program[4096];  /* podman */
    char **argv;         /* podman run ... (owned) */
    char *envp[2];       /* podman's own environment: PATH alone, nothing of the task's */
    char name[256];      /* the container's (oci_container_name) */
    char env_file[4200]; /* "<log>.env", 0600, the server's */
};

/* Prepares the launch of spec (spec->oci_image set) whose attempt cgroup is cgroup ("" without
 * cgroups), its container held to pids_max processes (0: none), with the pod's volumes as prepared
 * (pod_mounts_prepare for a container: bound, or a tmpfs). Returns 0, or -1 with a sentence
 * in why ("RuntimeClass \"oci\": podman is not installed", an environment value with a newline). */
int oci_launch_prepare(const struct attempt_spec *spec, const char *cgroup, int64_t pids_max,
                       const struct pod_mounts *mounts, struct oci_launch *out, char *why, size_t why_len);
void oci_launch_release(struct oci_launch *l);

/* An OCI attempt that exited 125, 126 or 127: whether podman could not start its container, from
 * the end of its log (oci_start_error), into ex->oci_failure and ex->oci_message. */
void oci_read_start_failure(const char *log_path, struct replica_exit *ex);

#endif
