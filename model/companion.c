/* Companion types as a set looked up by name: copying, clearing and the activity sources' names.
 * The reader (adapters/objects/companion_types.c) fills it; the lifecycle only reads it. */
#include "model/companion.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strv.h"

const struct companion_type *companion_types_find(const struct companion_types *set, const char *name)
{
    for (int i = 0; set && i < set->n; i++)
        if (strcmp(set->types[i].name, name) == 0)
            return &set->types[i];
    return NULL;
}

struct companion_type *companion_types_get(struct companion_types *set, const char *name)
{
    struct companion_type *t = (struct companion_type *)companion_types_find(set, name);
    if (t)
        return t;
    struct companion_type *grown = realloc(set->types, (size_t)(set->n + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    set->types = grown;
    t = &set->types[set->n++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    return t;
}

static int copy_str(char **out, const char *s)
{
    *out = NULL;
    return s && !(*out = strdup(s)) ? -1 : 0;
}

static int copy_strv(char ***out, char *const *v)
{
    *out = NULL;
    return v && !(*out = strv_dup(v)) ? -1 : 0;
}

int companion_type_copy(struct companion_type *out, const struct companion_type *t)
{
    *out = *t;
    int rc = copy_strv(&out->argv, t->argv) | copy_strv(&out->env, t->env) | copy_strv(&out->headers, t->headers) |
             copy_str(&out->readiness_path, t->readiness_path) | copy_str(&out->activity.path, t->activity.path) |
             copy_str(&out->activity.field, t->activity.field) |
             copy_str(&out->activity.busy_path, t->activity.busy_path) | copy_str(&out->image, t->image);
    if (rc != 0) {
        companion_type_clear(out);
        return -1;
    }
    return 0;
}

void companion_type_clear(struct companion_type *t)
{
    strv_free(t->argv);
    strv_free(t->env);
    strv_free(t->headers);
    free(t->readiness_path);
    free(t->activity.path);
    free(t->activity.field);
    free(t->activity.busy_path);
    free(t->image);
    memset(t, 0, sizeof *t);
}

void companion_types_free(struct companion_types *set)
{
    for (int i = 0; i < set->n; i++)
        companion_type_clear(&set->types[i]);
    free(set->types);
    set->types = NULL;
    set->n = 0;
}

static const char *const source_names[] = {
    [COMPANION_ACTIVITY_PROXY] = "proxy",
    [COMPANION_ACTIVITY_JSON] = "json",
    [COMPANION_ACTIVITY_JUPYTER] = "jupyter",
};

const char *companion_activity_source_name(enum companion_activity_source s)
{
    return (size_t)s < sizeof source_names / sizeof source_names[0] ? source_names[s] : "?";
}

bool companion_activity_source_parse(const char *name, enum companion_activity_source *out)
{
    for (size_t i = 0; i < sizeof source_names / sizeof source_names[0]; i++) {
        if (strcmp(source_names[i], name) == 0) {
            *out = (enum companion_activity_source)i;
            return true;
        }
    }
    return false;
}
