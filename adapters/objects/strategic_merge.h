/* Kubernetes' strategic merge patch (application/strategic-merge-patch+json) for the objects
 * Caldera serves: lists merged by the keys Kubernetes' types declare (containers, env and volumes by
 * name, ports by containerPort, a Volcano Job's tasks by name...), the others replaced. */
#ifndef CALDERA_STRATEGIC_MERGE_H
#define CALDERA_STRATEGIC_MERGE_H

#include <jansson.h>

#include "common/api_status.h"

/* A new tree: target (untouched) with patch merged in. Directives: `$patch: replace|delete|merge`
 * in a map or a list element, `$retainKeys`, `$deleteFromPrimitiveList/<field>` and
 * `$setElementOrder/<field>` (the order is taken as a hint and dropped). NULL with why in st (400)
 * for a patch that is not an object or a directive it does not know. */
json_t *strategic_merge_patch(const json_t *target, const json_t *patch, struct api_status *st);

/* The merge key of the list a member of this name holds ("name" for containers), or NULL: a list
 * replaced whole. */
const char *strategic_merge_key(const char *field);

#endif
