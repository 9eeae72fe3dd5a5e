/* Volcano Queues (scheduling.volcano.sh/v1beta1) in and out: the built-in `default` queue, a queue
 * rendered with its status, and queues read back from the store. */
#ifndef CALDERA_QUEUE_ADAPTER_H
#define CALDERA_QUEUE_ADAPTER_H

#include <jansson.h>

#include "adapters/intake/intake.h"
#include "common/api_status.h"
#include "model/queue.h"

#define QUEUE_API_VERSION "scheduling.volcano.sh/v1beta1"

/* PodGroup counts by phase, as Queue.status reports them. */
struct queue_counts {
    int32_t pending, inqueue, running, completed, unknown;
};

/* Parses and validates a Queue document (scheduling.volcano.sh/v1beta1): 400 for another kind or
 * apiVersion, 422 with field causes for bad fields. The queue is Open; uid and times are the core's. */
int queue_from_doc(const struct intake_doc *doc, struct queue **out, struct api_status *st);

/* The `default` queue: weight 1, reclaimable, Open. */
struct queue *queue_new_default(int64_t now_ms);
json_t *queue_render(const struct queue *q, const struct queue_counts *counts);
/* What the store keeps for a queue (its manifest with uid and creation time). */
char *queue_to_store_json(const struct queue *q);
struct queue *queue_from_store_json(const char *json);

#endif
