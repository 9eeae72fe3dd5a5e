/* YAML anchors, aliases and merge keys for the intake reader: the anchor table, the deep copies an
 * alias produces, and merging mappings under "<<" without overriding keys the mapping sets itself. */
#include "adapters/intake/internal.h"

#include <stdlib.h>
#include <string.h>

static void anchor_free(struct anchor *a)
{
    json_decref(a->value);
    free(a->name);
    free(a);
}

/* A later anchor of the same name hides the earlier one, as YAML says. */
int anchor_set(struct hmap *anchors, const char *name, json_t *value, size_t values, size_t bytes)
{
    struct anchor *a = strmap_get(anchors, name);
    if (!a) {
        a = calloc(1, sizeof *a);
        if (!a || !(a->name = strdup(name)) || strmap_put(anchors, a->name, a) != 0) {
            if (a)
                free(a->name);
            free(a);
            return -1;
        }
    }
    json_decref(a->value);
    a->value = json_incref(value);
    a->values = values;
    a->bytes = bytes;
    return 0;
}

const struct anchor *anchor_get(const struct hmap *anchors, const char *name) { return strmap_get(anchors, name); }

void anchors_clear(struct hmap *anchors)
{
    void *value;
    for (size_t i = 0; hmap_next(anchors, &i, NULL, &value);)
        anchor_free(value);
    hmap_clear(anchors);
}

static json_t *copy_value(struct intake_positions *positions, json_t *src, int level, enum alias_result *why);

static json_t *copy_object(struct intake_positions *positions, json_t *src, int level, enum alias_result *why)
{
    json_t *dst = json_object();
    if (!dst || pos_record_origin(positions, dst, src) != 0)
        goto oom;
    const char *key;
    json_t *value;
    json_object_foreach(src, key, value)
    {
        json_t *copy = copy_value(positions, value, level + 1, why);
        if (!copy) {
            json_decref(dst);
            return NULL;
        }
        if (json_object_set_new(dst, key, copy) != 0)
            goto oom;
    }
    return dst;
oom:
    json_decref(dst);
    *why = ALIAS_NO_MEMORY;
    return NULL;
}

static json_t *copy_array(struct intake_positions *positions, json_t *src, int level, enum alias_result *why)
{
    json_t *dst = json_array();
    if (!dst || pos_record_origin(positions, dst, src) != 0)
        goto oom;
    size_t index;
    json_t *value;
    json_array_foreach(src, index, value)
    {
        json_t *copy = copy_value(positions, value, level + 1, why);
        if (!copy) {
            json_decref(dst);
            return NULL;
        }
        if (json_array_append_new(dst, copy) != 0)
            goto oom;
    }
    return dst;
oom:
    json_decref(dst);
    *why = ALIAS_NO_MEMORY;
    return NULL;
}

static json_t *copy_value(struct intake_positions *positions, json_t *src, int level, enum alias_result *why)
{
    if (json_is_object(src) || json_is_array(src)) {
        if (level > INTAKE_MAX_DEPTH) {
            *why = ALIAS_TOO_DEEP;
            return NULL;
        }
        return json_is_object(src) ? copy_object(positions, src, level, why) : copy_array(positions, src, level, why);
    }
    json_t *copy = json_copy(src);
    if (!copy)
        *why = ALIAS_NO_MEMORY;
    return copy;
}

/* Aliases get deep copies, as Go's decoder gives Kubernetes: a consumer that changes one use of an
 * anchor (defaulting a task template, say) must not change the others. The copy records its
 * original, so lookups inside it answer with the anchored text's positions. */
json_t *alias_copy(struct intake_positions *positions, const struct anchor *a, int level, enum alias_result *why)
{
    *why = ALIAS_OK;
    return copy_value(positions, a->value, level, why);
}

static int merge_members(struct intake_positions *positions, json_t *into, json_t *from)
{
    const char *key;
    json_t *value;
    json_object_foreach(from, key, value)
    {
        if (json_object_get(into, key))
            continue; /* explicit keys, and earlier mappings in a merge list, win */
        if (json_object_set(into, key, value) != 0 || pos_copy_member(positions, into, from, key) != 0)
            return -1;
    }
    return 0;
}

enum alias_result merge_apply(struct intake_positions *positions, json_t *into, json_t *merge, size_t *bad_index)
{
    if (json_is_object(merge))
        return merge_members(positions, into, merge) == 0 ? ALIAS_OK : ALIAS_NO_MEMORY;
    if (!json_is_array(merge))
        return ALIAS_NOT_MAPPINGS;
    size_t i;
    json_t *item;
    json_array_foreach(merge, i, item)
    {
        if (!json_is_object(item)) {
            *bad_index = i;
            return ALIAS_NOT_MAPPING_ITEM;
        }
    }
    json_array_foreach(merge, i, item)
    {
        if (merge_members(positions, into, item) != 0)
            return ALIAS_NO_MEMORY;
    }
    return ALIAS_OK;
}
