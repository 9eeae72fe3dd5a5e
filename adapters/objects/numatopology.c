/* Numatopology documents of the nodes file (Volcano's CRD, the fields the numa-aware plugin reads) and
 * the topology annotations of a rendered Node. */
#include "adapters/objects/numatopology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cell_index(struct numa_topology *t, int id)
{
    for (int i = 0; i < t->ncells; i++)
        if (t->cells[i].id == id)
            return i;
    if (t->ncells == NUMA_CELLS_MAX)
        return -1;
    t->cells[t->ncells] = (struct numa_cell){.id = id, .socket = -1};
    return t->ncells++;
}

static bool parse_policies(struct fields *f, json_t *spec, const char *path, struct numa_topology *t)
{
    json_t *pol = NULL;
    char p[FIELD_PATH_MAX];
    if (!field_object_in(f, spec, "policies", path, false, &pol))
        return false;
    const char *cpu = json_string_value(json_object_get(pol, "CPUManagerPolicy"));
    const char *topo = json_string_value(json_object_get(pol, "TopologyManagerPolicy"));
    field_path(p, path, "policies");
    if (cpu && strcmp(cpu, "static") != 0 && strcmp(cpu, "none") != 0) {
        char q[FIELD_PATH_MAX];
        field_path(q, p, "CPUManagerPolicy");
        field_error(f, pol, "CPUManagerPolicy", q, "FieldValueNotSupported",
                    "Unsupported value: \"%.32s\": supported values: \"none\", \"static\"", cpu);
        return false;
    }
    t->static_cpus = cpu && strcmp(cpu, "static") == 0;
    if (topo && topology_policy_parse(topo, &t->policy) != 0) {
        char q[FIELD_PATH_MAX];
        field_path(q, p, "TopologyManagerPolicy");
        field_error(f, pol, "TopologyManagerPolicy", q, "FieldValueNotSupported",
                    "Unsupported value: \"%.32s\": supported values: \"none\", \"best-effort\", \"restricted\", "
                    "\"single-numa-node\"",
                    topo);
        return false;
    }
    return true;
}

static bool parse_cpu_detail(struct fields *f, json_t *spec, const char *path, struct numa_topology *t)
{
    json_t *detail = NULL;
    char p[FIELD_PATH_MAX];
    if (!field_object_in(f, spec, "cpuDetail", path, true, &detail))
        return false;
    field_path(p, path, "cpuDetail");
    const char *key;
    json_t *cpu;
    json_object_foreach(detail, key, cpu)
    {
        char *end;
        long id = strtol(key, &end, 10);
        json_t *numa = json_object_get(cpu, "numa"), *socket = json_object_get(cpu, "socket");
        int cell;
        if (*end || end == key || id < 0 || id >= NUMA_CPUS_MAX || !json_is_integer(numa) ||
            json_integer_value(numa) < 0 || json_integer_value(numa) >= NUMA_CPUS_MAX ||
            (cell = cell_index(t, (int)json_integer_value(numa))) < 0) {
            char q[FIELD_PATH_MAX];
            snprintf(q, sizeof q, "%s[%s]", p, key);
            field_error(f, detail, key, q, "FieldValueInvalid",
                        "Invalid value: a CPU number below %d with its numa node number (at most %d nodes)",
                        NUMA_CPUS_MAX, NUMA_CELLS_MAX);
            return false;
        }
        cpu_bits_add(&t->cells[cell].cpus, (int)id);
        if (json_is_integer(socket) && t->cells[cell].socket < 0)
            t->cells[cell].socket = (int)json_integer_value(socket);
    }
    return true;
}

static int cell_order(const void *a, const void *b)
{
    return ((const struct numa_cell *)a)->id - ((const struct numa_cell *)b)->id;
}

int numatopology_parse(struct fields *f, json_t *obj, const char *path, char **node_name, struct numa_topology **out)
{
    json_t *meta = NULL, *spec = NULL;
    const char *name = NULL;
    char p[FIELD_PATH_MAX];
    *out = NULL;
    *node_name = NULL;
    if (!field_object_in(f, obj, "metadata", path, true, &meta))
        return -1;
    field_path(p, path, "metadata");
    if (!field_string_in(f, meta, "name", p, true, &name))
        return -1;
    struct numa_topology *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    field_path(p, path, "spec");
    bool ok = field_object_in(f, obj, "spec", path, true, &spec) && parse_policies(f, spec, p, t) &&
              parse_cpu_detail(f, spec, p, t);
    const char *alloc = ok ? json_string_value(json_object_get(json_object_get(json_object_get(spec, "numares"), "cpu"),
                                                               "allocatable"))
                           : NULL;
    struct cpu_bits allocatable;
    if (alloc && cpu_bits_parse(alloc, &allocatable) != 0) {
        char q[FIELD_PATH_MAX];
        field_path(q, p, "numares.cpu.allocatable");
        field_error(f, spec, "numares", q, "FieldValueInvalid", "Invalid value: \"%.64s\": a CPU list such as 0-7",
                    alloc);
        ok = false;
    } else if (alloc) {
        numa_all_cpus(t, &t->reserved);
        cpu_bits_remove_all(&t->reserved, &allocatable);
    }
    if (!ok) {
        free(t);
        return -1;
    }
    qsort(t->cells, (size_t)t->ncells, sizeof t->cells[0], cell_order);
    int sockets[NUMA_CELLS_MAX], nsockets = 0;
    for (int i = 0; i < t->ncells; i++) {
        int j = 0;
        while (j < nsockets && sockets[j] != t->cells[i].socket)
            j++;
        if (j == nsockets)
            sockets[nsockets++] = t->cells[i].socket;
    }
    t->nsockets = nsockets;
    *node_name = strdup(name);
    *out = t;
    return 0;
}

void numatopology_render(const struct node *n, json_t *annotations)
{
    const struct numa_topology *t = n->numa;
    if (!t || !annotations)
        return;
    char list[CPU_LIST_MAX];
    json_t *cells = json_array();
    for (int i = 0; i < t->ncells; i++) {
        const struct numa_cell *c = &t->cells[i];
        json_t *gpus = json_array();
        for (int g = 0; g < n->gpus.count; g++)
            if (n->gpus.devices[g].numa == c->id)
                json_array_append_new(gpus, json_integer(n->gpus.devices[g].index));
        json_array_append_new(cells, json_pack("{s:i, s:i, s:s, s:I, s:o}", "id", c->id, "socket", c->socket, "cpus",
                                               cpu_bits_format(&c->cpus, list, sizeof list), "memory",
                                               (json_int_t)c->memory, "gpus", gpus));
    }
    json_t *topo = json_pack("{s:i, s:o}", "sockets", t->nsockets, "numaNodes", cells);
    char *text = topo ? json_dumps(topo, JSON_COMPACT) : NULL;
    if (text)
        json_object_set_new(annotations, "caldera.io/numa-topology", json_string(text));
    free(text);
    json_decref(topo);
    json_object_set_new(annotations, "caldera.io/cpu-manager-policy", json_string(t->static_cpus ? "static" : "none"));
    json_object_set_new(annotations, "caldera.io/topology-manager-policy",
                        json_string(topology_policy_name(t->policy)));
    if (t->static_cpus) {
        json_object_set_new(annotations, "caldera.io/cpus-exclusive",
                            json_string(cpu_bits_format(&t->held, list, sizeof list)));
        json_object_set_new(annotations, "caldera.io/cpus-reserved",
                            json_string(cpu_bits_format(&t->reserved, list, sizeof list)));
    }
}
