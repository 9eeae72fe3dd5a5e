/* Kubernetes ResourceQuotas (v1) in and out: spec.hard limited to what Caldera can count (requests
 * of cpu, memory, GPUs and extended resources, and pods), rendered with status.hard and used. */
#ifndef CALDERA_RESOURCE_QUOTA_ADAPTER_H
#define CALDERA_RESOURCE_QUOTA_ADAPTER_H

#include <jansson.h>

#include "adapters/intake/intake.h"
#include "common/api_status.h"
#include "model/quota.h"

/* The resource a spec.hard key limits: "cpu" and "requests.cpu" -> cpu, "memory" and
 * "requests.memory" -> memory, "requests.<resource>" -> that resource, "pods" -> pods; -1 for
 * keys Caldera cannot enforce (limits.cpu, count/pods, services, ...). */
int resource_quota_key_index(const char *key);

/* Parses a ResourceQuota POSTed or PUT to namespace url_ns: 400 for another kind, apiVersion or
 * namespace, 422 with field causes (an unsupported hard key, scopes or scopeSelector, a bad
 * quantity). When a resource is limited twice ("cpu" and "requests.cpu") the lower limit holds.
 * metadata.resourceVersion lands in resource_version; uid and times are the core's. */
int resource_quota_from_doc(const struct intake_doc *doc, const char *url_ns, struct resource_quota **out,
                            struct api_status *st);

/* The object with status.hard (each key's limit) and status.used (used, per key). */
json_t *resource_quota_render(const struct resource_quota *q, const struct resvec *used);
/* The stored form: metadata (with uid, times) and spec. */
char *resource_quota_to_store_json(const struct resource_quota *q);
/* NULL when the JSON is not a valid ResourceQuota (a resource no node offers any more, say). */
struct resource_quota *resource_quota_from_store_json(const char *json);

#endif
