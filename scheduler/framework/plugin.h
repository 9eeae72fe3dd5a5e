/* How plugins and actions plug into the framework: a name and functions, like Slurm's plugin
 * structs and Volcano's Plugin/Action interfaces, and a registry of them by name. */
#ifndef CALDERA_PLUGIN_H
#define CALDERA_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

#include "scheduler/framework/session.h"

struct plugin_def {
    const char *name;
    /* Registers the plugin's callbacks for this session; *state is passed back to them. Returns 0 or -1. */
    int (*open)(struct session *ssn, const struct plugin_conf *conf, int tier, void **state);
    /* Writes verdicts (e.g. gang's Unschedulable messages) and frees the state. May be NULL. */
    void (*close)(struct session *ssn, void *state);
};

struct action_def {
    const char *name;
    void (*execute)(struct session *ssn);
};

/* The plugins and actions a session may open: the caller's (scheduler/registry.h has the built-in
 * one), so the framework never names an implementation. */
struct plugin_registry {
    const struct plugin_def *const *plugins;
    size_t nplugins;
    const struct action_def *const *actions;
    size_t nactions;
};

/* The implementation of a name in r, or NULL. */
const struct plugin_def *registry_plugin(const struct plugin_registry *r, const char *name);
const struct action_def *registry_action(const struct plugin_registry *r, const char *name);

/* The built-ins, each defined in its own file under scheduler/plugins/ and scheduler/actions/. */
extern const struct plugin_def plugin_priority, plugin_gang, plugin_conformance, plugin_predicates, plugin_nodeorder,
    plugin_binpack, plugin_proportion, plugin_drf, plugin_overcommit, plugin_sla, plugin_quota, plugin_task_topology,
    plugin_numa_aware, plugin_numaaware, plugin_tdm;
extern const struct action_def action_enqueue, action_allocate, action_backfill, action_preempt, action_reclaim;

/* A plugin's argument as a number (Volcano's arguments are strings or numbers); def when absent or
 * not a number. */
double plugin_arg_number(const struct plugin_conf *pc, const char *key, double def);

#endif
