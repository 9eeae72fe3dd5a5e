/* Queue capability as a percentage of the cluster: the WatchDog's queues get their share of every
 * node's allocatable summed, computed again whenever nodes or queues change, each change recorded
 * on the queue with a Normal Event CapabilityUpdated saying old -> new. */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "common/sbuf.h"
#include "scheduler/controller/internal.h"
#include "scheduler/controller/objects.h"

static void cluster_allocatable(const struct cluster *c, struct resvec *total)
{
    memset(total, 0, sizeof *total);
    for (int i = 0; i < c->nnodes; i++)
        resvec_add(total, &c->nodes[i].allocatable);
}

/* Sets resource r of q's capability to v, in the struct and in the manifest's spec.capability. */
static int set_capability(struct queue *q, int r, int64_t v)
{
    json_t *spec = json_object_get(q->manifest, "spec");
    if (!json_is_object(spec)) {
        spec = json_object();
        if (!spec || json_object_set_new(q->manifest, "spec", spec) != 0)
            return -1;
    }
    json_t *cap = json_object_get(spec, "capability");
    if (!json_is_object(cap)) {
        cap = json_object();
        if (!cap || json_object_set_new(spec, "capability", cap) != 0)
            return -1;
    }
    char text[64];
    resource_format(r, v, text, sizeof text);
    if (json_object_set_new(cap, resource_name(r), json_string(text)) != 0)
        return -1;
    q->capability.v[r] = v;
    q->has_capability = true;
    return 0;
}

/* Applies wq's percentages to q; a message "cpu 8 -> 4, memory 16Gi -> 8Gi (50% of ...)" when changed. */
static bool apply(struct queue *q, const struct watchdog_queue *wq, const struct resvec *total, struct sbuf *msg)
{
    struct resvec cap;
    watchdog_capability(wq, total, &cap);
    bool changed = false;
    for (int r = 0; r < RES_MAX; r++) {
        if (!wq->has[r])
            continue;
        bool had = q->has_capability && q->capability.v[r] > 0;
        if (had && q->capability.v[r] == cap.v[r])
            continue;
        char from[64] = "unset", to[64], of[64];
        if (had)
            resource_format(r, q->capability.v[r], from, sizeof from);
        resource_format(r, cap.v[r], to, sizeof to);
        resource_format(r, total->v[r], of, sizeof of);
        if (set_capability(q, r, cap.v[r]) != 0) {
            log_error("watchdog: out of memory setting queue %s's capability", q->name);
            continue;
        }
        sbuf_printf(msg, "%s%s %s -> %s (%g%% of %s)", changed ? ", " : "capability ", resource_name(r), from, to,
                    wq->percent[r], of);
        changed = true;
    }
    return changed;
}

void controller_capability_sync(struct controller *ctl)
{
    if (!ctl->capability_dirty)
        return;
    ctl->capability_dirty = false;
    if (!ctl->watchdog || ctl->watchdog->nqueues == 0)
        return;
    cluster_assert_owner(ctl->cluster);
    struct resvec total;
    cluster_allocatable(ctl->cluster, &total);
    for (int i = 0; i < ctl->watchdog->nqueues; i++) {
        const struct watchdog_queue *wq = &ctl->watchdog->queues[i];
        struct queue *q = cluster_find_queue(ctl->cluster, wq->name);
        if (!q)
            continue; /* created later: its creation sets capability_dirty */
        struct sbuf msg = {0};
        if (apply(q, wq, &total, &msg)) {
            log_info("watchdog: queue %s: %s", q->name, msg.failed ? "capability changed" : sbuf_str(&msg));
            controller_queue_changed(ctl, q, "CapabilityUpdated", msg.failed ? "capability changed" : sbuf_str(&msg));
        }
        sbuf_free(&msg);
    }
}
