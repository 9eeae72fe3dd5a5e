/* How plugins and actions plug into the framework: a name and functions, like Slurm's plugin
 * structs and Volcano's Plugin/Action interfaces. The registry knows every built-in one. */
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

/* The built-in implementation of a name, or NULL. */
const struct plugin_def *plugin_find(const char *name);
const struct action_def *action_find(const char *name);
/* Writes the configured names that have no implementation yet ("preempt, drf, ...") into buf;
 * returns how many there are. The names themselves are known to the model (plugin_name_known). */
int sched_conf_unimplemented(const struct sched_conf *conf, char *buf, size_t len);

/* The built-ins. */
extern const struct plugin_def plugin_priority, plugin_gang, plugin_conformance, plugin_predicates, plugin_nodeorder,
    plugin_binpack, plugin_proportion, plugin_drf, plugin_overcommit, plugin_sla, plugin_quota;
extern const struct action_def action_enqueue, action_allocate, action_backfill, action_preempt, action_reclaim;

/* A plugin's argument as a number (Volcano's arguments are strings or numbers); def when absent or
 * not a number. */
double plugin_arg_number(const struct plugin_conf *pc, const char *key, double def);

#endif
