/* The scheduler configuration in Volcano's volcano-scheduler.conf terms: an ordered list of
 * actions and tiers of plugins, each plugin with its enable switches and arguments. */
#ifndef CALDERA_CONF_H
#define CALDERA_CONF_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define CONF_MAX_ACTIONS 8
#define CONF_MAX_TIERS 4
#define CONF_MAX_PLUGINS 16 /* per tier */
#define CONF_NAME_MAX 48

/* Volcano's per-plugin switches (PluginOption.enable*); all default to enabled. */
enum plugin_switch {
    SW_JOB_ORDER,
    SW_NAMESPACE_ORDER,
    SW_HIERARCHY,
    SW_JOB_READY,
    SW_JOB_PIPELINED,
    SW_TASK_ORDER,
    SW_PREEMPTABLE,
    SW_RECLAIMABLE,
    SW_PREEMPTIVE,
    SW_QUEUE_ORDER,
    SW_CLUSTER_ORDER,
    SW_PREDICATE,
    SW_BEST_NODE,
    SW_NODE_ORDER,
    SW_TARGET_JOB,
    SW_RESERVED_NODES,
    SW_JOB_ENQUEUED,
    SW_VICTIM,
    SW_JOB_STARVING,
    SW_OVERUSED,
    SW_ALLOCATABLE,
    SW_COUNT
};

struct plugin_conf {
    char name[CONF_NAME_MAX];
    bool enabled[SW_COUNT];
    json_t *arguments; /* object, or NULL */
};

struct tier_conf {
    int nplugins;
    struct plugin_conf plugins[CONF_MAX_PLUGINS];
};

#define CONF_MAX_ZONES 8

/* Node zones (seed 000): each zone is a scheduler partition owning the nodes whose zone label has
 * its value; a job picks its zone by spec.schedulerName. Nodes matching no zone belong to the
 * default scheduler, "volcano". */
struct zone_conf {
    char scheduler_name[CONF_NAME_MAX];
    char value[CONF_NAME_MAX];
};

struct sched_conf {
    int nactions;
    char actions[CONF_MAX_ACTIONS][CONF_NAME_MAX];
    json_t *action_args[CONF_MAX_ACTIONS]; /* from `configurations`, or NULL */
    int ntiers;
    struct tier_conf tiers[CONF_MAX_TIERS];
    char zone_label[CONF_NAME_MAX]; /* default "node-zone" */
    int nzones;
    struct zone_conf zones[CONF_MAX_ZONES];
};

#define DEFAULT_SCHEDULER_NAME "volcano"

/* The YAML key of a switch ("enableJobOrder"), as Volcano spells it. */
const char *plugin_switch_key(enum plugin_switch sw);
/* True for every name Volcano (or Caldera's extensions) defines, implemented here or not yet. */
bool plugin_name_known(const char *name);
bool action_name_known(const char *name);
/* Comma-separated lists of the known names for error messages, written into buf. */
const char *plugin_names_known(char *buf, size_t len);
const char *action_names_known(char *buf, size_t len);
/* Volcano's default conf: actions "enqueue, allocate, backfill"; tiers [priority, gang
 * (enablePreemptable: false), conformance], [overcommit, drf (enablePreemptable: false),
 * predicates, proportion, nodeorder, binpack]. */
void sched_conf_default(struct sched_conf *conf);
/* A plugin's conf by name across tiers, or NULL when not configured. */
const struct plugin_conf *sched_conf_plugin(const struct sched_conf *conf, const char *name);
void plugin_conf_init(struct plugin_conf *p, const char *name);
void sched_conf_free(struct sched_conf *conf);

#endif
