/* Strategic merge patch: the merge keys are those of Kubernetes' core/v1 types (patchMergeKey in
 * k8s.io/api) and of Volcano's Job (tasks by name), found by the list's field name, which is
 * unambiguous in the objects Caldera serves. Primitive lists marked as sets (finalizers) merge as
 * sets; every other list is replaced. */
#include "adapters/objects/strategic_merge.h"

#include <string.h>

static const struct {
    const char *field, *key;
} merge_keys[] = {
    {"containers", "name"},
    {"initContainers", "name"},
    {"ephemeralContainers", "name"},
    {"env", "name"},
    {"volumes", "name"},
    {"volumeMounts", "mountPath"},
    {"volumeDevices", "devicePath"},
    {"ports", "containerPort"},
    {"imagePullSecrets", "name"},
    {"hostAliases", "ip"},
    {"ownerReferences", "uid"},
    {"conditions", "type"},
    {"tasks", "name"},
    {"resourceClaims", "name"},
    {"topologySpreadConstraints", "topologyKey"},
};

const char *strategic_merge_key(const char *field)
{
    for (size_t i = 0; i < sizeof merge_keys / sizeof merge_keys[0]; i++)
        if (strcmp(merge_keys[i].field, field) == 0)
            return merge_keys[i].key;
    return NULL;
}

static bool primitive_set(const char *field) { return strcmp(field, "finalizers") == 0; }

static json_t *merge_map(const json_t *target, const json_t *patch, struct api_status *st);

/* A patch value with its directives taken out (what a list element added or replaced becomes). */
static json_t *without_directives(const json_t *v)
{
    if (json_is_array(v)) {
        json_t *out = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) json_array_append_new(out, without_directives(e));
        return out;
    }
    if (!json_is_object(v))
        return json_deep_copy(v);
    json_t *out = json_object();
    const char *key;
    json_t *e;
    json_object_foreach((json_t *)v, key, e)
    {
        if (key[0] != '$' && !json_is_null(e))
            json_object_set_new(out, key, without_directives(e));
    }
    return out;
}

static const char *directive(const json_t *v) { return json_string_value(json_object_get(v, "$patch")); }

/* Index of the element of list whose key member equals value's, or -1. */
static long find_keyed(const json_t *list, const char *key, const json_t *value)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) if (json_equal(json_object_get(e, key), value)) return (long)i;
    return -1;
}

static json_t *merge_value(const char *field, const json_t *target, const json_t *patch, struct api_status *st);

/* A patch element's merge key as an element added from it holds it (its directives taken out, as
 * merge_map(NULL, element) stores that member), so a patch applied again finds what it added.
 * NULL (st set) when the key's own value is refused. */
static json_t *stored_key(const char *key, const json_t *element, struct api_status *st)
{
    return merge_value(key, NULL, json_object_get(element, key), st);
}

/* A list with a merge key: patch elements merged into the target's by key, `$patch: delete`
 * removing one, `{"$patch": "replace"}` replacing the whole list with the patch's other elements. */
static json_t *merge_keyed_list(const char *field, const json_t *target, const json_t *patch, const char *key,
                                struct api_status *st)
{
    size_t i;
    json_t *e;
    json_array_foreach(patch, i, e)
    {
        const char *d = directive(e);
        if (!json_is_object(e) || (!json_object_get(e, key) && !(d && strcmp(d, "replace") == 0))) {
            /* as Kubernetes: "does not contain declared merge key" */
            api_fail(st, 400, "BadRequest", "the strategic merge patch's %s[%zu] has no merge key \"%s\"", field, i,
                     key);
            return NULL;
        }
        if (d && strcmp(d, "replace") == 0) {
            json_t *out = json_array();
            size_t j;
            json_t *f;
            json_array_foreach(patch, j, f) if (!directive(f) || strcmp(directive(f), "replace") != 0)
                json_array_append_new(out, without_directives(f));
            return out;
        }
    }
    json_t *out = json_is_array(target) ? json_deep_copy(target) : json_array();
    json_array_foreach(patch, i, e) /* deletions first, every element of that key, as Kubernetes */
    {
        const char *d = directive(e);
        if (!d || strcmp(d, "delete") != 0)
            continue;
        json_t *kv = stored_key(key, e, st);
        if (!kv) {
            json_decref(out);
            return NULL;
        }
        for (long at; (at = find_keyed(out, key, kv)) >= 0;)
            json_array_remove(out, (size_t)at);
        json_decref(kv);
    }
    json_array_foreach(patch, i, e)
    {
        const char *d = directive(e);
        if (d && strcmp(d, "delete") == 0)
            continue;
        json_t *kv = stored_key(key, e, st);
        long at = kv ? find_keyed(out, key, kv) : -1;
        json_decref(kv);
        if (!kv) {
            json_decref(out);
            return NULL;
        }
        if (at < 0) { /* merged into nothing, so that its own lists are checked as a second patch will */
            json_t *added = merge_map(NULL, e, st);
            if (!added) {
                json_decref(out);
                return NULL;
            }
            json_array_append_new(out, added);
            continue;
        }
        json_t *merged = merge_map(json_array_get(out, (size_t)at), e, st);
        if (!merged) {
            json_decref(out);
            return NULL;
        }
        json_array_set_new(out, (size_t)at, merged);
    }
    return out;
}

