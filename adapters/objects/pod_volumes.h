/* A pod template's spec.volumes and its container's volumeMounts: hostPath, emptyDir, configMap and
 * secret volumes read and validated as Kubernetes' API server does (names, one source, hostPath type,
 * emptyDir medium and sizeLimit, items and modes, mounts naming a volume at a unique absolute path);
 * every other volume type refused. */
#ifndef CALDERA_POD_VOLUMES_H
#define CALDERA_POD_VOLUMES_H

#include <jansson.h>
#include <stdbool.h>

#include "adapters/intake/fields.h"
#include "model/job.h"

/* Reads spec.volumes (at spec_path) and container.volumeMounts (at container_path) into ts->mounts.
 * Adds causes to f and returns false when something is wrong. */
bool pod_volumes_parse(struct fields *f, json_t *spec, const char *spec_path, json_t *container,
                       const char *container_path, struct task_spec *ts);

/* Whether any of the task's mounts is a hostPath. */
bool pod_volumes_host_path(const struct task_spec *ts);

#endif
