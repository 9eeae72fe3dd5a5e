/* A container env variable's valueFrom: the pod's own fields (fieldRef), its container's resources
 * (resourceFieldRef) and ConfigMap and Secret keys (configMapKeyRef, secretKeyRef, which the
 * controller resolves), and the container's envFrom, read and validated as Kubernetes' API server
 * does; fields and resources resolved when the pod starts as the kubelet does. */
#ifndef CALDERA_ENV_SOURCE_H
#define CALDERA_ENV_SOURCE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "adapters/intake/fields.h"
#include "model/job.h"
#include "model/node.h"

/* Reads item.valueFrom (item is env[i] at path, named name; container is the container's name) into
 * a new entry of ts->env_refs. Adds causes to f and returns false when it is wrong. */
bool env_source_parse(struct fields *f, json_t *item, const char *path, const char *name, const char *container,
                      struct task_spec *ts);

/* Reads container.envFrom (at path) into ts->env_from. Adds causes to f and returns false when it is
 * wrong. */
bool env_from_parse(struct fields *f, json_t *container, const char *path, struct task_spec *ts);

/* The value of ref for the pod rendered as pod (adapters/objects/pod.h) of task ts, bound to node
 * (NULL: no node; limits then unset stay 0). Writes it into out; returns -1 when it does not fit. */
int env_source_resolve(const struct task_env_ref *ref, const struct task_spec *ts, json_t *pod, const struct node *node,
                       char *out, size_t len);

#endif
