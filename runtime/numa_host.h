/* This machine's NUMA topology as lscpu would show it: /sys/devices/system/node (each node's CPUs and
 * memory) and each CPU's physical package, limited to the CPUs this process may use. */
#ifndef CALDERA_RUNTIME_NUMA_HOST_H
#define CALDERA_RUNTIME_NUMA_HOST_H

#include "model/numa.h"

/* Reads the topology below root ("" for this machine; tests give a copy of /sys). A machine without
 * /sys/devices/system/node is one cell of all its CPUs. Returns 0, or -1 when no CPU could be read. */
int host_numa(const char *root, struct numa_topology *out);

#endif
