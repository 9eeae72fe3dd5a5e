/* spec.runtimeClassName: the classes this server has ("oci", when podman is there) and the refusal
 * of any other, naming the field and why (runtime_class.h). */
#include "adapters/objects/runtime_class.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char oci_unavailable[256] = "no OCI runtime is configured";

void runtime_class_set_oci(const char *unavailable)
{
    snprintf(oci_unavailable, sizeof oci_unavailable, "%s", unavailable ? unavailable : "");
}

bool runtime_class_parse(struct fields *f, json_t *spec, const char *spec_path, char **out)
{
    const char *name = NULL;
    *out = NULL;
    if (!field_string_in(f, spec, "runtimeClassName", spec_path, false, &name))
        return false;
    if (!name)
        return true;
    char p[FIELD_PATH_MAX];
    field_path(p, spec_path, "runtimeClassName");
    if (!f->admitted && strcmp(name, RUNTIME_CLASS_OCI) != 0) {
        field_error(f, spec, "runtimeClassName", p, "FieldValueNotFound",
                    "Not found: \"%.64s\": RuntimeClass \"%.64s\" not found (this server offers \"" RUNTIME_CLASS_OCI
                    "\": a task as an OCI container, through podman; without runtimeClassName a task runs as a "
                    "process on the node)",
                    name, name);
        return false;
    }
    if (!f->admitted && oci_unavailable[0]) {
        field_error(f, spec, "runtimeClassName", p, "FieldValueInvalid",
                    "Invalid value: \"" RUNTIME_CLASS_OCI "\": RuntimeClass \"" RUNTIME_CLASS_OCI "\": %s",
                    oci_unavailable);
        return false;
    }
    if (!(*out = strdup(name))) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return false;
    }
    return true;
}
