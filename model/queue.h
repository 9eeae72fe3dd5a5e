/* A Volcano Queue (scheduling.volcano.sh/v1beta1): weight, capability, reclaimable, state.
 * Only `default` exists until queues can be created through the API. */
#ifndef CALDERA_QUEUE_H
#define CALDERA_QUEUE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/uuid.h"
#include "model/resource.h"

enum queue_state { QUEUE_OPEN, QUEUE_CLOSING, QUEUE_CLOSED };

struct queue {
    char *name;
    char uid[UUID_STR_LEN];
    int64_t created_ms;
    uint64_t resource_version;
    int32_t weight;   /* default 1 */
    bool reclaimable; /* default true */
    bool has_capability;
    struct resvec capability; /* only meaningful when has_capability */
    enum queue_state state;
    json_t *manifest;         /* metadata and spec as accepted (owned) */
    struct resvec allocated;  /* requests of its running replicas (derived) */
    struct resvec fair_share; /* its deserved share as the last cycle computed it, over every zone */

    /* Volcano's further fields. */
    bool has_guarantee;
    struct resvec guarantee; /* spec.guarantee.resource: reserved for it whatever the others want */
    bool has_deserved;
    struct resvec deserved; /* spec.deserved (capacity plugin); proportion computes its own */
    char *parent;           /* spec.parent: hierarchical queues; NULL at the top ("root") */
    int32_t priority;       /* spec.priority: queues of higher priority are served first */
    bool dequeue_fifo;      /* spec.dequeueStrategy fifo: a blocked head job blocks the queue */
};

const char *queue_state_name(enum queue_state s);
void queue_free(struct queue *q);

#endif
