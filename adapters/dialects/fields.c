/* What the dialect translators share: refusing the fields Caldera does not run (by name, with the
 * reason when the format defines them), the Volcano Job's metadata and the Job document. */
#include "adapters/dialects/fields.h"

#include <string.h>

#include "common/api_status.h"

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
    char *unknown[32];
    size_t nunknown = 0;
    json_object_foreach((json_t *)obj, key, v)
    {
        (void)v;
        if (listed(known, key))
            continue;
        const char *reason = NULL;
        for (const struct field_refusal *r = refused; r && r->name; r++)
            if (strcmp(r->name, key) == 0)
                reason = r->reason;
        char sub[FIELD_PATH_MAX];
        field_path(sub, path, key);
        if (reason)
            field_forbidden(f, obj, key, sub, reason); /* a field of the format that Caldera does not run */
        else if (field_unknown(f, obj, key, path) && nunknown < sizeof unknown / sizeof unknown[0])
            unknown[nunknown++] = strdup(key); /* dropped after the loop: its key dies with it */
    }
    field_prune(f, obj, (const char *const *)unknown, nunknown);
    for (size_t i = 0; i < nunknown; i++)
        free(unknown[i]);
}

json_t *dialect_volcano_metadata(struct fields *f, json_t *source, const char *without_name, const char **name)
{
    json_t *meta, *labels = NULL, *annotations = NULL;
    *name = NULL;
    if (!field_object(f, source, "metadata", "metadata", true, &meta) || !meta)
        return NULL;
    field_string(f, meta, "name", "metadata.name", false, name);
    if (!*name || !**name) {
        field_error(f, meta, "name", "metadata.name", "FieldValueRequired", "Required value: %s", without_name);
        return NULL;
    }
    json_t *out = json_pack("{s:s}", "name", *name);
    json_t *ns = json_object_get(meta, "namespace");
    if (ns)
        json_object_set(out, "namespace", ns);
    if (field_string_map(f, meta, "labels", "metadata.labels", &labels) && labels)
        json_object_set(out, "labels", labels);
    if (field_string_map(f, meta, "annotations", "metadata.annotations", &annotations) && annotations)
        json_object_set(out, "annotations", annotations);
    return out;
}

int dialect_volcano_job(struct fields *f, json_t *meta, json_t *spec, struct dialect_translation *out)
{
    out->volcano = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "batch.volcano.sh/v1alpha1", "kind", "Job",
                             "metadata", meta, "spec", spec);
    return out->volcano ? 0 : api_fail(f->st, 500, "InternalError", "out of memory");
}

json_t *dialect_template_cow(json_t *template)
{
    json_t *copy = json_copy(template);
    json_t *spec = json_object_get(template, "spec");
    if (copy && json_is_object(spec) && json_object_set_new(copy, "spec", json_copy(spec)) != 0) {
        json_decref(copy);
        return NULL;
    }
    return copy;
}

void dialect_template_deadline(json_t *template, int64_t deadline)
{
    json_t *spec = json_object_get(template, "spec");
    json_t *own = json_object_get(spec, "activeDeadlineSeconds");
    /* the pod's own deadline, when shorter, still holds; a malformed one is left for the pod
     * template's validation to report */
    if (deadline > 0 && json_is_object(spec) && (!own || (json_is_integer(own) && json_integer_value(own) > deadline)))
        json_object_set_new(spec, "activeDeadlineSeconds", json_integer(deadline));
}
