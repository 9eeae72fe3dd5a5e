/* Recorded events rendered as core/v1 Events: the event's reason, message and involved object, from
 * the journal's record of a job, pod, PodGroup, queue, priority class or command. */
#include "adapters/event.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "adapters/objects/command.h"
#include "adapters/objects/podgroup.h"
#include "adapters/objects/priority_class.h"
#include "adapters/objects/queue.h"
#include "adapters/dialects/volcano/job.h"
#include "common/clock.h"

/* The apiVersion of the kinds events are about. */
static const char *api_version_of(const char *kind)
{
    static const struct {
        const char *kind, *api_version;
    } kinds[] = {
        {"Job", VOLCANO_JOB_API_VERSION}, {"PodGroup", PODGROUP_API_VERSION},
        {"Queue", QUEUE_API_VERSION},     {"PriorityClass", PRIORITY_CLASS_API_VERSION},
        {"Command", COMMAND_API_VERSION}, {"Token", "caldera.io/v1"},
        {"Audit", "caldera.io/v1"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].kind, kind) == 0)
            return kinds[i].api_version;
    return "v1"; /* Pod, Node, ResourceQuota */
}

static bool is_warning(const struct event_view *ev)
{
    static const char *const reasons[] = {
        "Error",   "OOMKilled",    "StartError",   "Unschedulable", "DeadlineExceeded",
        "Evicted", "Unknown",      "Forbidden",    "Unauthorized",  "BackOff",
        "Lost",    "UnknownImage", "GPUUnhealthy", "GPUUnavailable"};
    if (strcmp(ev->to, "Failed") == 0)
        return true;
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (strcmp(ev->reason, reasons[i]) == 0)
            return true;
    return false;
}

json_t *event_render(const struct event_view *ev)
{
    char name[400], rv[24], time[RFC3339_LEN], micro[RFC3339_LEN];
    snprintf(name, sizeof name, "%s.%016llx", *ev->name ? ev->name : ev->kind, (unsigned long long)ev->seq);
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)ev->seq);
    rfc3339(ev->time_ms, time);
    rfc3339_ms(ev->time_ms, micro);
    json_t *meta = json_pack("{s:s, s:s, s:s, s:{s:s, s:s}}", "name", name, "resourceVersion", rv, "creationTimestamp",
                             time, "annotations", "caldera.io/from-phase", ev->from, "caldera.io/to-phase", ev->to);
    json_t *involved = json_pack("{s:s, s:s, s:s}", "apiVersion", api_version_of(ev->kind), "kind", ev->kind, "name",
                                 ev->name);
    if (!meta || !involved) {
        json_decref(meta);
        json_decref(involved);
        return NULL;
    }
    if (*ev->ns) {
        json_object_set_new(meta, "namespace", json_string(ev->ns));
        json_object_set_new(involved, "namespace", json_string(ev->ns));
    }
    if (*ev->job_uid && (strcmp(ev->kind, "Job") == 0 || strcmp(ev->kind, "PodGroup") == 0))
        json_object_set_new(involved, "uid", json_string(ev->job_uid));
    return json_pack("{s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:{s:s}, s:s, s:s, s:s, s:i, s:s, s:s}", "apiVersion",
                     EVENT_API_VERSION, "kind", "Event", "metadata", meta, "involvedObject", involved, "reason",
                     ev->reason, "message", ev->message, "type", is_warning(ev) ? "Warning" : "Normal", "source",
                     "component", "caldera", "firstTimestamp", time, "lastTimestamp", time, "eventTime", micro, "count",
                     1, "reportingComponent", "caldera", "reportingInstance", "caldera");
}
