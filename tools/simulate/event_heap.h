/* The simulator's virtual clock: a min-heap of timed events, taken in time order and, at equal
 * times, by kind (the order of enum sim_event_kind), then in the order they were pushed. */
#ifndef CALDERA_SIMULATE_EVENT_HEAP_H
#define CALDERA_SIMULATE_EVENT_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At one instant: processes end (freeing resources) before priority classes and quotas, queues and
 * then jobs arrive; the periodic scheduling tick comes after them, and a sample of the queues last,
 * once the instant has settled. */
enum sim_event_kind {
    SIM_EVENT_EXIT,           /* a virtual process ends: ref = process slot, gen = its generation */
    SIM_EVENT_OBJECT_ARRIVAL, /* ref = trace object index (PriorityClass, ResourceQuota) */
    SIM_EVENT_QUEUE_ARRIVAL,  /* ref = trace queue index */
    SIM_EVENT_JOB_ARRIVAL,    /* ref = trace job index */
    SIM_EVENT_TIMER,          /* the controller's earliest timer (a delayed action, a restart) is due */
    SIM_EVENT_CYCLE,          /* the scheduling period's tick */
    SIM_EVENT_SAMPLE,         /* record every queue's share */
};

struct sim_event {
    int64_t time_ms; /* virtual time since the start of the trace */
    enum sim_event_kind kind;
    uint64_t seq; /* push order */
    int32_t ref;
    uint32_t gen;
};

struct event_heap {
    struct sim_event *items;
    size_t count, cap;
    uint64_t pushed;
};

/* Returns 0, or -1 when memory runs out (the heap is unchanged). */
int event_heap_push(struct event_heap *h, int64_t time_ms, enum sim_event_kind kind, int32_t ref, uint32_t gen);
/* The next event without taking it, or NULL when the heap is empty. */
const struct sim_event *event_heap_peek(const struct event_heap *h);
/* Takes the next event into *out; false when the heap is empty. */
bool event_heap_pop(struct event_heap *h, struct sim_event *out);
void event_heap_free(struct event_heap *h);

#endif
