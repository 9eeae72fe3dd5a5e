/* A job's PodGroup (scheduling.volcano.sh/v1beta1), named after the job as Volcano names it: gang
 * size, queue, minResources, phase and the Unschedulable/Scheduled conditions. */
#ifndef CALDERA_PODGROUP_H
#define CALDERA_PODGROUP_H

#include <jansson.h>

#include "model/job.h"

#define PODGROUP_API_VERSION "scheduling.volcano.sh/v1beta1"

json_t *podgroup_render(const struct job *job);

#endif
