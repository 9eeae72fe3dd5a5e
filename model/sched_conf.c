/* The scheduler configuration model, the names Volcano's configuration may use and its default.
 * Parsing the YAML form lives in adapters/objects/scheduler_conf.c; this file only knows the model. */
#include "model/sched_conf.h"

#include <stdio.h>
#include <string.h>

static const char *const switch_keys[SW_COUNT] = {
    [SW_JOB_ORDER] = "enableJobOrder",         [SW_NAMESPACE_ORDER] = "enableNamespaceOrder",
    [SW_HIERARCHY] = "enableHierarchy",        [SW_JOB_READY] = "enableJobReady",
    [SW_JOB_PIPELINED] = "enableJobPipelined", [SW_TASK_ORDER] = "enableTaskOrder",
    [SW_PREEMPTABLE] = "enablePreemptable",    [SW_RECLAIMABLE] = "enableReclaimable",
    [SW_PREEMPTIVE] = "enablePreemptive",      [SW_QUEUE_ORDER] = "enableQueueOrder",
    [SW_CLUSTER_ORDER] = "enableClusterOrder", [SW_PREDICATE] = "enablePredicate",
    [SW_BEST_NODE] = "enableBestNode",         [SW_NODE_ORDER] = "enableNodeOrder",
    [SW_TARGET_JOB] = "enableTargetJob",       [SW_RESERVED_NODES] = "enableReservedNodes",
    [SW_JOB_ENQUEUED] = "enableJobEnqueued",   [SW_VICTIM] = "enabledVictim",
    [SW_JOB_STARVING] = "enableJobStarving",   [SW_OVERUSED] = "enabledOverused",
    [SW_ALLOCATABLE] = "enabledAllocatable",
};

const char *plugin_switch_key(enum plugin_switch sw) { return sw < SW_COUNT ? switch_keys[sw] : ""; }

/* Volcano's plugin names, plus Caldera's extensions from the seeds (nodezone, quota). */
static const char *const known_plugins[] = {
    "priority",
    "gang",
    "conformance",
    "overcommit",
    "drf",
    "predicates",
    "proportion",
    "nodeorder",
    "binpack",
    "sla",
    "tdm",
    "task-topology",
    "numaaware",
    "capacity",
    "cdp",
    "extender",
    "rescheduling",
    "usage",
    "resourcequota",
    "deviceshare",
    "pdb",
    "nodegroup",
    "network-topology-aware",
    "nodezone",
    "quota",
    "numa-aware", /* numaaware's name as Volcano registers it */
};

static const char *const known_actions[] = {"enqueue", "allocate", "backfill", "preempt", "reclaim", "shuffle"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

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

void plugin_conf_init(struct plugin_conf *p, const char *name)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    for (int i = 0; i < SW_COUNT; i++)
        p->enabled[i] = true;
}

static void add_plugin(struct tier_conf *tier, const char *name, bool preemptable)
{
    struct plugin_conf *p = &tier->plugins[tier->nplugins++];
    plugin_conf_init(p, name);
    p->enabled[SW_PREEMPTABLE] = preemptable;
}

void sched_conf_default(struct sched_conf *conf)
{
    memset(conf, 0, sizeof *conf);
    snprintf(conf->zone_label, sizeof conf->zone_label, "node-zone");
    const char *actions[] = {"enqueue", "allocate", "backfill"};
    for (int i = 0; i < 3; i++)
        snprintf(conf->actions[conf->nactions++], CONF_NAME_MAX, "%s", actions[i]);
    conf->ntiers = 2;
    add_plugin(&conf->tiers[0], "priority", true);
    add_plugin(&conf->tiers[0], "gang", false);
    add_plugin(&conf->tiers[0], "conformance", true);
    add_plugin(&conf->tiers[1], "overcommit", true);
    add_plugin(&conf->tiers[1], "drf", false);
    add_plugin(&conf->tiers[1], "predicates", true);
    add_plugin(&conf->tiers[1], "proportion", true);
    add_plugin(&conf->tiers[1], "nodeorder", true);
    add_plugin(&conf->tiers[1], "binpack", true);
}

const struct plugin_conf *sched_conf_plugin(const struct sched_conf *conf, const char *name)
{
    for (int t = 0; t < conf->ntiers; t++)
        for (int p = 0; p < conf->tiers[t].nplugins; p++)
            if (strcmp(conf->tiers[t].plugins[p].name, name) == 0)
                return &conf->tiers[t].plugins[p];
    return NULL;
}

void sched_conf_free(struct sched_conf *conf)
{
    for (int i = 0; i < conf->nactions; i++)
        json_decref(conf->action_args[i]);
    for (int t = 0; t < conf->ntiers; t++)
        for (int p = 0; p < conf->tiers[t].nplugins; p++)
            json_decref(conf->tiers[t].plugins[p].arguments);
    memset(conf, 0, sizeof *conf);
}
