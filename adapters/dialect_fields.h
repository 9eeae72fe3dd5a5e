/* For dialect translators: every member of a source object is honoured or refused by name, the
 * fields a format defines but Caldera does not run with their reason, the rest as unknown fields. */
#ifndef CALDERA_DIALECT_FIELDS_H
#define CALDERA_DIALECT_FIELDS_H

#include <jansson.h>

#include "adapters/fields.h"

/* A field of the source format that Caldera does not run, and why. */
struct field_refusal {
    const char *name;
    const char *reason;
};

/* A FieldValueNotSupported cause for each member of obj (at path) whose key is not in known
 * (NULL-ended): `Unsupported value: "<key>": <reason>` for the keys in refused (ended by a {NULL}
 * entry; refused may be NULL), `Unsupported value: "<key>": unknown field` for the others. */
void dialect_refuse_fields(struct fields *f, const json_t *obj, const char *path, const char *const *known,
                           const struct field_refusal *refused);

#endif
