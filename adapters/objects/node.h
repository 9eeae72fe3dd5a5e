/* Nodes in and out: this machine as the default node, Kubernetes v1 Node objects from a nodes file
 * (several documents, or one v1 List) as virtual nodes, and a node rendered as a v1 Node. */
#ifndef CALDERA_NODE_ADAPTER_H
#define CALDERA_NODE_ADAPTER_H

#include <jansson.h>
#include <stddef.h>

#include "common/api_status.h"
#include "model/node.h"

/* This machine: hostname, the CPUs this process may use, memory (the smaller of MemTotal and this
 * process's cgroup limit), 110 pods, ephemeral-storage = the size of data_dir's file system. */
int node_from_host(struct node *out, const char *data_dir, char *err, size_t errlen);

/* Parses a nodes file. Extended resource names in allocatable are registered, so call this at
 * start-up only. On success *nodes is a new array of *count nodes. Errors name the document, the
 * field path and the line. */
int nodes_from_yaml(const char *data, size_t len, struct node **nodes, int *count, struct api_status *st);

json_t *node_render(const struct node *n);

#endif
