/* NUMA topology and exclusive CPUs: cpulists, kubelet's topology manager admission by cells, and the
 * CPU manager's static choice of CPUs. Pure: the placement plugin and the controller share it. */
#include "model/numa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORDS (NUMA_CPUS_MAX / 64)

bool cpu_bits_has(const struct cpu_bits *b, int cpu)
{
    return cpu >= 0 && cpu < NUMA_CPUS_MAX && (b->w[cpu / 64] >> (cpu % 64) & 1);
}

void cpu_bits_add(struct cpu_bits *b, int cpu)
{
    if (cpu >= 0 && cpu < NUMA_CPUS_MAX)
        b->w[cpu / 64] |= 1ULL << (cpu % 64);
}

int cpu_bits_count(const struct cpu_bits *b)
{
    int n = 0;
    for (int i = 0; i < WORDS; i++)
        n += __builtin_popcountll(b->w[i]);
    return n;
}

bool cpu_bits_empty(const struct cpu_bits *b) { return cpu_bits_count(b) == 0; }

void cpu_bits_remove_all(struct cpu_bits *a, const struct cpu_bits *b)
{
    for (int i = 0; i < WORDS; i++)
        a->w[i] &= ~b->w[i];
}

void cpu_bits_add_all(struct cpu_bits *a, const struct cpu_bits *b)
{
    for (int i = 0; i < WORDS; i++)
        a->w[i] |= b->w[i];
}

bool cpu_bits_intersect(const struct cpu_bits *a, const struct cpu_bits *b)
{
    for (int i = 0; i < WORDS; i++)
        if (a->w[i] & b->w[i])
            return true;
    return false;
}

bool cpu_bits_subset(const struct cpu_bits *a, const struct cpu_bits *b)
{
    for (int i = 0; i < WORDS; i++)
        if (a->w[i] & ~b->w[i])
            return false;
    return true;
}

static int parse_cpu(const char **s, long *out)
{
    char *end;
    if (**s < '0' || **s > '9')
        return -1;
    *out = strtol(*s, &end, 10);
    if (*out < 0 || *out >= NUMA_CPUS_MAX)
        return -1;
    *s = end;
    return 0;
}

int cpu_bits_parse(const char *list, struct cpu_bits *out)
{
    memset(out, 0, sizeof *out);
    const char *s = list;
    while (*s == ' ' || *s == '\n')
        s++;
    while (*s && *s != '\n') {
        long lo, hi;
        if (parse_cpu(&s, &lo) != 0)
            return -1;
        hi = lo;
        if (*s == '-') {
            s++;
            if (parse_cpu(&s, &hi) != 0 || hi < lo)
                return -1;
        }
        for (long c = lo; c <= hi; c++)
            cpu_bits_add(out, (int)c);
        if (*s == ',')
            s++;
        else if (*s && *s != '\n')
            return -1;
    }
    return 0;
}

const char *cpu_bits_format(const struct cpu_bits *b, char *buf, size_t len)
{
    size_t at = 0;
    if (len)
        buf[0] = '\0';
    for (int c = 0; c < NUMA_CPUS_MAX && at < len; c++) {
        if (!cpu_bits_has(b, c))
            continue;
        int end = c;
        while (end + 1 < NUMA_CPUS_MAX && cpu_bits_has(b, end + 1))
            end++;
        int n = end == c ? snprintf(buf + at, len - at, "%s%d", at ? "," : "", c)
                         : snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", c, end);
        at += n > 0 ? (size_t)n : 0;
        c = end;
    }
    return buf;
}

static const char *const policy_names[] = {"none", "best-effort", "restricted", "single-numa-node"};

int topology_policy_parse(const char *name, enum topology_policy *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(name, policy_names[i]) == 0) {
            *out = (enum topology_policy)i;
            return 0;
        }
    return -1;
}

const char *topology_policy_name(enum topology_policy p)
{
    return p <= TOPO_SINGLE_NUMA_NODE ? policy_names[p] : "none";
}

void numa_all_cpus(const struct numa_topology *t, struct cpu_bits *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < t->ncells; i++)
        cpu_bits_add_all(out, &t->cells[i].cpus);
}

void numa_shared_cpus(const struct numa_topology *t, struct cpu_bits *out)
{
    numa_all_cpus(t, out);
    cpu_bits_remove_all(out, &t->held);
}

static void cell_free(const struct numa_topology *t, int i, struct cpu_bits *out)
{
    *out = t->cells[i].cpus;
    cpu_bits_remove_all(out, &t->reserved);
    cpu_bits_remove_all(out, &t->held);
}

void numa_free_counts(const struct numa_topology *t, int free[NUMA_CELLS_MAX])
{
    for (int i = 0; i < NUMA_CELLS_MAX; i++) {
        free[i] = 0;
        if (i < t->ncells) {
            struct cpu_bits b;
            cell_free(t, i, &b);
            free[i] = cpu_bits_count(&b);
        }
    }
}

