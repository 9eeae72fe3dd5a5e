/* A node tasks can be placed on; see node.h. Nodes are built by adapters/objects/node.c from the
 * machine runtime/host.c reads or from a nodes file, and live as long as the server. */
#include "model/node.h"

#include <stdlib.h>
#include <string.h>

void node_clear(struct node *n)
{
    free(n->name);
    free(n->address);
    json_decref(n->labels);
    json_decref(n->taints);
    json_decref(n->manifest);
    gpu_set_clear(&n->gpus);
    free(n->numa);
    memset(n, 0, sizeof *n);
}
