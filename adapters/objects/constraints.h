/* What a pod template asks of nodes, read from its spec: nodeSelector, node affinity and
 * tolerations, validated as Kubernetes validates a PodSpec, every problem a field cause. */
#ifndef CALDERA_ADAPTERS_CONSTRAINTS_H
#define CALDERA_ADAPTERS_CONSTRAINTS_H

#include <jansson.h>
#include <stdbool.h>

#include "adapters/intake/fields.h"
#include "model/constraints.h"

/* Fills out from pod_spec (a template's `spec`; spec_path names it in causes, e.g.
 * "spec.tasks[0].template.spec"): nodeSelector, affinity.nodeAffinity (required and preferred
 * terms) and tolerations, plus the signature (selector, required terms and tolerations in a
 * canonical order; "" when the task asks nothing of nodes), pod affinity and anti-affinity
 * (pod_affinity.c) and topologySpreadConstraints. Returns false after adding causes (or a 500 when out of memory); out is
 * then empty. out must start zeroed and is freed with constraints_free(). */
bool constraints_parse(struct fields *f, json_t *pod_spec, const char *spec_path, struct placement_constraints *out);

#endif
