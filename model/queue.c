/* A Volcano Queue; see queue.h. Queue objects are built by adapters/objects/queue.c and owned by the
 * cluster once added. */
#include "model/queue.h"

#include <stdlib.h>

const char *queue_state_name(enum queue_state s)
{
    static const char *const names[] = {"Open", "Closing", "Closed"};
    return s <= QUEUE_CLOSED ? names[s] : "Unknown";
}

void queue_free(struct queue *q)
{
    if (!q)
        return;
    free(q->name);
    free(q->parent);
    json_decref(q->manifest);
    free(q);
}
