/* Pod conditions as kubelet's GeneratePodReadyCondition, GenerateContainersReadyCondition and
 * GeneratePodInitializedCondition word them for a pod of one container and no init containers,
 * and the scheduler's PodScheduled. */
#include "adapters/objects/pod_conditions.h"

#include <stdio.h>

#include "adapters/objects/render.h"

static json_t *condition(const char *type, bool status, const char *reason, const char *message, int64_t at_ms)
{
    json_t *c = json_pack("{s:s, s:s, s:n, s:o}", "type", type, "status", status ? "True" : "False", "lastProbeTime",
                          "lastTransitionTime", render_time(at_ms));
    if (c && reason)
        json_object_set_new(c, "reason", json_string(reason));
    if (c && message)
        json_object_set_new(c, "message", json_string(message));
    return c;
}

static int64_t first_known(int64_t a, int64_t b) { return a > 0 ? a : b; }

json_t *pod_conditions_render(const struct pod_condition_facts *f)
{
    json_t *list = json_array();
    if (!list)
        return NULL;
    if (!f->bound) {
        json_array_append_new(list, condition("PodScheduled", false, "Unschedulable", f->unschedulable,
                                              first_known(f->unschedulable_ms, f->created_ms)));
        return list;
    }
    int64_t started = first_known(f->started_ms, f->created_ms);
    bool succeeded = f->phase == POD_SUCCEEDED, failed = f->phase == POD_FAILED;
    const char *reason = NULL, *message = NULL;
    char unready[320];
    bool ready = false;
    int64_t ready_ms = started;
    if (succeeded || failed) {
        reason = succeeded ? "PodCompleted" : "PodFailed";
        ready_ms = first_known(f->ended_ms, started);
    } else if (f->phase == POD_RUNNING && f->container_ready) {
        ready = true;
    } else {
        snprintf(unready, sizeof unready, "containers with unready status: [%.256s]", f->container ? f->container : "");
        reason = "ContainersNotReady";
        message = unready;
    }
    json_array_append_new(list, condition("Initialized", true, succeeded ? "PodCompleted" : NULL, NULL, started));
    json_array_append_new(list, condition("Ready", ready, reason, message, ready_ms));
    json_array_append_new(list, condition("ContainersReady", ready, reason, message, ready_ms));
    json_array_append_new(list, condition("PodScheduled", true, NULL, NULL, started));
    return list;
}
