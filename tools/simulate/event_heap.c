/* A binary min-heap of simulator events ordered by (time, kind, push order): a total order, so the
 * same trace always replays in the same sequence. */
#include "tools/simulate/event_heap.h"

#include <stdlib.h>

#include "common/grow.h"

static bool before(const struct sim_event *a, const struct sim_event *b)
{
    if (a->time_ms != b->time_ms)
        return a->time_ms < b->time_ms;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    return a->seq < b->seq;
}

static void swap(struct sim_event *a, struct sim_event *b)
{
    struct sim_event t = *a;
    *a = *b;
    *b = t;
}

int event_heap_push(struct event_heap *h, int64_t time_ms, enum sim_event_kind kind, int32_t ref, uint32_t gen)
{
    if (GROW(h->items, h->cap, h->count + 1, 64) != 0)
        return -1;
    size_t i = h->count++;
    h->items[i] = (struct sim_event){time_ms, kind, h->pushed++, ref, gen};
    while (i > 0 && before(&h->items[i], &h->items[(i - 1) / 2])) {
        swap(&h->items[i], &h->items[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    return 0;
}

const struct sim_event *event_heap_peek(const struct event_heap *h) { return h->count ? &h->items[0] : NULL; }

bool event_heap_pop(struct event_heap *h, struct sim_event *out)
{
    if (h->count == 0)
        return false;
    *out = h->items[0];
    h->items[0] = h->items[--h->count];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->count && before(&h->items[l], &h->items[m]))
            m = l;
        if (r < h->count && before(&h->items[r], &h->items[m]))
            m = r;
        if (m == i)
            break;
        swap(&h->items[i], &h->items[m]);
        i = m;
    }
    return true;
}

void event_heap_free(struct event_heap *h)
{
    free(h->items);
    *h = (struct event_heap){0};
}
