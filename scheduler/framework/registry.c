/* The registry of built-in plugins and actions, and which of a conf's names have none yet: a name
 * Volcano knows (model/sched_conf.c) without an implementation is skipped with a warning at start. */
#include <stddef.h>
#include <stdio.h>
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

static void append_name(char *buf, size_t len, int *count, const char *name)
{
    size_t at = strlen(buf);
    if (at + strlen(name) + 3 < len)
        snprintf(buf + at, len - at, "%s%s", *count ? ", " : "", name);
    (*count)++;
}

int sched_conf_unimplemented(const struct sched_conf *conf, char *buf, size_t len)
{
    int count = 0;
    buf[0] = '\0';
    for (int a = 0; a < conf->nactions; a++)
        if (!action_find(conf->actions[a]))
            append_name(buf, len, &count, conf->actions[a]);
    for (int t = 0; t < conf->ntiers; t++)
        for (int p = 0; p < conf->tiers[t].nplugins; p++)
            if (!plugin_find(conf->tiers[t].plugins[p].name))
                append_name(buf, len, &count, conf->tiers[t].plugins[p].name);
    return count;
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
