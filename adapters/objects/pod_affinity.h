/* What a pod template asks of the pods around it: podAffinity, podAntiAffinity (required and
 * preferred terms) and topologySpreadConstraints, validated as Kubernetes validates a PodSpec. */
#ifndef CALDERA_ADAPTERS_POD_AFFINITY_H
#define CALDERA_ADAPTERS_POD_AFFINITY_H

#include <jansson.h>
#include <stdbool.h>

#include "adapters/intake/fields.h"
#include "model/constraints.h"

/* Reads affinity.podAffinity and affinity.podAntiAffinity (path names `affinity`) into out's pod
 * terms. Returns false after adding causes (or a 500 when out of memory). */
bool pod_affinity_parse(struct fields *f, json_t *affinity, const char *path, struct placement_constraints *out);
/* Reads spec.topologySpreadConstraints into out's spread constraints; the same contract. */
bool spread_constraints_parse(struct fields *f, json_t *spec, const char *spec_path, struct placement_constraints *out);

#endif
