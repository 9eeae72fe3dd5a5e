/* Whether anyone follows objects live: the watch streams count themselves here and the core renders
 * the objects a change touched (for Kubernetes watch) only while someone does, or did lately, so a
 * server nobody watches pays nothing for it. Lock-free; any thread. */
#ifndef CALDERA_WATCH_DEMAND_H
#define CALDERA_WATCH_DEMAND_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* How long the core keeps rendering after the last watcher left: a client that reconnects within it
 * resumes from its resourceVersion with every change in between, exactly. */
#define WATCH_DEMAND_LINGER_MS 120000

struct watch_demand {
    _Atomic int watchers;         /* object watches streaming now */
    _Atomic int64_t last_left_ms; /* monotonic, when the count last dropped to zero */
};

static inline void watch_demand_join(struct watch_demand *d)
{
    atomic_fetch_add_explicit(&d->watchers, 1, memory_order_relaxed);
}

static inline void watch_demand_leave(struct watch_demand *d, int64_t now_mono_ms)
{
    if (atomic_fetch_sub_explicit(&d->watchers, 1, memory_order_relaxed) == 1)
        atomic_store_explicit(&d->last_left_ms, now_mono_ms, memory_order_relaxed);
}

/* true while a watch streams, and for WATCH_DEMAND_LINGER_MS after the last one left. */
static inline bool watch_demand_wanted(const struct watch_demand *d, int64_t now_mono_ms)
{
    if (!d)
        return false;
    if (atomic_load_explicit(&d->watchers, memory_order_relaxed) > 0)
        return true;
    int64_t left = atomic_load_explicit(&d->last_left_ms, memory_order_relaxed);
    return left > 0 && now_mono_ms - left < WATCH_DEMAND_LINGER_MS;
}

#endif
