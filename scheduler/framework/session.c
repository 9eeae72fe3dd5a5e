/* What every part of a session shares (session.h): its snapshot's types, how many nodes a placement
 * looks at, and a queue's index. Its life is lifecycle.c; its accounting, hooks.c. */
#include "scheduler/framework/session.h"

#include <string.h>

#define DEFAULT_MIN_NODES_TO_FIND 100

int session_nodes_to_find(int nnodes, int min_nodes, int percentage)
{
    if (min_nodes <= 0)
        min_nodes = DEFAULT_MIN_NODES_TO_FIND;
    if (nnodes <= min_nodes || percentage >= 100)
        return nnodes;
    if (percentage <= 0) {
        percentage = 50 - nnodes / 125;
        if (percentage < 5)
            percentage = 5;
    }
    int n = (int)((int64_t)nnodes * percentage / 100);
    return n < min_nodes ? min_nodes : n;
}

int session_queue_index(const struct session *ssn, const char *name)
{
    for (int q = 0; q < ssn->nqueues; q++)
        if (strcmp(ssn->queues[q].queue->name, name) == 0)
            return q;
    return -1;
}
