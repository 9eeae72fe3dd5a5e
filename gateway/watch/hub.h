/* The hub: every committed change, in sequence order, for the streams that follow the server live
 * (Kubernetes watch over HTTP, the WebSocket gateway). The store writer publishes each batch it has
 * committed, so nothing reaches a stream before it is durable; a bounded ring keeps the newest items.
 * Items never change once published: readers hold references and read them without a lock. */
#ifndef CALDERA_HUB_H
#define CALDERA_HUB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/event_view.h"
#include "store/journal.h"

/* One committed journal entry: its event, and the objects a watch shows after it (see
 * store/journal.h: only rendered while someone watches objects). Strings are never NULL. */
struct hub_item {
    uint64_t seq;
    int64_t time_ms;
    const char *kind; /* of the object the event is about: "Job", "Pod", "Queue", "Audit"... */
    const char *ns;   /* "" for cluster-scoped objects */
    const char *name;
    const char *job_uid;   /* "" when no job */
    const char *job_name;  /* "" when no job */
    const char *from, *to; /* phases; "" when new / when gone */
    const char *reason, *message;
    const char *uid;                    /* the object's own uid ("" when it has none apart from its job's) */
    const struct watch_object *objects; /* a list (->next), may be NULL */
    bool rendered;                      /* false: the core did not render objects for it (nobody watched them) */
};

struct hub;

/* A hub keeping at most max_items items and about max_bytes of them (the newest always stays).
 * NULL when memory runs out. */
struct hub *hub_new(size_t max_items, size_t max_bytes);
/* After hub_close() and once nobody reads any more. Items still referenced stay valid until unref'd. */
void hub_free(struct hub *h);

/* Everything up to seq predates the hub (committed before it started): hub_read() says so for
 * readers asking from before it. Call before the first publish. */
void hub_set_floor(struct hub *h, uint64_t seq);
/* The store's commit listener (ctx is the hub): takes the batch's events and their watch objects. */
void hub_publish(void *ctx, struct journal_list *committed);
/* fn(ctx) runs on the publishing thread after each publish, holding only the hub's notify lock, to
 * wake readers that do not wait in hub_wait() (the WebSocket service thread). It must not block, nor
 * call hub_set_notify(). Once hub_set_notify() returns, the fn it replaced is neither running nor called. */
void hub_set_notify(struct hub *h, void (*fn)(void *ctx), void *ctx);
/* Wakes every waiter; from then on hub_wait() returns at once and hub_closed() is true. */
void hub_close(struct hub *h);
bool hub_closed(struct hub *h);

/* How many items the ring holds and what they cost it (bytes), for the metrics. */
void hub_stats(struct hub *h, size_t *items, size_t *bytes);
/* The newest sequence number published (the floor while nothing is). */
uint64_t hub_head(struct hub *h);
/* The highest sequence number no longer held (evicted, or before the hub started). */
uint64_t hub_floor(struct hub *h);

/* Up to max items with seq > after, oldest first, each referenced (drop with hub_item_unref).
 * Returns how many (0: nothing newer yet), or -1 when items after `after` are no longer held
 * (after < hub_floor()): the reader fell behind the ring, or asks for what came before the hub. */
int hub_read(struct hub *h, uint64_t after, const struct hub_item **out, int max);
/* Waits up to timeout_ms for an item with seq > after. Returns true when there is one. */
bool hub_wait(struct hub *h, uint64_t after, int timeout_ms);
void hub_item_unref(const struct hub_item *it);
/* The item's event as a view (its strings are the item's). */
struct event_view hub_item_view(const struct hub_item *it);

/* The item's event as one compact JSON object, made once on first use:
 *   {"seq":N,"time":"RFC 3339 with ms","kind","namespace","name","job","jobUid","from","to","reason","message"}
 * (job and jobUid "" when none). NULL when memory runs out. */
const char *hub_item_event_json(const struct hub_item *it, size_t *len);
/* A watch object's stream line, {"type":"ADDED|MODIFIED|DELETED","object":{...}} and a newline,
 * made at publish, when the object's tree is dropped (w->object is NULL from then on; w->labels
 * keeps its labels). */
const char *hub_object_line(const struct hub_item *it, const struct watch_object *w, size_t *len);

#endif
