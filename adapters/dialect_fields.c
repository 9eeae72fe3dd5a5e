/* Refusing the members of a dialect's object that Caldera does not run: by name, with the reason
 * when the format defines the field, as an unknown field when it does not. */
#include "adapters/dialect_fields.h"

#include <string.h>

static bool listed(const char *const *names, const char *key)
{
    for (const char *const *n = names; n && *n; n++)
        if (strcmp(*n, key) == 0)
            return true;
    return false;
}

void dialect_refuse_fields(struct fields *f, const json_t *obj, const char *path, const char *const *known,
                           const struct field_refusal *refused)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        (void)v;
        if (listed(known, key))
            continue;
        const char *reason = "unknown field";
        for (const struct field_refusal *r = refused; r && r->name; r++)
            if (strcmp(r->name, key) == 0)
                reason = r->reason;
        char sub[FIELD_PATH_MAX];
        field_path(sub, path, key);
        field_error(f, obj, key, sub, "FieldValueNotSupported", "Unsupported value: \"%s\": %s", key, reason);
    }
}
