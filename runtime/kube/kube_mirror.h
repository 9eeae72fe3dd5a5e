/* What a Volcano Job or a Pod read from the cluster says, in the backend's terms (runtime/backend.h):
 * the job's phase and retries, a pod's task, index, phase, node, times and exit. Pure. */
#ifndef CALDERA_KUBE_MIRROR_H
#define CALDERA_KUBE_MIRROR_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/backend.h"

/* The Caldera uid an object carries in metadata.labels[BACKEND_UID_LABEL]; NULL when none. */
const char *kube_mirror_uid(const json_t *object);
/* "namespace/name" into ref[BACKEND_REF_MAX]. */
void kube_mirror_ref(const json_t *object, char *ref);

/* A Volcano Job's status into u (kind BACKEND_JOB_PHASE): job_phase from status.state.phase ("Pending"
 * when the controller has not written one yet), retry_count, message from status.state.message or
 * reason. */
void kube_mirror_job(const json_t *job, struct backend_update *u);

/* One container's end as kubelet records it (state.terminated or lastState.terminated). */
struct kube_mirror_end {
    bool set;
    int exit_code, term_signal;
    int64_t start_ms, end_ms;
    char reason[BACKEND_NAME_MAX];
    char message[256];
};

/* A pod as the mirror needs it: the update's fields but the attempt, and what attempts are counted from. */
struct kube_mirror_pod {
    struct backend_update u; /* kind BACKEND_POD: task, index, phase, node, times, exit, reason, message */
    char pod_uid[UUID_STR_LEN + 32];
    char name[BACKEND_REF_MAX];
    int32_t restart_count;
    struct kube_mirror_end last; /* the container's previous run (lastState.terminated), for restarts */
};

/* Reads pod into *out. task: the volcano.sh/task-spec annotation or label, else the name's middle
 * (`<job>-<task>-<index>`); index: the name's last part, else VC_TASK_INDEX in the first container's
 * env. Returns 0, or -1 when the pod's name does not say which replica it is. */
int kube_mirror_pod(const json_t *pod, struct kube_mirror_pod *out);

#endif
