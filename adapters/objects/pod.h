/* Each replica of a job rendered as the Pod Volcano would have created: name "<job>-<task>-<index>",
 * Volcano's labels and annotations, node, phase and the container's state. */
#ifndef CALDERA_POD_H
#define CALDERA_POD_H

#include <jansson.h>

#include "model/job.h"
#include "model/node.h"

/* node is the bound node, or NULL. A pod given GPU devices of its node names them in the
 * caldera.io/gpu-devices annotation ("2,3": the devices' indexes), as Volcano's GPU plugins annotate. */
json_t *pod_render(const struct job *job, int task, int index, const struct node *node);
/* Its metadata alone (what a Table row carries of it). */
json_t *pod_render_metadata(const struct job *job, int task, int index, const struct node *node);
/* Does the pod carry this label with this value (for labelSelector=k=v)? */
int pod_label_matches(const struct job *job, int task, int index, const char *key, const char *value);

/* A pod's uid: the job's uid with its last 12 hex digits replaced by which incarnation of the
 * replica it is and the replica's flat index; a pod created again gets a new one. */
void pod_uid(const struct job *job, int flat, char out[UUID_STR_LEN]);

#endif
