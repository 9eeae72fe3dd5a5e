/* components.schemas of the OpenAPI document, built from schema_table.c: each object with
 * its fields, each list, a loose schema per dialect's object, and the value lists the code keeps
 * (job phases, policy events and actions...) taken from the code itself. */
#include <stdio.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "gateway/openapi/internal.h"
#include "gateway/openapi/schemas.h"
#include "model/job.h"
#include "model/policy.h"
#include "model/queue.h"

/* ---- value lists the code keeps ----------------------------------------------------------------- */

static bool any_action(int a) { return a >= ACT_ABORT_JOB && a <= ACT_CLOSE_QUEUE; }
static bool job_action(int a) { return job_action_for_jobs((enum job_action)a); }
static bool policy_event(int e) { return e < EV_POD_RUNNING; } /* the rest are internal */
static const char *action_name(int a) { return job_action_name((enum job_action)a); }
static const char *event_name(int e) { return job_event_name((enum job_event)e); }
static const char *job_phase(int p) { return job_phase_name((enum job_phase)p); }
static const char *pod_phase(int p) { return pod_phase_name((enum pod_phase)p); }
static const char *podgroup_phase(int p) { return podgroup_phase_name((enum podgroup_phase)p); }
static const char *queue_state(int s) { return queue_state_name((enum queue_state)s); }

static const struct {
    const char *name;
    int count;
    const char *(*value)(int);
    bool (*wanted)(int); /* NULL: every value */
} value_lists[] = {
    {"@job_phase", JOB_PHASE_COUNT, job_phase, NULL},          {"@pod_phase", POD_PHASE_COUNT, pod_phase, NULL},
    {"@podgroup_phase", PG_PHASE_COUNT, podgroup_phase, NULL}, {"@queue_state", QUEUE_CLOSED + 1, queue_state, NULL},
    {"@policy_event", EV_COUNT, event_name, policy_event},     {"@policy_action", ACT_COUNT, action_name, job_action},
    {"@command_action", ACT_COUNT, action_name, any_action},
};

