/* The PodGroup's minResources of a Volcano Job: computed from its tasks, or raised by the annotation
 * caldera.io/pod-group-min-resources, which admission checks. */
#ifndef CALDERA_VOLCANO_POD_GROUP_H
#define CALDERA_VOLCANO_POD_GROUP_H

#include <jansson.h>
#include <stdbool.h>

#include "adapters/intake/fields.h"
#include "model/job.h"

/* A Job's annotation: the PodGroup's minResources as compact JSON ({"cpu":"4","memory":"8Gi"}),
 * raising the computed minimum (Kubeflow's schedulingPolicy.minResources maps onto it). */
#define VOLCANO_MIN_RESOURCES_ANNOTATION "caldera.io/pod-group-min-resources"

/* PodGroup minResources: the requests of the first minAvailable replicas, task by task, raised to
 * what the manifest's VOLCANO_MIN_RESOURCES_ANNOTATION asks for. */
void volcano_job_min_resources(struct job *job);
/* Admission of that annotation (quantities of known resources, none below the computed minimum),
 * causes at metadata.annotations["caldera.io/pod-group-min-resources"]. Needs the tasks parsed. */
bool volcano_job_min_resources_check(struct fields *f, json_t *root, const struct job *job);

#endif
