/* Resource vectors (cpu, memory, pods, nvidia.com/gpu, ephemeral-storage and extended resources)
 * and the process-wide table of resource names, fixed once nodes are loaded at start-up. */
#ifndef CALDERA_RESOURCE_H
#define CALDERA_RESOURCE_H

#include <stdbool.h>
#include <stdint.h>

#define RES_MAX 16
#define RES_NAME_MAX 64

enum {
    RES_CPU = 0,       /* millicores */
    RES_MEMORY,        /* bytes */
    RES_PODS,          /* count */
    RES_GPU,           /* nvidia.com/gpu, count */
    RES_EPHEMERAL,     /* ephemeral-storage, bytes */
    RES_FIRST_EXTENDED /* names registered from the nodes file */
};

struct resvec {
    int64_t v[RES_MAX];
};

/* The table holds the built-in names; resource_register() adds extended ones. Register only at
 * start-up, before other threads run: afterwards the table is read-only and lock-free. */
int resource_count(void);
const char *resource_name(int index);
/* Index of a name, or -1 when unknown. */
int resource_index(const char *name);
/* Adds (or finds) a name; returns its index, or -1 when the table is full or the name is invalid. */
int resource_register(const char *name);

/* Parses a quantity for resource `index` into its unit (millicores for cpu, whole units otherwise).
 * Returns 0, or -1 with a reason in why (e.g. "must be a whole number", "must not be negative"). */
int resource_parse(int index, const char *text, int64_t *out, const char **why);
/* Formats a value of resource `index` as Kubernetes prints it ("500m", "4Gi", "2"). */
void resource_format(int index, int64_t value, char *buf, int len);

void resvec_add(struct resvec *a, const struct resvec *b);
void resvec_sub(struct resvec *a, const struct resvec *b);
/* True when every dimension of need is <= have. */
bool resvec_fits(const struct resvec *need, const struct resvec *have);
/* The first dimension where need > have, or -1. */
int resvec_first_short(const struct resvec *need, const struct resvec *have);
bool resvec_is_zero(const struct resvec *a);
/* True when only the pods dimension is set: a BestEffort pod. */
bool resvec_best_effort(const struct resvec *a);

#endif
