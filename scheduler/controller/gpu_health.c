/* A GPU device turning unhealthy (a critical Xid, gone from the driver) or healthy again, on the core
 * thread: the node's unhealthy mask and allocatable nvidia.com/gpu, a Node Event, and a Pod Event for
 * each running task holding the device. Tasks are not stopped: the device plugin does not either. */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "scheduler/controller/internal.h"

static int find_node(const struct cluster *c, const char *name)
{
    for (int i = 0; i < c->nnodes; i++)
        if (strcmp(c->nodes[i].name, name) == 0)
            return i;
    return -1;
}

/* A Pod Event for every running replica on node `n` holding device `pos`. */
static void tell_holders(struct controller *ctl, int n, int pos, const struct gpu_device *d,
                         const struct gpu_health_change *change)
{
    for (struct job *job = ctl->cluster->active_first; job; job = job->active_next) {
        for (int flat = 0; flat < job->total_replicas; flat++) {
            const struct replica *r = &job->replicas[flat];
            if (r->node != n || !r->gpus_held || !(r->gpus & (UINT64_C(1) << pos)))
                continue;
            int task = job_task_of(job, flat);
            char pod[320];
            job_pod_name(job, task, flat - job->task_first[task], pod, sizeof pod);
            const char *phase = pod_phase_name((enum pod_phase)r->phase);
            record_event(ctl, JOURNAL_EVENT, job, "Pod", pod, phase, phase, change->reason,
                         "GPU %d (%s) this pod holds is unhealthy: %s; the task keeps running, and may fail",
                         (int)d->index, d->uuid[0] ? d->uuid : "no UUID", change->message);
        }
    }
}

int controller_gpu_health(struct controller *ctl, const struct gpu_health_change *change)
{
    cluster_assert_owner(ctl->cluster);
    int n = find_node(ctl->cluster, change->node);
    struct node *node = n >= 0 ? &ctl->cluster->nodes[n] : NULL;
    int pos = !node             ? -1
              : change->uuid[0] ? gpu_set_find_uuid(&node->gpus, change->uuid)
                                : gpu_set_find_index(&node->gpus, change->index);
    if (pos < 0) {
        log_warn("GPU health: node %s has no device %s (index %d): %s", change->node,
                 change->uuid[0] ? change->uuid : "-", (int)change->index, change->message);
        return -1;
    }
    struct gpu_device *d = &node->gpus.devices[pos];
    uint64_t bit = UINT64_C(1) << pos;
    bool was_unhealthy = (node->gpus.unhealthy & bit) != 0;
    if (change->healthy && !was_unhealthy)
        return 0; /* nothing to give back */
    if (change->xid > 0)
        d->last_xid = change->xid;
    if (change->healthy)
        node->gpus.unhealthy &= ~bit;
    else
        node->gpus.unhealthy |= bit;
    int healthy = gpu_set_healthy_count(&node->gpus);
    node->allocatable.v[RES_GPU] = healthy;
    char message[1024];
    snprintf(message, sizeof message, "%s; allocatable nvidia.com/gpu is %d of the node's %d", change->message, healthy,
             node->gpus.count);
    if (change->healthy)
        log_info("node %s: %s", node->name, message);
    else
        log_warn("node %s: %s", node->name, message);
    controller_record_event(ctl, "Node", "", node->name, change->reason, message);
    ctl->capability_dirty = true; /* the WatchDog's queue percentages follow the allocatable */
    if (!change->healthy)
        tell_holders(ctl, n, pos, d, change);
    return 0;
}
