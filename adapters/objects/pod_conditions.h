/* A pod's status.conditions as kubelet and the scheduler set them (Initialized, Ready,
 * ContainersReady, PodScheduled), from what the process runtime knows of one replica; what
 * `kubectl wait --for=condition=Ready` and `kubectl describe pod` read. Pure. */
#ifndef CALDERA_POD_CONDITIONS_H
#define CALDERA_POD_CONDITIONS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/job.h"

struct pod_condition_facts {
    enum pod_phase phase;
    bool bound;                /* placed on a node */
    bool container_ready;      /* its one container is running and not restarting or being started */
    const char *container;     /* the container's name */
    const char *unschedulable; /* why it cannot be placed (the gang's message), or NULL */
    int64_t created_ms;        /* when the pod was made */
    int64_t unschedulable_ms;  /* when it was found unschedulable, 0: unknown */
    int64_t started_ms;        /* its attempt's start, 0 when none */
    int64_t ended_ms;          /* its last attempt's end, 0 when none */
};

/* The conditions, in kubelet's order. Unbound: PodScheduled False (Unschedulable) only. Bound:
 * Initialized True (reason PodCompleted once Succeeded); ContainersReady and Ready True while the
 * container runs ready, False with ContainersNotReady ("containers with unready status: [c]")
 * before, PodCompleted once Succeeded, PodFailed once Failed; PodScheduled True. Each with its
 * lastTransitionTime. NULL when memory runs out. */
json_t *pod_conditions_render(const struct pod_condition_facts *f);

#endif
