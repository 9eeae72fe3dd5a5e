/* Caldera's recorded events as Kubernetes core/v1 Events: what `kubectl get events` lists, for the
 * events API and its watch. Each event row (one per state change, with its global sequence number)
 * becomes one Event; the phases it moved between travel as annotations. */
#ifndef CALDERA_EVENT_H
#define CALDERA_EVENT_H

#include <jansson.h>
#include <stdint.h>

#include "common/event_view.h"

#define EVENT_API_VERSION "v1"

/* The v1 Event: metadata.name "<object>.<seq as 16 hex digits>", namespace the object's (none for
 * cluster-scoped objects), resourceVersion the sequence number; involvedObject {apiVersion, kind,
 * namespace, name, uid (the job's, for Jobs and PodGroups)}; reason, message; type Warning for
 * failures (a phase Failed, reasons such as OOMKilled, StartError, Unschedulable, Forbidden), else
 * Normal; first/lastTimestamp and eventTime; count 1; source and reportingComponent "caldera";
 * annotations caldera.io/from-phase and caldera.io/to-phase. NULL when memory runs out. */
json_t *event_render(const struct event_view *ev);

#endif
