/* RuntimeClasses this server offers a pod template's spec.runtimeClassName: none but "oci", which
 * runs the task as an OCI container through podman when the server found podman at start. */
#ifndef CALDERA_ADAPTERS_RUNTIME_CLASS_H
#define CALDERA_ADAPTERS_RUNTIME_CLASS_H

#include <jansson.h>
#include <stdbool.h>

#include "adapters/intake/fields.h"

#define RUNTIME_CLASS_OCI "oci"

/* Whether "oci" can run here: NULL when it can, else why not ("podman is not installed"). Set once
 * at start, before any request is read; until then "oci" is refused as not configured. */
void runtime_class_set_oci(const char *unavailable);

/* spec.runtimeClassName of a pod template (spec at spec_path): absent, or "oci" where it can run.
 * An unknown class or one that cannot run here is a cause naming the field (422), as Kubernetes'
 * RuntimeClass admission refuses it. A stored job (f->admitted) keeps its class unchecked.
 * *out: a copy of the name, or NULL when absent. Returns false with the cause added. */
bool runtime_class_parse(struct fields *f, json_t *spec, const char *spec_path, char **out);

#endif