/* A primitive list merged as a set: the target's values, then the patch's new ones. */
static json_t *merge_set(const json_t *target, const json_t *patch)
{
    json_t *out = json_is_array(target) ? json_deep_copy(target) : json_array();
    size_t i, j;
    json_t *e, *f;
    json_array_foreach(patch, i, e)
    {
        bool have = false;
        json_array_foreach(out, j, f) have = have || json_equal(e, f);
        if (!have)
            json_array_append_new(out, json_deep_copy(e));
    }
    return out;
}

/* $deleteFromPrimitiveList/<field>: the values of list taken out of out[field]. */
static void delete_from_list(json_t *out, const char *field, const json_t *list)
{
    json_t *have = json_object_get(out, field);
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        for (size_t j = json_array_size(have); j-- > 0;)
            if (json_equal(json_array_get(have, j), e))
                json_array_remove(have, j);
    }
}

static json_t *merge_value(const char *field, const json_t *target, const json_t *patch, struct api_status *st)
{
    if (json_is_object(patch))
        return merge_map(json_is_object(target) ? target : NULL, patch, st);
    if (!json_is_array(patch))
        return json_deep_copy(patch);
    const char *key = strategic_merge_key(field);
    if (key)
        return merge_keyed_list(field, target, patch, key, st);
    if (primitive_set(field))
        return merge_set(target, patch);
    return without_directives(patch);
}

static json_t *merge_map(const json_t *target, const json_t *patch, struct api_status *st)
{
    const char *d = directive(patch);
    if (d && strcmp(d, "replace") == 0)
        return without_directives(patch);
    if (d && strcmp(d, "merge") != 0 && strcmp(d, "delete") != 0) {
        api_fail(st, 400, "BadRequest", "the strategic merge patch has an unknown directive $patch: %s", d);
        return NULL;
    }
    json_t *out = json_is_object(target) ? json_deep_copy(target) : json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)patch, key, v)
    {
        if (strcmp(key, "$patch") == 0 || strcmp(key, "$retainKeys") == 0 || strncmp(key, "$setElementOrder/", 17) == 0)
            continue;
        if (strncmp(key, "$deleteFromPrimitiveList/", 25) == 0) {
            delete_from_list(out, key + 25, v);
            continue;
        }
        if (key[0] == '$') {
            api_fail(st, 400, "BadRequest", "the strategic merge patch has an unknown directive %s", key);
            json_decref(out);
            return NULL;
        }
        if (json_is_null(v) || (json_is_object(v) && directive(v) && strcmp(directive(v), "delete") == 0)) {
            json_object_del(out, key);
            continue;
        }
        json_t *merged = merge_value(key, json_object_get(out, key), v, st);
        if (!merged) {
            json_decref(out);
            return NULL;
        }
        json_object_set_new(out, key, merged);
    }
    json_t *retain = json_object_get(patch, "$retainKeys");
    if (json_is_array(retain)) {
        const char *k;
        json_t *e;
        void *tmp;
        json_object_foreach_safe(out, tmp, k, e)
        {
            bool kept = false;
            size_t i;
            json_t *r;
            json_array_foreach(retain, i, r) kept = kept || (json_is_string(r) && strcmp(json_string_value(r), k) == 0);
            if (!kept)
                json_object_del(out, k);
        }
    }
    return out;
}

/* Every directive in the patch is one Kubernetes defines, wherever it is (an element added to a
 * list is checked too, so a patch applied again fails or succeeds the same). */
static bool known_directives(const json_t *v, struct api_status *st)
{
    size_t i;
    json_t *e;
    if (json_is_array(v)) {
        json_array_foreach(v, i, e) if (!known_directives(e, st)) return false;
        return true;
    }
    const char *key;
    json_object_foreach((json_t *)v, key, e)
    {
        const char *d = json_string_value(e);
        bool ok = key[0] != '$' || strncmp(key, "$setElementOrder/", 17) == 0 ||
                  (strncmp(key, "$deleteFromPrimitiveList/", 25) == 0 && json_is_array(e)) ||
                  (strcmp(key, "$retainKeys") == 0 && json_is_array(e)) ||
                  (strcmp(key, "$patch") == 0 && d &&
                   (strcmp(d, "replace") == 0 || strcmp(d, "merge") == 0 || strcmp(d, "delete") == 0));
        if (!ok) {
            api_fail(st, 400, "BadRequest", "the strategic merge patch has an unknown directive %s", key);
            return false;
        }
        if (!known_directives(e, st))
            return false;
    }
    return true;
}

json_t *strategic_merge_patch(const json_t *target, const json_t *patch, struct api_status *st)
{
    if (!json_is_object(patch)) {
        api_fail(st, 400, "BadRequest", "a strategic merge patch is a JSON object");
        return NULL;
    }
    return known_directives(patch, st) ? merge_map(target, patch, st) : NULL;
}
