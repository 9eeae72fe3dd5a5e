/* A job's PodGroup (scheduling.volcano.sh/v1beta1), named as Volcano's controller names it
 * ("<job>-<job uid>"): gang size, queue, minResources, phase and the Unschedulable/Scheduled
 * conditions. */
#ifndef CALDERA_PODGROUP_H
#define CALDERA_PODGROUP_H

#include <jansson.h>

#include "model/job.h"

#define PODGROUP_API_VERSION "scheduling.volcano.sh/v1beta1"

#define PODGROUP_NAME_MAX 320

/* "<job>-<uid>" into buf (PODGROUP_NAME_MAX bytes); returns buf. */
const char *podgroup_name(const char *job_name, const char *job_uid, char *buf);
/* Whether name names the PodGroup of the job job_name/job_uid: its name, or the job's own name as
 * older Caldera and Volcano releases named it. */
bool podgroup_name_matches(const char *name, const char *job_name, const char *job_uid);
/* The job name a PodGroup name asks for: name less a trailing "-<uid>" when it has one (into buf,
 * PODGROUP_NAME_MAX bytes), else name itself. */
const char *podgroup_job_name(const char *name, char *buf);

json_t *podgroup_render(const struct job *job);

#endif
