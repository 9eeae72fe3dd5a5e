/* Caldera's recorded events as Kubernetes core/v1 Events: what `kubectl get events` lists, for the
 * events API and its watch. Each event row (one per state change, with its global sequence number)
 * becomes one Event; the phases it moved between travel as annotations. */
#ifndef CALDERA_EVENT_H
#define CALDERA_EVENT_H

#include <jansson.h>
#include <stdint.h>

#include "common/event_view.h"

#define EVENT_API_VERSION "v1"
#define EVENTS_V1_API_VERSION "events.k8s.io/v1"
#define EVENT_REPORTING_CONTROLLER "caldera.io/caldera"

/* The v1 Event: metadata.name "<object>.<seq as 16 hex digits>", namespace the object's (none for
 * cluster-scoped objects), resourceVersion the sequence number; involvedObject {apiVersion, kind,
 * namespace, name, uid (the job's for Jobs and PodGroups, the pod's own for pods), resourceVersion,
 * fieldPath (a pod's container)}; reason, message; type Warning for
 * failures (a phase Failed, reasons such as OOMKilled, StartError, Unschedulable, Forbidden), else
 * Normal; first/lastTimestamp and eventTime; count 1; source and reportingComponent "caldera";
 * annotations caldera.io/from-phase and caldera.io/to-phase. NULL when memory runs out. */
json_t *event_render(const struct event_view *ev);
/* The same event as an events.k8s.io/v1 Event: regarding (the involvedObject above), note (the
 * message), reason, type, eventTime, action (the phase it moved to), reportingController and
 * reportingInstance, and the deprecated* fields of the v1 Event it also is. */
json_t *event_render_events_v1(const struct event_view *ev);
/* event_render or event_render_events_v1, by the apiVersion a list or watch asked for. */
json_t *event_render_as(const struct event_view *ev, const char *api_version);

#endif
