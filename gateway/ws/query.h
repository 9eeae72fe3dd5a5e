/* What a WebSocket subscriber asked for: the query of its handshake (namespace, job or pod, since)
 * checked and parsed, and whether an event matches it. Pure: no I/O, no libwebsockets. */
#ifndef CALDERA_WS_QUERY_H
#define CALDERA_WS_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/api_status.h"

#define WS_NAME_MAX 253

struct ws_subscription {
    char ns[WS_NAME_MAX + 1];  /* "": every namespace and the cluster-scoped objects */
    char job[WS_NAME_MAX + 1]; /* "": not one job */
    char pod[WS_NAME_MAX + 1]; /* "": not one pod */
    bool has_since;
    uint64_t since; /* with has_since: send events with a greater seq */
};

/* Parses the query's parameters, each "key=value" as the client sent it (already URL-decoded):
 * namespace, job, pod and since. Unknown, repeated or empty parameters, job and pod together, job or
 * pod without namespace and a since that is not a whole number are a 400 BadRequest in st whose
 * message names the parameter, with a cause on it. Returns 0 or -1. */
int ws_query_parse(const char *const *args, int nargs, struct ws_subscription *sub, struct api_status *st);

/* Whether an event (its object's kind, namespace and name, and the name of the job it is about,
 * "" when none) is one the subscriber follows: a namespace's every event; a job's events about the
 * job, its pods and its PodGroup; a pod's own events; with no namespace, every event. */
bool ws_subscription_matches(const struct ws_subscription *sub, const char *kind, const char *ns, const char *name,
                             const char *job_name);

#endif
