/* PriorityClasses in and out, with Kubernetes' validation: a required int32 value no higher than
 * the user maximum, the two preemption policies, and the "system-" names kept for built-ins. */
#include "adapters/objects/priority_class.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/objects/object_meta.h"
#include "common/uuid.h"

#define SYSTEM_PREFIX "system-"

static const struct object_type pc_type = {PRIORITY_CLASS_API_VERSION, "PriorityClass", "priorityclasses",
                                           "scheduling.k8s.io"};

static const char *const top_fields[] = {"apiVersion",    "kind",        "metadata",         "value",
                                         "globalDefault", "description", "preemptionPolicy", NULL};

const char *const priority_class_builtin_names[] = {"system-node-critical", "system-cluster-critical", NULL};

/* Kubernetes' own descriptions of its system classes. */
static const char *builtin_description(const char *name)
{
    if (strcmp(name, "system-node-critical") == 0)
        return "Used for system critical pods that must not be moved from their current node.";
    return "Used for system critical pods that must run in the cluster, but can be moved to another node if "
           "necessary.";
}

static bool is_builtin(const char *name)
{
    int32_t value;
    return name && priority_class_value(name, &value);
}

static void check_reserved_name(struct fields *f, const json_t *root, const char *name)
{
    if (!name || strncmp(name, SYSTEM_PREFIX, strlen(SYSTEM_PREFIX)) != 0 || is_builtin(name))
        return;
    field_error(f, json_object_get(root, "metadata"), "name", "metadata.name", "FieldValueForbidden",
                "Forbidden: priority class names with the '" SYSTEM_PREFIX
                "' prefix are reserved for the built-in "
                "classes");
}

static void parse_preemption_policy(struct fields *f, json_t *root, struct priority_class *pc)
{
    const char *policy = NULL;
    if (!field_string(f, root, "preemptionPolicy", "preemptionPolicy", false, &policy))
        return;
    if (!policy) {
        json_object_set_new(root, "preemptionPolicy", json_string("PreemptLowerPriority"));
        return;
    }
    if (strcmp(policy, "Never") == 0)
        pc->preempt_never = true;
    else if (strcmp(policy, "PreemptLowerPriority") != 0)
        field_unsupported(f, root, "preemptionPolicy", "preemptionPolicy",
                          "supported values: \"Never\", \"PreemptLowerPriority\"");
}

/* The fields beside metadata; defaults (globalDefault false, PreemptLowerPriority) are written back. */
static void parse_fields(struct fields *f, json_t *root, struct priority_class *pc)
{
    field_check_known(f, root, "", top_fields);
    int64_t value = 0;
    int64_t max = is_builtin(pc->name) ? INT32_MAX : PRIORITY_USER_MAX;
    field_int(f, root, "value", "value", true, INT32_MIN, max, &value);
    pc->value = (int32_t)value;
    if (field_bool(f, root, "globalDefault", "globalDefault", &pc->global_default) &&
        !json_is_boolean(json_object_get(root, "globalDefault")))
        json_object_set_new(root, "globalDefault", json_false());
    const char *description;
    field_string(f, root, "description", "description", false, &description);
    parse_preemption_policy(f, root, pc);
}

/* The manifest: the object as accepted, less the metadata the server owns. */
static json_t *manifest_of(json_t *root, json_t *meta)
{
    json_t *m = json_pack("{s:s, s:s, s:o}", "apiVersion", PRIORITY_CLASS_API_VERSION, "kind", "PriorityClass",
                          "metadata", meta);
    static const char *const copied[] = {"value", "globalDefault", "description", "preemptionPolicy"};
    for (size_t i = 0; m && i < sizeof copied / sizeof copied[0]; i++) {
        json_t *v = json_object_get(root, copied[i]);
        if (v && !json_is_null(v))
            json_object_set(m, copied[i], v);
    }
    return m;
}

static struct priority_class *build(struct fields *f, json_t *root)
{
    json_t *meta = NULL;
    struct priority_class *pc = calloc(1, sizeof *pc);
    if (!pc) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return NULL;
    }
    if (object_meta_parse(f, root, NULL, &meta, &pc->resource_version) &&
        !(pc->name = strdup(json_string_value(json_object_get(meta, "name")))))
        api_fail(f->st, 500, "InternalError", "out of memory");
    check_reserved_name(f, root, pc->name);
    if (f->st->code == 0)
        parse_fields(f, root, pc);
    if (f->st->code != 0 || f->st->ncauses > 0 || !meta) {
        json_decref(meta);
        priority_class_free(pc);
        return NULL;
    }
    pc->builtin = is_builtin(pc->name);
    if (!(pc->manifest = manifest_of(root, meta))) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        priority_class_free(pc);
        return NULL;
    }
    return pc;
}

int priority_class_from_doc(const struct intake_doc *doc, struct priority_class **out, struct api_status *st)
{
    *out = NULL;
    if (!json_is_object(doc->root))
        return api_fail(st, 400, "BadRequest", "the body must be a PriorityClass object");
    if (object_check_type(doc->root, &pc_type, st) != 0)
        return -1;
    struct fields f = {doc, st};
    *out = build(&f, doc->root);
    return *out ? 0 : object_fail_invalid(st, &pc_type, doc->root);
}

struct priority_class *priority_class_new_builtin(const char *name, int64_t now_ms)
{
    int32_t value;
    if (!priority_class_value(name, &value))
        return NULL;
    struct priority_class *pc = calloc(1, sizeof *pc);
    if (!pc)
        return NULL;
    pc->name = strdup(name);
    uuid_v4(pc->uid);
    pc->created_ms = now_ms;
    pc->value = value;
    pc->builtin = true;
    pc->manifest = json_pack("{s:s, s:s, s:{s:s}, s:i, s:b, s:s, s:s}", "apiVersion", PRIORITY_CLASS_API_VERSION,
                             "kind", "PriorityClass", "metadata", "name", name, "value", value, "globalDefault", 0,
                             "description", builtin_description(name), "preemptionPolicy", "PreemptLowerPriority");
    if (!pc->name || !pc->manifest) {
        priority_class_free(pc);
        return NULL;
    }
    return pc;
}

json_t *priority_class_render(const struct priority_class *pc)
{
    return object_manifest_render(pc->manifest, pc->uid, pc->created_ms, pc->resource_version);
}

char *priority_class_to_store_json(const struct priority_class *pc)
{
    return object_store_text(priority_class_render(pc));
}

struct priority_class *priority_class_from_store_json(const char *json)
{
    json_t *root = json_loads(json, 0, NULL);
    struct api_status st = {0};
    struct fields f = {NULL, &st};
    struct priority_class *pc = json_is_object(root) ? build(&f, root) : NULL;
    if (pc) {
        object_meta_restore(root, pc->uid, &pc->created_ms);
        if (pc->builtin)
            priority_class_value(pc->name, &pc->value); /* the table is the truth for built-ins */
    }
    json_decref(root);
    return pc;
}
