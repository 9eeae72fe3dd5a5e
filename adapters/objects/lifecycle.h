/* The lifecycle parts of a Volcano Job: policies (job- and task-level) and task dependencies,
 * validated as Volcano's admission webhook validates them, each problem a field cause. */
#ifndef CALDERA_LIFECYCLE_H
#define CALDERA_LIFECYCLE_H

#include <jansson.h>
#include <stdbool.h>

#include "adapters/intake/fields.h"
#include "model/job.h"

/* parent.policies (path names parent) into a new array; *n = 0 and *out = NULL when absent. */
bool policies_parse(struct fields *f, json_t *parent, const char *path, struct lifecycle_policy **out, int *n);

/* Every task's dependsOn {name: [...], iteration: any|all}: known tasks, not itself, no cycle. */
bool depends_on_parse(struct fields *f, json_t *tasks, struct job *job);

#endif
