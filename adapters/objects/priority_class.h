/* Kubernetes PriorityClasses (scheduling.k8s.io/v1) in and out: parse and validate a submitted
 * class, build the two built-in system classes, render, and the stored form read back at start. */
#ifndef CALDERA_PRIORITY_CLASS_ADAPTER_H
#define CALDERA_PRIORITY_CLASS_ADAPTER_H

#include <jansson.h>
#include <stdint.h>

#include "adapters/intake/intake.h"
#include "common/api_status.h"
#include "model/priority.h"

#define PRIORITY_CLASS_API_VERSION "scheduling.k8s.io/v1"

/* The built-in classes, in the order the cluster lists them (NULL-ended). */
extern const char *const priority_class_builtin_names[];

/* Parses a PriorityClass: 400 for another kind or apiVersion, 422 with field causes for bad
 * fields (value required, int32, at most PRIORITY_USER_MAX; preemptionPolicy PreemptLowerPriority
 * (default) or Never; names starting "system-" are reserved; unknown fields are refused).
 * metadata.resourceVersion lands in resource_version. A built-in's name parses (its value is not
 * capped) so the core can answer that it cannot be changed. uid and times are the core's. */
int priority_class_from_doc(const struct intake_doc *doc, struct priority_class **out, struct api_status *st);

/* A built-in class (name from priority_class_builtin_names), or NULL (unknown name, no memory). */
struct priority_class *priority_class_new_builtin(const char *name, int64_t now_ms);

json_t *priority_class_render(const struct priority_class *pc);
/* The stored form: the rendered object. */
char *priority_class_to_store_json(const struct priority_class *pc);
/* NULL when the JSON is not a valid PriorityClass. A built-in's name marks it builtin. */
struct priority_class *priority_class_from_store_json(const char *json);

#endif
