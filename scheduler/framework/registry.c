/* The registry of built-in plugins and actions, and of every name Volcano's configuration may use.
 * A known name without an implementation is accepted in a conf and skipped with a warning at start. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/plugin.h"

static const struct plugin_def *const plugins[] = {
    &plugin_priority,  &plugin_gang,       &plugin_conformance, &plugin_predicates, &plugin_nodeorder, &plugin_binpack,
    &plugin_proportion, &plugin_drf,       &plugin_overcommit,  &plugin_sla,        &plugin_quota,
};

static const struct action_def *const actions[] = {
    &action_enqueue, &action_allocate, &action_backfill, &action_preempt, &action_reclaim,
};

/* Volcano's plugin names, plus Caldera's extensions from the seeds (nodezone, quota). */
static const char *const known_plugins[] = {
    "priority", "gang", "conformance", "overcommit", "drf", "predicates", "proportion", "nodeorder",
    "binpack", "sla", "tdm", "task-topology", "numaaware", "capacity", "cdp", "extender", "rescheduling",
    "usage", "resourcequota", "deviceshare", "pdb", "nodegroup", "network-topology-aware", "nodezone", "quota",
};

static const char *const known_actions[] = {"enqueue", "allocate", "backfill", "preempt", "reclaim", "shuffle"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const struct plugin_def *plugin_find(const char *name)
{
    for (size_t i = 0; i < COUNT(plugins); i++)
        if (strcmp(plugins[i]->name, name) == 0)
            return plugins[i];
    return NULL;
}

const struct action_def *action_find(const char *name)
{
    for (size_t i = 0; i < COUNT(actions); i++)
        if (strcmp(actions[i]->name, name) == 0)
            return actions[i];
    return NULL;
}

static bool in_list(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

bool plugin_name_known(const char *name) { return in_list(known_plugins, COUNT(known_plugins), name); }
bool action_name_known(const char *name) { return in_list(known_actions, COUNT(known_actions), name); }

static const char *join(const char *const *list, size_t n, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && at < len; i++) {
        size_t l = strlen(list[i]);
        if (at + l + 3 > len)
            break;
        if (i) {
            memcpy(buf + at, ", ", 2);
            at += 2;
        }
        memcpy(buf + at, list[i], l + 1);
        at += l;
    }
    return buf;
}

const char *plugin_names_known(char *buf, size_t len) { return join(known_plugins, COUNT(known_plugins), buf, len); }
const char *action_names_known(char *buf, size_t len) { return join(known_actions, COUNT(known_actions), buf, len); }

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
