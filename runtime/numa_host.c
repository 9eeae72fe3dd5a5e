/* Reading this machine's NUMA cells: node<N>/cpulist and node<N>/meminfo under /sys/devices/system/node,
 * the sockets from cpu<N>/topology/physical_package_id, intersected with this process's CPU affinity. */
#include "runtime/numa_host.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"

static char *read_small(const char *root, const char *fmt, int n)
{
    char rel[256], path[512];
    snprintf(rel, sizeof rel, fmt, n);
    snprintf(path, sizeof path, "%s%s", root, rel);
    char *data = NULL;
    if (read_file(path, 1 << 16, &data, NULL) != 0)
        return NULL;
    return data;
}

static int socket_of(const char *root, const struct cpu_bits *cpus)
{
    for (int c = 0; c < NUMA_CPUS_MAX; c++)
        if (cpu_bits_has(cpus, c)) {
            char *s = read_small(root, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
            int v = s ? atoi(s) : -1;
            free(s);
            return v;
        }
    return -1;
}

/* "Node 0 MemTotal:       16318876 kB" */
static int64_t cell_memory(const char *root, int id)
{
    char *s = read_small(root, "/sys/devices/system/node/node%d/meminfo", id);
    const char *p = s ? strstr(s, "MemTotal:") : NULL;
    int64_t kib = p ? strtoll(p + 9, NULL, 10) : 0;
    free(s);
    return kib > 0 ? kib * 1024 : 0;
}

static void allowed_cpus(const char *root, struct cpu_bits *out)
{
    memset(out, 0, sizeof *out);
    cpu_set_t set;
    if (!root[0] && sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int c = 0; c < NUMA_CPUS_MAX && c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                cpu_bits_add(out, c);
        return;
    }
    char *s = read_small(root, "/sys/devices/system/cpu/online%.0d", 0); /* %.0d: prints nothing */
    if (!s || cpu_bits_parse(s, out) != 0)
        memset(out, 0xff, sizeof *out); /* unknown: every CPU the cells name */
    free(s);
}

static int cell_order(const void *a, const void *b)
{
    return ((const struct numa_cell *)a)->id - ((const struct numa_cell *)b)->id;
}

int host_numa(const char *root, struct numa_topology *out)
{
    memset(out, 0, sizeof *out);
    struct cpu_bits allowed;
    allowed_cpus(root, &allowed);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/sys/devices/system/node", root);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) && out->ncells < NUMA_CELLS_MAX) {
        int id;
        char tail;
        if (sscanf(e->d_name, "node%d%c", &id, &tail) != 1 || id < 0)
            continue;
        char *list = read_small(root, "/sys/devices/system/node/node%d/cpulist", id);
        struct numa_cell cell = {.id = id};
        int ok = list ? cpu_bits_parse(list, &cell.cpus) : -1;
        free(list);
        if (ok != 0)
            continue;
        struct cpu_bits outside = cell.cpus;
        cpu_bits_remove_all(&outside, &allowed);
        cpu_bits_remove_all(&cell.cpus, &outside);
        if (cpu_bits_empty(&cell.cpus)) /* memory-only nodes, or none of ours */
            continue;
        cell.memory = cell_memory(root, id);
        cell.socket = socket_of(root, &cell.cpus);
        out->cells[out->ncells++] = cell;
    }
    if (d)
        closedir(d);
    if (out->ncells == 0) { /* no NUMA in this kernel: one cell of every CPU */
        if (cpu_bits_empty(&allowed) || cpu_bits_count(&allowed) == NUMA_CPUS_MAX)
            return -1; /* no CPU list to go by */
        struct numa_cell cell = {.id = 0, .cpus = allowed, .socket = -1};
        cell.socket = socket_of(root, &cell.cpus);
        out->cells[out->ncells++] = cell;
    }
    qsort(out->cells, (size_t)out->ncells, sizeof out->cells[0], cell_order);
    int sockets[NUMA_CELLS_MAX], nsockets = 0;
    for (int i = 0; i < out->ncells; i++) {
        int s = out->cells[i].socket, j = 0;
        while (j < nsockets && sockets[j] != s)
            j++;
        if (j == nsockets)
            sockets[nsockets++] = s;
    }
    out->nsockets = nsockets;
    out->real = !root[0];
    return 0;
}
