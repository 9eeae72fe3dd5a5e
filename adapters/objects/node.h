/* Nodes in and out: this machine as the default node, Kubernetes v1 Node objects from a nodes file
 * (several documents, or one v1 List) as virtual nodes, and a node rendered as a v1 Node (its
 * nodeInfo: this machine's identity, read once by common/system_info). */
#ifndef CALDERA_NODE_ADAPTER_H
#define CALDERA_NODE_ADAPTER_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/api_status.h"
#include "model/node.h"

/* The default node: the machine (as runtime/host.c reads it) with its CPUs, memory, 110 pods,
 * ephemeral-storage = the size of the data directory's file system and its GPUs (nvidia.com/gpu =
 * their count, their devices, GPU feature discovery's nvidia.com/gpu.product, .memory and .count
 * labels), created at now_ms. */
void node_from_machine(struct node *out, const struct machine *m, int64_t now_ms);

/* Parses a nodes file. Extended resource names in allocatable are registered, so call this at
 * start-up only. Every node's kubernetes.io/arch label is arch (this machine's, where their tasks
 * run) unless declared; they are created at now_ms. A node's GPU devices are its
 * metadata.annotations["caldera.io/gpus"], "INDEX[:UUID[:NUMA[:MEMORY_MIB]]],..." (its nvidia.com/gpu
 * is then their count), else devices 0..N-1 of a bare nvidia.com/gpu: N; at most 64. On success
 * *nodes is a new array of *count nodes. Errors name the document, the field path and the line. */
int nodes_from_yaml(const char *data, size_t len, const char *arch, int64_t now_ms, struct node **nodes, int *count,
                    struct api_status *st);

/* A v1 Node, its nodeInfo with every field kubelet fills (this machine's kernel, OS image, machine
 * and boot ids; kubeletVersion KUBE_GIT_VERSION); one with GPU devices carries them in the caldera.io/gpus annotation and the indexes of
 * those replicas hold in caldera.io/gpus-allocated. */
json_t *node_render(const struct node *n);

#endif
