/* Plugins and actions found by name in a registry (the built-in one is scheduler/registry.c), and
 * plugins' arguments read as numbers. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/plugin.h"

const struct plugin_def *registry_plugin(const struct plugin_registry *r, const char *name)
{
    for (size_t i = 0; r && i < r->nplugins; i++)
        if (strcmp(r->plugins[i]->name, name) == 0)
            return r->plugins[i];
    return NULL;
}

const struct action_def *registry_action(const struct plugin_registry *r, const char *name)
{
    for (size_t i = 0; r && i < r->nactions; i++)
        if (strcmp(r->actions[i]->name, name) == 0)
            return r->actions[i];
    return NULL;
}

double plugin_arg_number(const struct plugin_conf *pc, const char *key, double def)
{
    const json_t *v = pc && pc->arguments ? json_object_get(pc->arguments, key) : NULL;
    if (json_is_number(v))
        return json_number_value(v);
    if (json_is_string(v)) {
        char *end;
        double d = strtod(json_string_value(v), &end);
        if (end != json_string_value(v) && *end == '\0')
            return d;
    }
    return def;
}
