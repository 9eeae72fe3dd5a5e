/* A Kubernetes PodTemplateSpec read into what the process runtime needs for one task: the
 * container's command, env, resources and working directory. Shared by every job dialect. */
#ifndef CALDERA_POD_TEMPLATE_H
#define CALDERA_POD_TEMPLATE_H

#include <jansson.h>
#include <stdbool.h>

#include "adapters/intake/fields.h"
#include "model/job.h"

/* Fills ts's runtime fields from template (path names it in causes, e.g. "spec.tasks[0].template").
 * Adds causes to f and returns false when something is wrong; ts->template is not set here. */
bool pod_template_parse(struct fields *f, json_t *template, const char *path, struct task_spec *ts);

/* Reads a resources map into a vector; names must be known resources and values Kubernetes
 * quantities. `pods` is a node's resource, so it is refused unless allow_pods (node allocatable).
 * Returns false after adding causes. */
bool resource_map_parse(struct fields *f, json_t *parent, const char *key, const char *path, bool allow_pods,
                        struct resvec *out);

#endif
