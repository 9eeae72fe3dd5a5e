/* A node's NUMA topology (cells with their CPUs, memory, socket), its CPU manager state (exclusive CPUs
 * held, reserved ones) and kubelet's topology manager policies, as Volcano's numa-aware plugin sees them. */
#ifndef CALDERA_NUMA_H
#define CALDERA_NUMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/resource.h"

#define NUMA_CPUS_MAX 256 /* CPUs numbered beyond are never given exclusively */
#define NUMA_CELLS_MAX 16
#define CPU_LIST_MAX 1024 /* room for any cpulist of NUMA_CPUS_MAX CPUs */

/* A set of CPUs by number, as the kernel's cpulist "0-3,8" names them. */
struct cpu_bits {
    uint64_t w[NUMA_CPUS_MAX / 64];
};

/* Parses a cpulist ("0-3,8,10-11"; "" is empty). Returns 0, or -1 for a malformed list or a CPU >= NUMA_CPUS_MAX. */
int cpu_bits_parse(const char *list, struct cpu_bits *out);
/* Writes the cpulist of b ("" when empty) into buf. */
const char *cpu_bits_format(const struct cpu_bits *b, char *buf, size_t len);
int cpu_bits_count(const struct cpu_bits *b);
bool cpu_bits_has(const struct cpu_bits *b, int cpu);
void cpu_bits_add(struct cpu_bits *b, int cpu);
bool cpu_bits_empty(const struct cpu_bits *b);
/* a &= ~b, a |= b, a & b non-empty, a ⊆ b. */
void cpu_bits_remove_all(struct cpu_bits *a, const struct cpu_bits *b);
void cpu_bits_add_all(struct cpu_bits *a, const struct cpu_bits *b);
bool cpu_bits_intersect(const struct cpu_bits *a, const struct cpu_bits *b);
bool cpu_bits_subset(const struct cpu_bits *a, const struct cpu_bits *b);

/* kubelet's topology manager policies, which are also the values of volcano.sh/numa-topology-policy. */
enum topology_policy { TOPO_NONE, TOPO_BEST_EFFORT, TOPO_RESTRICTED, TOPO_SINGLE_NUMA_NODE };
/* Returns 0 and sets *out, or -1 for a name that is none of "none", "best-effort", "restricted",
 * "single-numa-node". */
int topology_policy_parse(const char *name, enum topology_policy *out);
const char *topology_policy_name(enum topology_policy p);

struct numa_cell {
    int id;     /* the kernel's node number */
    int socket; /* physical package of its first CPU, -1 when unknown */
    struct cpu_bits cpus;
    int64_t memory; /* bytes, 0 when unknown */
};

struct numa_topology {
    int ncells;
    struct numa_cell cells[NUMA_CELLS_MAX];
    int nsockets;
    bool static_cpus;            /* CPU manager policy static: whole-CPU Guaranteed tasks get exclusive CPUs */
    enum topology_policy policy; /* the node's topology manager policy */
    struct cpu_bits reserved;    /* never given exclusively (kubelet's reserved CPUs) */
    struct cpu_bits held;        /* given exclusively to replicas now */
    bool real;                   /* this machine's own CPUs: cpusets are written for its tasks */
};

/* All CPUs of the topology. */
void numa_all_cpus(const struct numa_topology *t, struct cpu_bits *out);
/* The CPUs shared tasks may use: all but those held exclusively. */
void numa_shared_cpus(const struct numa_topology *t, struct cpu_bits *out);
/* Per cell, how many CPUs may still be given exclusively (not reserved, not held). */
void numa_free_counts(const struct numa_topology *t, int free[NUMA_CELLS_MAX]);

/* How many whole CPUs a replica with these requests and limits gets exclusively under the static
 * policy: its CPU request when it is a whole number, its limits equal its requests for CPU and memory
 * (kubelet's Guaranteed class), else 0. */
int numa_exclusive_cpus(const struct resvec *request, const struct resvec *limit);

/* Which cells `want` exclusive CPUs come from given the free counts per cell, under policy p, as
 * kubelet's topology manager admits them: the fewest cells that have enough (one cell: the one with
 * the fewest free that fits; more: the ones with the most free first). none and best-effort always
 * admit; restricted admits when that many cells is the fewest the cells' whole CPUs would need;
 * single-numa-node when one cell suffices. Sets *cells (bit i: cells[i]) and returns how many cells,
 * or 0 when there are too few free CPUs or the policy refuses. */
int numa_fit(const struct numa_topology *t, const int free[NUMA_CELLS_MAX], int want, enum topology_policy p,
             unsigned *cells);
/* Takes `want` exclusive CPUs by numa_fit under the node's policy (lowest-numbered free CPUs of the
 * chosen cells), marks them held and sets *out. Returns 0, or -1 (nothing taken). */
int numa_take(struct numa_topology *t, int want, struct cpu_bits *out);
/* numa_take, but when one cell is enough and one of `near` (bit i: cells[i]; the cells of the
 * replica's GPUs) has the CPUs, from that cell: the topology manager's merge of CPU and device hints. */
int numa_take_near(struct numa_topology *t, int want, unsigned near, struct cpu_bits *out);
/* The cells (bit i: cells[i]) whose kernel node number is one of ids[0..n). */
unsigned numa_cells_of_nodes(const struct numa_topology *t, const int *ids, int n);
/* Holds exactly cpus (an adopted task's): 0, or -1 when one is held already or not the node's. */
int numa_hold(struct numa_topology *t, const struct cpu_bits *cpus);
void numa_give(struct numa_topology *t, const struct cpu_bits *cpus);
/* The memory nodes of the cells holding any of cpus, as a list ("0", "0-1") into buf. */
const char *numa_mems_of(const struct numa_topology *t, const struct cpu_bits *cpus, char *buf, size_t len);

#endif
