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
        "Error",   "OOMKilled",    "StartError",   "Unschedulable",  "DeadlineExceeded",
        "Evicted", "Unknown",      "Forbidden",    "Unauthorized",   "BackOff",
        "Lost",    "UnknownImage", "GPUUnhealthy", "GPUUnavailable", "ResourceWaste"};
    if (strcmp(ev->to, "Failed") == 0)
        return true;
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (strcmp(ev->reason, reasons[i]) == 0)
            return true;
    return false;
}

/* A MicroTime as Kubernetes writes and Go's time.Parse(RFC3339Micro) insists on: six digits of
 * fraction ("2026-11-22T08:15:00.123000Z"); our clock keeps milliseconds. */
static const char *micro_time(int64_t wall_ms, char *buf)
{
    char ms[RFC3339_LEN];
    rfc3339_ms(wall_ms, ms);
    size_t n = strlen(ms);
    if (n > 0 && ms[n - 1] == 'Z')
        snprintf(buf, RFC3339_LEN, "%.*s000Z", (int)(n - 1), ms);
    else
        snprintf(buf, RFC3339_LEN, "%s", ms);
    return buf;
}

/* What the event is about, as an ObjectReference: apiVersion, kind, name, namespace (namespaced
 * objects), uid (a Job's and its PodGroup's: the job's; a pod's: its own, when recorded), and the
 * resourceVersion the event made. */
static json_t *object_reference(const struct event_view *ev, const char *rv)
{
    char pg[PODGROUP_NAME_MAX]; /* a PodGroup is named after its job's name and uid */
    const char *name = strcmp(ev->kind, "PodGroup") == 0 && *ev->job_uid ? podgroup_name(ev->name, ev->job_uid, pg)
                                                                         : ev->name;
    json_t *ref = json_pack("{s:s, s:s, s:s, s:s}", "apiVersion", api_version_of(ev->kind), "kind", ev->kind, "name",
                            name, "resourceVersion", rv);
    if (!ref)
        return NULL;
    if (*ev->ns)
        json_object_set_new(ref, "namespace", json_string(ev->ns));
    if (ev->uid && *ev->uid)
        json_object_set_new(ref, "uid", json_string(ev->uid));
    else if (*ev->job_uid && (strcmp(ev->kind, "Job") == 0 || strcmp(ev->kind, "PodGroup") == 0))
        json_object_set_new(ref, "uid", json_string(ev->job_uid));
    return ref;
}

static json_t *event_meta(const struct event_view *ev, const char *name, const char *rv, const char *time)
{
    json_t *meta = json_pack("{s:s, s:s, s:s, s:{s:s, s:s}}", "name", name, "resourceVersion", rv, "creationTimestamp",
                             time, "annotations", "caldera.io/from-phase", ev->from, "caldera.io/to-phase", ev->to);
    if (meta && *ev->ns)
        json_object_set_new(meta, "namespace", json_string(ev->ns));
    return meta;
}

/* What both shapes of an Event share: its metadata and the reference to its object, and its times
 * (RFC 3339 and MicroTime). false when memory ran out (nothing is left to free). */
struct event_parts {
    char time[RFC3339_LEN], micro[RFC3339_LEN];
    json_t *meta, *ref;
};

static bool event_parts(const struct event_view *ev, struct event_parts *p)
{
    char name[400], rv[24];
    snprintf(name, sizeof name, "%s.%016llx", *ev->name ? ev->name : ev->kind, (unsigned long long)ev->seq);
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)ev->seq);
    rfc3339(ev->time_ms, p->time);
    micro_time(ev->time_ms, p->micro);
    p->meta = event_meta(ev, name, rv, p->time);
    p->ref = object_reference(ev, rv);
    if (p->meta && p->ref)
        return true;
    json_decref(p->meta);
    json_decref(p->ref);
    return false;
}

json_t *event_render(const struct event_view *ev)
{
    struct event_parts p;
    if (!event_parts(ev, &p))
        return NULL;
    return json_pack("{s:s, s:s, s:o, s:o, s:s, s:s, s:s, s:{s:s, s:s}, s:s, s:s, s:s, s:i, s:s, s:s}", "apiVersion",
                     EVENT_API_VERSION, "kind", "Event", "metadata", p.meta, "involvedObject", p.ref, "reason",
                     ev->reason, "message", ev->message, "type", is_warning(ev) ? "Warning" : "Normal", "source",
                     "component", EVENT_REPORTING_CONTROLLER, "host", "caldera", "firstTimestamp", p.time,
                     "lastTimestamp", p.time, "eventTime", p.micro, "count", 1, "reportingComponent",
                     EVENT_REPORTING_CONTROLLER, "reportingInstance", "caldera");
}

json_t *event_render_events_v1(const struct event_view *ev)
{
    struct event_parts p;
    if (!event_parts(ev, &p))
        return NULL;
    return json_pack("{s:s, s:s, s:o, s:s, s:o, s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s}, s:s, s:s, s:i}",
                     "apiVersion", EVENTS_V1_API_VERSION, "kind", "Event", "metadata", p.meta, "eventTime", p.micro,
                     "regarding", p.ref, "note", ev->message, "reason", ev->reason, "type",
                     is_warning(ev) ? "Warning" : "Normal", "action", *ev->to ? ev->to : "Deleted",
                     "reportingController", EVENT_REPORTING_CONTROLLER, "reportingInstance", "caldera",
                     "deprecatedSource", "component", EVENT_REPORTING_CONTROLLER, "host", "caldera",
                     "deprecatedFirstTimestamp", p.time, "deprecatedLastTimestamp", p.time, "deprecatedCount", 1);
}

json_t *event_render_as(const struct event_view *ev, const char *api_version)
{
    return api_version && strcmp(api_version, EVENTS_V1_API_VERSION) == 0 ? event_render_events_v1(ev)
                                                                          : event_render(ev);
}
