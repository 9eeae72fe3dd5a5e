/* Typed access to fields of a parsed document, turning every problem into a Kubernetes field
 * cause with its path ("spec.tasks[0].replicas") and, for YAML, its line and column. */
#ifndef CALDERA_FIELDS_H
#define CALDERA_FIELDS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "adapters/intake/intake.h"
#include "common/api_status.h"

#define FIELD_PATH_MAX 192

/* The document being read and the status collecting its causes. */
struct fields {
    const struct intake_doc *doc;
    struct api_status *st;
    /* The document was accepted before and is read back from the store: fields unknown or refused
     * since (a newer server is stricter) pass, and so do values in a form an older server took, so
     * nothing acknowledged is lost by an upgrade. New documents are read with this false. */
    bool admitted;
};

/* "parent.key" or "key" when parent is empty. */
void field_path(char *out, const char *parent, const char *key);
/* "parent[index]". */
void field_path_index(char *out, const char *parent, size_t index);

/* Adds a cause located at obj[key] (or at obj itself when key is NULL, or when obj lacks key:
 * a missing field is reported where it should have been). */
void field_error(struct fields *f, const json_t *obj, const char *key, const char *path, const char *reason,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void field_error_at_index(struct fields *f, const json_t *array, size_t index, const char *path, const char *reason,
                          const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* One step of a loop over an array whose elements must be objects: writes "parent[i]" into path and
 * returns array[i] when it is an object; else adds the cause "Invalid value: <detail>" (detail: "must
 * be an object", "a task must be an object") at that element and returns NULL. */
json_t *field_each_object(struct fields *f, const json_t *array, size_t i, const char *parent, char *path,
                          const char *detail);

/* Shorthands for the usual causes, worded as Kubernetes words them. */
void field_required(struct fields *f, const json_t *obj, const char *key, const char *path);
void field_invalid(struct fields *f, const json_t *obj, const char *key, const char *path, const char *detail);
void field_unsupported(struct fields *f, const json_t *obj, const char *key, const char *path, const char *detail);

/* Getters: a missing key gives the default (or a Required cause when required); a value of the
 * wrong type gives an Invalid cause. They return false when they added a cause. */
bool field_string(struct fields *f, const json_t *obj, const char *key, const char *path, bool required,
                  const char **out);
bool field_int(struct fields *f, const json_t *obj, const char *key, const char *path, bool required, int64_t min,
               int64_t max, int64_t *out);
bool field_bool(struct fields *f, const json_t *obj, const char *key, const char *path, bool *out);
/* An object (or NULL when absent and not required). */
bool field_object(struct fields *f, const json_t *obj, const char *key, const char *path, bool required, json_t **out);
bool field_array(struct fields *f, const json_t *obj, const char *key, const char *path, bool required, json_t **out);
/* The same getters given the parent's path ("spec.tasks[0]") rather than the member's: the member's
 * path ("spec.tasks[0].replicas") is only written when a cause needs it, which most reads never do. */
bool field_string_in(struct fields *f, const json_t *obj, const char *key, const char *parent, bool required,
                     const char **out);
bool field_int_in(struct fields *f, const json_t *obj, const char *key, const char *parent, bool required, int64_t min,
                  int64_t max, int64_t *out);
bool field_bool_in(struct fields *f, const json_t *obj, const char *key, const char *parent, bool *out);
bool field_object_in(struct fields *f, const json_t *obj, const char *key, const char *parent, bool required,
                     json_t **out);
bool field_array_in(struct fields *f, const json_t *obj, const char *key, const char *parent, bool required,
                    json_t **out);
bool field_string_list_in(struct fields *f, const json_t *obj, const char *key, const char *parent, char ***out);
/* A map of string values (labels, annotations, nodeSelector). */
bool field_string_map(struct fields *f, const json_t *obj, const char *key, const char *path, json_t **out);
/* A list of strings (command, args); *out is a new NULL-terminated vector or NULL when absent. */
bool field_string_list(struct fields *f, const json_t *obj, const char *key, const char *path, char ***out);

/* A field of an input format and what Caldera does with it: nothing to say (honoured by the code
 * that reads it, or accepted with no effect, which the README says), or refused with a reason. */
struct field_rule {
    const char *name;
    const char *refused; /* NULL: honoured or accepted; else why it is refused ("the process runtime ...") */
};

/* Field validation, as Kubernetes' (`kubectl apply --validate=strict`): a cause
 * `unknown field "spec.foo"` (FieldValueNotSupported) for each member of obj that known (NULL-ended)
 * does not name (under warn or ignore, field_unknown's warning, and the member dropped). Returns false
 * when it added a cause. */
bool field_check_known(struct fields *f, const json_t *obj, const char *path, const char *const *known);
/* The cause field_check_known adds for one member: `unknown field "<path>.<key>"`, returning false;
 * unless the document's validation is warn (the same words as a warning) or ignore, which return
 * true: the caller then drops the member with field_prune once it no longer iterates obj. */
bool field_unknown(struct fields *f, const json_t *obj, const char *key, const char *path);
/* Drops keys (n of them) from obj when the document's validation drops unknown fields. */
void field_prune(struct fields *f, const json_t *obj, const char *const *keys, size_t n);
/* The same with a table (ended by a NULL name): unknown members are refused as above, and a member
 * whose rule has a reason is refused with `Forbidden: <reason>` unless its value is empty (null, "",
 * [] or {}: what Kubernetes' omitempty treats as unset). Returns false when it added a cause. */
bool field_check_rules(struct fields *f, const json_t *obj, const char *path, const struct field_rule *rules);
/* Kubernetes' ObjectMeta: what Caldera honours, accepts and refuses of it (a Job's, a Queue's, a
 * pod template's). */
extern const struct field_rule kube_object_meta_rules[];
/* A FieldValueForbidden cause at obj[key]: "Forbidden: <detail>". */
void field_forbidden(struct fields *f, const json_t *obj, const char *key, const char *path, const char *detail);

/* DNS-1123 label: lower-case alphanumerics and '-', starting and ending alphanumeric, <= 63. */
bool dns1123_label(const char *s);
/* DNS-1123 subdomain: labels joined by '.', <= 253. Both as meta_limits.h checks them, which
 * also says why not, in Kubernetes' words. */
bool dns1123_subdomain(const char *s);

#endif
