/* The built-in plugins and actions, the registry every session of the server and the simulator is
 * opened with, and which of a conf's names have none yet. */
#ifndef CALDERA_SCHEDULER_REGISTRY_H
#define CALDERA_SCHEDULER_REGISTRY_H

#include <stddef.h>

#include "model/sched_conf.h"
#include "scheduler/framework/plugin.h"

extern const struct plugin_registry builtin_registry;

/* Writes the configured names that have no implementation yet ("preempt, drf, ...") into buf;
 * returns how many there are. The names themselves are known to the model (plugin_name_known): a
 * name Volcano knows without an implementation is skipped with a warning at start. */
int sched_conf_unimplemented(const struct sched_conf *conf, char *buf, size_t len);

#endif
