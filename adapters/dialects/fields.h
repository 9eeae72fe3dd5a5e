/* For dialect translators, what they share: every member of a source object honoured or refused by
 * name, the Volcano Job's metadata from the source's, and the Volcano Job document itself. */
#ifndef CALDERA_DIALECT_FIELDS_H
#define CALDERA_DIALECT_FIELDS_H

#include <jansson.h>

#include "adapters/dialects/dialect.h"
#include "adapters/intake/fields.h"

/* A field of the source format that Caldera does not run, and why. */
struct field_refusal {
    const char *name;
    const char *reason;
};

/* A cause for each member of obj (at path) whose key is not in known (NULL-ended): for the keys in
 * refused (ended by a {NULL} entry; refused may be NULL), fields the format defines that Caldera does
 * not run, `Forbidden: <reason>`; for the others `unknown field "<path>.<key>"`, the wording of every
 * strict check (adapters/intake/fields.h). */
void dialect_refuse_fields(struct fields *f, const json_t *obj, const char *path, const char *const *known,
                           const struct field_refusal *refused);

/* The Volcano Job's metadata from the source's: name (required: without_name says why the dialect
 * cannot take generateName), namespace, labels and annotations (shared). *name points into the
 * source. NULL after a cause. */
json_t *dialect_volcano_metadata(struct fields *f, json_t *source, const char *without_name, const char **name);

/* out->volcano = the batch.volcano.sh/v1alpha1 Job of meta and spec (both consumed). Returns 0, or -1
 * with a 500 in f->st. */
int dialect_volcano_job(struct fields *f, json_t *meta, json_t *spec, struct dialect_translation *out);

/* A pod template whose spec the translation may change: shallow copies of the template and of its
 * spec; what lies deeper (the containers) stays shared with the user's document, with its positions.
 * A new reference, or NULL (out of memory). */
json_t *dialect_template_cow(json_t *template);
/* Writes activeDeadlineSeconds (seconds, 0: none) into a copied template's spec; the template's own
 * deadline stays when it is shorter. */
void dialect_template_deadline(json_t *template, int64_t deadline);

#endif
