/* A node tasks can be placed on: a Kubernetes v1 Node's name, labels, taints and allocatable
 * resources. Caldera's nodes are this machine, or virtual nodes declared in a nodes file. */
#ifndef CALDERA_NODE_H
#define CALDERA_NODE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/gpu.h"
#include "model/numa.h"
#include "model/resource.h"

struct node {
    char *name;
    char *address;      /* where its tasks are reached: 127.0.0.1 for every node of this machine */
    json_t *labels;     /* object of label -> value (owned) */
    json_t *taints;     /* array of {key, value, effect} (owned) */
    json_t *manifest;   /* the Node as declared: metadata and spec (owned), for rendering */
    bool unschedulable; /* spec.unschedulable */
    struct resvec capacity;
    struct resvec allocatable;
    struct resvec used;         /* requests of the replicas bound to it */
    struct gpu_set gpus;        /* its GPU devices (as many as allocatable nvidia.com/gpu) and which are held */
    struct numa_topology *numa; /* its NUMA cells and CPU manager state (owned), NULL when not known */
    int64_t created_ms;
    bool remote; /* an engine's node (a backend's), known from its pods: in no zone, never placed on */
};

void node_clear(struct node *n);

/* The machine Caldera runs on, as runtime/host.c reads it. Every node stands on it: the default
 * node is made of it, and virtual nodes, whose tasks run here too, carry its arch label. */
struct machine {
    char name[256];            /* host name; "localhost" when unreadable */
    char arch[65];             /* as Kubernetes spells it: amd64, arm64, else uname's machine */
    int cpus;                  /* the CPUs this process may use */
    int64_t memory;            /* bytes: the smaller of MemTotal and this process's cgroup limit */
    int64_t storage;           /* bytes: the size of the data directory's file system, 0 when unknown */
    struct gpu_set gpus;       /* the GPUs runtime/gpu/ found (owned), none when it found none */
    char gpu_product[128];     /* their model ("NVIDIA H100 80GB HBM3"), "" when unknown */
    struct numa_topology numa; /* its NUMA cells as /sys/devices/system/node says (ncells 0: unknown) */
};

#endif
