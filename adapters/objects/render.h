/* Small helpers for rendering Kubernetes objects: RFC 3339 timestamps, quantities in Kubernetes'
 * canonical form, and resource maps ({cpu: 500m, memory: 1Gi}) from resource vectors. */
#ifndef CALDERA_RENDER_H
#define CALDERA_RENDER_H

#include <jansson.h>
#include <stdint.h>

#include "model/resource.h"

/* RFC 3339 (seconds) string, or JSON null for 0. */
json_t *render_time(int64_t wall_ms);
/* {"cpu":"4","memory":"8Gi",...} with the non-zero dimensions (all dimensions when with_zero). */
json_t *render_resources(const struct resvec *r, bool with_zero);
/* Sets key to a new reference of value unless value is NULL (Jansson steals nothing on NULL). */
void render_set(json_t *obj, const char *key, json_t *value);

#endif
