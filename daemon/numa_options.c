/* The CPU manager options of the default node: parsing them, and applying them to the topology
 * runtime/numa_host.c read. */
#include "daemon/numa_options.h"

#include <stdio.h>
#include <string.h>

int options_parse_numa(const char *flag, const char *value, struct numa_options *o)
{
    if (strcmp(flag, "--cpu-manager-policy") == 0) {
        if (strcmp(value, "none") != 0 && strcmp(value, "static") != 0) {
            fprintf(stderr, "jobserver: --cpu-manager-policy is none or static, not \"%s\"\n", value);
            return -1;
        }
        o->static_cpus = strcmp(value, "static") == 0;
        return 0;
    }
    if (strcmp(flag, "--topology-manager-policy") == 0) {
        if (topology_policy_parse(value, &o->policy) != 0) {
            fprintf(stderr,
                    "jobserver: --topology-manager-policy is none, best-effort, restricted or single-numa-node, "
                    "not \"%s\"\n",
                    value);
            return -1;
        }
        return 0;
    }
    if (cpu_bits_parse(value, &o->reserved) != 0) {
        fprintf(stderr, "jobserver: %s takes a CPU list such as 0-1,4 (CPUs below %d), not \"%s\"\n", flag,
                NUMA_CPUS_MAX, value);
        return -1;
    }
    o->reserved_given = true;
    return 0;
}

void numa_options_apply(const struct numa_options *o, struct numa_topology *t)
{
    t->static_cpus = o->static_cpus;
    t->policy = o->policy;
    memset(&t->reserved, 0, sizeof t->reserved);
    if (o->reserved_given) {
        t->reserved = o->reserved;
        return;
    }
    struct cpu_bits all;
    numa_all_cpus(t, &all);
    for (int c = 0; c < NUMA_CPUS_MAX && o->static_cpus; c++)
        if (cpu_bits_has(&all, c)) {
            cpu_bits_add(&t->reserved, c);
            break;
        }
}
