/* Volcano Queues in and out. A queue's stored form is its manifest (metadata + spec); state and
 * counts are derived again at start-up. */
#include "adapters/queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/render.h"
#include "common/clock.h"
#include "common/uuid.h"

struct queue *queue_new_default(int64_t now_ms)
{
    struct queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->name = strdup("default");
    uuid_v4(q->uid);
    q->created_ms = now_ms;
    q->weight = 1;
    q->reclaimable = true;
    q->state = QUEUE_OPEN;
    q->manifest = json_pack("{s:{s:s, s:s, s:o}, s:{s:i, s:b}}", "metadata", "name", q->name, "uid", q->uid,
                            "creationTimestamp", render_time(now_ms), "spec", "weight", 1, "reclaimable", 1);
    if (!q->name || !q->manifest) {
        queue_free(q);
        return NULL;
    }
    return q;
}

json_t *queue_render(const struct queue *q, const struct queue_counts *c)
{
    json_t *meta = json_deep_copy(json_object_get(q->manifest, "metadata"));
    char rv[24];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)q->resource_version);
    json_object_set_new(meta, "resourceVersion", json_string(rv));
    json_t *spec = json_deep_copy(json_object_get(q->manifest, "spec"));
    json_t *status = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:o}", "state", queue_state_name(q->state), "pending",
                               c->pending, "inqueue", c->inqueue, "running", c->running, "completed", c->completed,
                               "unknown", c->unknown, "allocated", render_resources(&q->allocated, false));
    return json_pack("{s:s, s:s, s:o, s:o, s:o}", "apiVersion", "scheduling.volcano.sh/v1beta1", "kind", "Queue",
                     "metadata", meta, "spec", spec, "status", status);
}

char *queue_to_store_json(const struct queue *q) { return json_dumps(q->manifest, JSON_COMPACT); }

struct queue *queue_from_store_json(const char *json)
{
    json_t *m = json_loads(json, 0, NULL);
    json_t *meta = json_object_get(m, "metadata"), *spec = json_object_get(m, "spec");
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *uid = json_string_value(json_object_get(meta, "uid"));
    const char *created = json_string_value(json_object_get(meta, "creationTimestamp"));
    struct queue *q = name ? calloc(1, sizeof *q) : NULL;
    if (!q) {
        json_decref(m);
        return NULL;
    }
    q->name = strdup(name);
    snprintf(q->uid, sizeof q->uid, "%s", uid ? uid : "");
    if (created)
        rfc3339_parse(created, &q->created_ms);
    json_t *w = json_object_get(spec, "weight");
    q->weight = json_is_integer(w) ? (int32_t)json_integer_value(w) : 1;
    json_t *r = json_object_get(spec, "reclaimable");
    q->reclaimable = !json_is_false(r);
    q->state = QUEUE_OPEN;
    q->manifest = m;
    return q;
}
