/* A pod template's Volcano scheduling annotations: volcano.sh/numa-topology-policy (numa-aware),
 * volcano.sh/preemptable and volcano.sh/revocable-zone (tdm). */
#ifndef CALDERA_POD_SCHEDULING_H
#define CALDERA_POD_SCHEDULING_H

#include <jansson.h>
#include <stdbool.h>

#include "adapters/intake/fields.h"
#include "model/job.h"

#define NUMA_POLICY_ANNOTATION "volcano.sh/numa-topology-policy"
#define PREEMPTABLE_ANNOTATION "volcano.sh/preemptable"
#define REVOCABLE_ZONE_ANNOTATION "volcano.sh/revocable-zone"

/* Reads them from annotations (path names the object) into ts; a topology policy already set (the
 * task's topologyPolicy) wins. Returns false after a field error for a value that is not one of theirs. */
bool pod_scheduling_annotations(struct fields *f, json_t *annotations, const char *path, struct task_spec *ts);

/* A Job annotated volcano.sh/preemptable: "true" (Volcano gives it to its PodGroup) makes preemptable
 * every task whose template does not say otherwise. */
void job_preemptable_inherit(const json_t *job_annotations, struct job *job);

#endif