static json_t *values(const char *of)
{
    json_t *list = json_array();
    if (of[0] == '@') {
        for (size_t i = 0; i < sizeof value_lists / sizeof value_lists[0]; i++) {
            if (strcmp(value_lists[i].name, of) != 0)
                continue;
            for (int v = 0; v < value_lists[i].count; v++)
                if (!value_lists[i].wanted || value_lists[i].wanted(v))
                    json_array_append_new(list, json_string(value_lists[i].value(v)));
        }
        return list; /* empty for an unknown name: the unit test sees it */
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", of);
    for (char *save = NULL, *v = strtok_r(buf, " ", &save); v; v = strtok_r(NULL, " ", &save))
        json_array_append_new(list, json_string(v));
    return list;
}

/* ---- fields ------------------------------------------------------------------------------------- */

static json_t *typed(const char *type, const char *format)
{
    return format ? json_pack("{s:s, s:s}", "type", type, "format", format) : json_pack("{s:s}", "type", type);
}

static json_t *field_schema(const struct openapi_field *f)
{
    json_t *s = NULL;
    switch (f->type) {
    case F_STRING:
        s = typed("string", NULL);
        if (f->of)
            json_object_set_new(s, "enum", values(f->of));
        break;
    case F_INT: s = typed("integer", "int32"); break;
    case F_INT64: s = typed("integer", "int64"); break;
    case F_NULLABLE_INT: s = json_pack("{s:s, s:s, s:b}", "type", "integer", "format", "int32", "nullable", 1); break;
    case F_BOOL: s = typed("boolean", NULL); break;
    case F_NUMBER: s = typed("number", "double"); break;
    case F_TIME: s = typed("string", "date-time"); break;
    case F_NULLABLE_TIME:
        s = json_pack("{s:s, s:s, s:b}", "type", "string", "format", "date-time", "nullable", 1);
        break;
    case F_QUANTITY: s = openapi_ref("schemas", "Quantity"); break;
    case F_OBJECT: s = json_pack("{s:s, s:b}", "type", "object", "additionalProperties", 1); break;
    case F_REF: s = openapi_ref("schemas", f->of); break;
    case F_ARRAY_REF: s = json_pack("{s:s, s:o}", "type", "array", "items", openapi_ref("schemas", f->of)); break;
    case F_STRINGS: s = json_pack("{s:s, s:{s:s}}", "type", "array", "items", "type", "string"); break;
    case F_OBJECTS: s = json_pack("{s:s, s:{s:s}}", "type", "array", "items", "type", "object"); break;
    case F_STRING_MAP:
        s = json_pack("{s:s, s:{s:s}}", "type", "object", "additionalProperties", "type", "string");
        break;
    case F_STRINGS_MAP:
        s = json_pack("{s:s, s:{s:s, s:{s:s}}}", "type", "object", "additionalProperties", "type", "array", "items",
                      "type", "string");
        break;
    case F_INT_MAP:
        s = json_pack("{s:s, s:{s:s, s:s}}", "type", "object", "additionalProperties", "type", "integer", "format",
                      "int32");
        break;
    case F_QUANTITY_MAP:
        s = json_pack("{s:s, s:o}", "type", "object", "additionalProperties", openapi_ref("schemas", "Quantity"));
        break;
    case F_REF_MAP:
        s = json_pack("{s:s, s:o}", "type", "object", "additionalProperties", openapi_ref("schemas", f->of));
        break;
    }
    if (!s || !f->description)
        return s;
    if (json_object_get(s, "$ref")) /* a reference takes no siblings in OpenAPI 3.0 */
        s = json_pack("{s:[o]}", "allOf", s);
    json_object_set_new(s, "description", json_string(f->description));
    return s;
}

/* ---- objects ------------------------------------------------------------------------------------ */

static json_t *group_version_kind(const char *group, const char *version, const char *kind)
{
    return json_pack("[{s:s, s:s, s:s}]", "group", group, "version", version, "kind", kind);
}

static json_t *object_schema(const struct openapi_schema *sc)
{
    json_t *props = json_object();
    for (const struct openapi_field *f = openapi_field_table; f->schema; f++)
        if (strcmp(f->schema, sc->name) == 0)
            json_object_set_new(props, f->name, field_schema(f));
    json_t *s = json_pack("{s:s, s:s, s:o}", "description", sc->description, "type", "object", "properties", props);
    if (sc->required[0]) {
        json_t *required = json_array();
        char buf[256];
        snprintf(buf, sizeof buf, "%s", sc->required);
        for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
            json_array_append_new(required, json_string(w));
        json_object_set_new(s, "required", required);
    }
    if (sc->kind)
        json_object_set_new(s, "x-kubernetes-group-version-kind", group_version_kind(sc->group, sc->version, sc->kind));
    return s;
}

static json_t *list_schema(const char *name, const char *item, const char *group, const char *version)
{
    char description[160];
    snprintf(description, sizeof description, "A list of %s.", item);
    json_t *s = json_pack("{s:s, s:s, s:[s], s:{s:{s:s}, s:{s:s}, s:o, s:{s:s, s:o}}}", "description", description,
                          "type", "object", "required", "items", "properties", "apiVersion", "type", "string", "kind",
                          "type", "string", "metadata", openapi_ref("schemas", "ListMeta"), "items", "type", "array",
                          "items", openapi_ref("schemas", item));
    json_object_set_new(s, "x-kubernetes-group-version-kind", group_version_kind(group, version, name));
    return s;
}

/* A dialect's object: loose (its own adapter checks it), but with its group, version and kind. */
static json_t *dialect_schema(const struct dialect *d)
{
    char description[256];
    snprintf(description, sizeof description,
             "A %s (%s/%s): it runs as a Volcano Job of the same name; its fields are the %s's own, checked when "
             "submitted (see README.md, \"Other dialects\").",
             d->kind, d->group, d->version, d->kind);
    json_t *s = json_pack("{s:s, s:s, s:{s:{s:s}, s:{s:s}, s:o, s:{s:s, s:b}, s:{s:s, s:b}}}", "description",
                          description, "type", "object", "properties", "apiVersion", "type", "string", "kind", "type",
                          "string", "metadata", openapi_ref("schemas", "ObjectMeta"), "spec", "type", "object",
                          "additionalProperties", 1, "status", "type", "object", "additionalProperties", 1);
    json_object_set_new(s, "x-kubernetes-group-version-kind", group_version_kind(d->group, d->version, d->kind));
    return s;
}

json_t *openapi_schemas(void)
{
    json_t *out = json_object();
    json_object_set_new(out, "Quantity",
                        json_pack("{s:s, s:[{s:s}, {s:s}]}", "description",
                                  "A Kubernetes quantity: a number, or a string such as \"500m\", \"4Gi\", \"2\"",
                                  "oneOf", "type", "string", "type", "number"));
    for (const struct openapi_schema *sc = openapi_schema_table; sc->name; sc++)
        json_object_set_new(out, sc->name, object_schema(sc));
    for (const struct openapi_list *l = openapi_list_table; l->name; l++)
        json_object_set_new(out, l->name, list_schema(l->name, l->item, l->group, l->version));
    for (const struct dialect *const *d = dialects; *d; d++) {
        char list[96];
        snprintf(list, sizeof list, "%sList", (*d)->kind);
        json_object_set_new(out, (*d)->kind, dialect_schema(*d));
        json_object_set_new(out, list, list_schema(list, (*d)->kind, (*d)->group, (*d)->version));
    }
    return out;
}
