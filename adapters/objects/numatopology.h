/* Volcano's Numatopology (nodeinfo.volcano.sh/v1alpha1) as a nodes file declares it for a virtual node,
 * and a node's topology shown on the rendered Node as caldera.io/ annotations. */
#ifndef CALDERA_NUMATOPOLOGY_H
#define CALDERA_NUMATOPOLOGY_H

#include <jansson.h>

#include "adapters/intake/fields.h"
#include "model/node.h"

#define NUMATOPOLOGY_KIND "Numatopology"

/* Reads one Numatopology: metadata.name (the node's), spec.policies {CPUManagerPolicy,
 * TopologyManagerPolicy}, spec.cpuDetail {"<cpu>": {numa, socket, core}}, and optionally
 * spec.numares.cpu.allocatable (a cpulist; the other CPUs are reserved). *out is allocated. Returns 0,
 * or -1 after a field error. */
int numatopology_parse(struct fields *f, json_t *obj, const char *path, char **node_name, struct numa_topology **out);

/* Adds caldera.io/cpu-manager-policy, caldera.io/topology-manager-policy, caldera.io/numa-topology (JSON:
 * sockets and each NUMA node's CPUs, memory and GPUs) and caldera.io/cpus-exclusive to annotations. */
void numatopology_render(const struct node *n, json_t *annotations);

#endif
