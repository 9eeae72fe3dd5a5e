/* A Volcano Job's spec.volumes, parsed into every task's volumes, and the variable that names each
 * volume's directory in a task's environment. */
#ifndef CALDERA_VOLCANO_VOLUMES_H
#define CALDERA_VOLCANO_VOLUMES_H

#include <jansson.h>
#include <stdbool.h>

#include "adapters/intake/fields.h"
#include "model/job.h"

/* spec.volumes into every task's volumes (volumes.c). Returns false after causes. */
bool volcano_job_volumes_parse(struct fields *f, json_t *spec, struct job *job);
/* The variable naming a volume's directory: CALDERA_VOLUME_ + mountPath upper-cased, each run of
 * characters other than letters and digits one '_', leading and trailing ones dropped
 * ("/data/simulation" -> CALDERA_VOLUME_DATA_SIMULATION). malloc'd; NULL when out of memory. */
char *volcano_volume_env_name(const char *mount_path);

#endif
