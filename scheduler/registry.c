/* The built-in plugins and actions as the registry sessions are opened with; it sits above the
 * framework, the plugins and the actions, which never look it up themselves. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "scheduler/registry.h"

static const struct plugin_def *const plugins[] = {
    &plugin_priority, &plugin_gang,          &plugin_conformance, &plugin_predicates, &plugin_nodeorder,
    &plugin_binpack,  &plugin_proportion,    &plugin_drf,         &plugin_overcommit, &plugin_sla,
    &plugin_quota,    &plugin_task_topology, &plugin_numa_aware,  &plugin_numaaware,  &plugin_tdm,
};

static const struct action_def *const actions[] = {
    &action_enqueue, &action_allocate, &action_backfill, &action_preempt, &action_reclaim,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

const struct plugin_registry builtin_registry = {plugins, COUNT(plugins), actions, COUNT(actions)};

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
        if (!registry_action(&builtin_registry, conf->actions[a]))
            append_name(buf, len, &count, conf->actions[a]);
    for (int t = 0; t < conf->ntiers; t++)
        for (int p = 0; p < conf->tiers[t].nplugins; p++)
            if (!registry_plugin(&builtin_registry, conf->tiers[t].plugins[p].name))
                append_name(buf, len, &count, conf->tiers[t].plugins[p].name);
    return count;
}
