/* The default node's CPU manager options (--cpu-manager-policy, --topology-manager-policy,
 * --reserved-cpus) and how they shape the topology read from this machine. */
#ifndef CALDERA_DAEMON_NUMA_OPTIONS_H
#define CALDERA_DAEMON_NUMA_OPTIONS_H

#include <stdbool.h>

#include "model/numa.h"

struct numa_options {
    bool static_cpus;
    enum topology_policy policy;
    bool reserved_given;
    struct cpu_bits reserved;
};

/* Reads one option's value into o. Returns 0, or -1 after a message on stderr. */
int options_parse_numa(const char *flag, const char *value, struct numa_options *o);
/* Sets t's policies and reserved CPUs from o (under static without --reserved-cpus: its first CPU,
 * so the shared pool is never empty). */
void numa_options_apply(const struct numa_options *o, struct numa_topology *t);

#endif
