/* Namespaces as core/v1 Namespace objects: the ones created through the API (kept as records) and
 * the ones that exist because something lives in them ("default" always), all Active. */
#ifndef CALDERA_NAMESPACE_ADAPTER_H
#define CALDERA_NAMESPACE_ADAPTER_H

#include <jansson.h>

#include "common/api_status.h"

#define NAMESPACE_KIND "Namespace"

/* A v1 Namespace: metadata.name, uid, creationTimestamp (RFC 3339, NULL: none), labels (those
 * given, or none, plus kubernetes.io/metadata.name as the API server adds), spec.finalizers
 * [kubernetes], status.phase Active. A NULL uid is made from the name, the same on every call.
 * NULL when memory runs out. */
json_t *namespace_render(const char *name, const char *uid, const char *created, const json_t *labels);

/* A Namespace posted to the API: one object of kind Namespace (apiVersion v1 when given) whose
 * metadata.name is a DNS-1123 label; returns the stored form (namespace_render with a new uid,
 * created at created) in *out, or -1 with a 400/422 Status naming the field. */
int namespace_from_json(const json_t *doc, const char *created, json_t **out, struct api_status *st);

#endif