int numa_exclusive_cpus(const struct resvec *request, const struct resvec *limit)
{
    int64_t cpu = request->v[RES_CPU];
    if (cpu <= 0 || cpu % 1000 != 0 || limit->v[RES_CPU] != cpu)
        return 0;
    if (request->v[RES_MEMORY] <= 0 || limit->v[RES_MEMORY] != request->v[RES_MEMORY])
        return 0;
    return (int)(cpu / 1000);
}

/* The fewest of counts[0..n) (largest first) that add up to want; n + 1 when all together fall short. */
static int fewest(const int *counts, int n, int want)
{
    int sorted[NUMA_CELLS_MAX];
    memcpy(sorted, counts, (size_t)n * sizeof *sorted);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && sorted[j] > sorted[j - 1]; j--) {
            int x = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = x;
        }
    int sum = 0;
    for (int k = 0; k < n; k++) {
        sum += sorted[k];
        if (sum >= want)
            return k + 1;
    }
    return n + 1;
}

int numa_fit(const struct numa_topology *t, const int free[NUMA_CELLS_MAX], int want, enum topology_policy p,
             unsigned *cells)
{
    *cells = 0;
    int n = t->ncells;
    if (want <= 0 || n <= 0)
        return 0;
    int k = fewest(free, n, want);
    if (k > n)
        return 0;
    if (p == TOPO_SINGLE_NUMA_NODE && k != 1)
        return 0;
    if (p == TOPO_RESTRICTED) {
        int capacity[NUMA_CELLS_MAX]; /* every CPU of the cell, reserved ones too, as kubelet's minAffinitySize */
        for (int i = 0; i < n; i++)
            capacity[i] = cpu_bits_count(&t->cells[i].cpus);
        if (k != fewest(capacity, n, want))
            return 0;
    }
    if (k == 1) { /* the cell with the fewest free that fits, keeping larger ones whole */
        int best = -1;
        for (int i = 0; i < n; i++)
            if (free[i] >= want && (best < 0 || free[i] < free[best]))
                best = i;
        *cells = 1u << best;
        return 1;
    }
    int left = want;
    for (int taken = 0; taken < k; taken++) { /* the most free first */
        int best = -1;
        for (int i = 0; i < n; i++)
            if (!(*cells & (1u << i)) && (best < 0 || free[i] > free[best]))
                best = i;
        *cells |= 1u << best;
        left -= free[best];
    }
    return left <= 0 ? k : 0;
}

int numa_take(struct numa_topology *t, int want, struct cpu_bits *out) { return numa_take_near(t, want, 0, out); }

unsigned numa_cells_of_nodes(const struct numa_topology *t, const int *ids, int n)
{
    unsigned cells = 0;
    for (int i = 0; i < t->ncells; i++)
        for (int j = 0; j < n; j++)
            if (t->cells[i].id == ids[j])
                cells |= 1u << i;
    return cells;
}

int numa_take_near(struct numa_topology *t, int want, unsigned near, struct cpu_bits *out)
{
    memset(out, 0, sizeof *out);
    int free[NUMA_CELLS_MAX];
    numa_free_counts(t, free);
    unsigned cells;
    int k = numa_fit(t, free, want, t->policy, &cells);
    if (k == 0)
        return -1;
    int best = -1;
    for (int i = 0; k == 1 && i < t->ncells; i++)
        if ((near & (1u << i)) && free[i] >= want && (best < 0 || free[i] < free[best]))
            best = i;
    if (best >= 0)
        cells = 1u << best;
    int left = want;
    for (int i = 0; i < t->ncells && left > 0; i++) {
        if (!(cells & (1u << i)))
            continue;
        struct cpu_bits b;
        cell_free(t, i, &b);
        for (int c = 0; c < NUMA_CPUS_MAX && left > 0; c++)
            if (cpu_bits_has(&b, c)) {
                cpu_bits_add(out, c);
                left--;
            }
    }
    cpu_bits_add_all(&t->held, out);
    return 0;
}

int numa_hold(struct numa_topology *t, const struct cpu_bits *cpus)
{
    struct cpu_bits all;
    numa_all_cpus(t, &all);
    if (cpu_bits_intersect(&t->held, cpus) || !cpu_bits_subset(cpus, &all))
        return -1;
    cpu_bits_add_all(&t->held, cpus);
    return 0;
}

void numa_give(struct numa_topology *t, const struct cpu_bits *cpus) { cpu_bits_remove_all(&t->held, cpus); }

const char *numa_mems_of(const struct numa_topology *t, const struct cpu_bits *cpus, char *buf, size_t len)
{
    struct cpu_bits mems = {0};
    for (int i = 0; i < t->ncells; i++)
        if (cpu_bits_intersect(&t->cells[i].cpus, cpus))
            cpu_bits_add(&mems, t->cells[i].id);
    return cpu_bits_format(&mems, buf, len);
}
