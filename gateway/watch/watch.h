/* Kubernetes watch: `?watch=true` on a list turns the answer into a stream of
 * {"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":...} lines (chunked), from the list's
 * current state or from a resourceVersion, with label and field selectors, then live from the hub. */
#ifndef CALDERA_WATCH_H
#define CALDERA_WATCH_H

#include <stdbool.h>

#include "gateway/http/http.h"
#include "scheduler/core/core.h"

/* What a list endpoint lists: the kind its items have, for its watch and its selectors. */
struct list_kind {
    const char *api_version; /* of the items: "batch.volcano.sh/v1alpha1", "v1"... */
    const char *kind;        /* "Job", "Pod", "Event"... */
    const char *source_kind; /* Volcano Jobs posted in one dialect only (its path with ?as=volcano), else NULL */
};

/* ?watch=true (or 1). */
bool watch_requested(const struct http_req *req);
/* Streams the watch of the list creq asks for (creq NULL: a list the core does not keep, such as
 * Commands and Events, of namespace ns, NULL for all); answers 400/410/504 Statuses for bad
 * parameters and resourceVersions it cannot serve. */
void watch_serve(struct http_req *req, const struct core_request *creq, const struct list_kind *kind, const char *ns);

#endif
