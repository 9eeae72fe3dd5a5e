/* memory_return_soon() and memory_return_due(): one malloc_trim a moment after the last big free,
 * where the C library has it (glibc; musl gives freed memory back by itself). */
#include "common/memory.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h> /* defines __GLIBC__ (through features.h) where glibc is the C library */

#include "common/clock.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#define SETTLE_MS 1000

static _Atomic int64_t return_after_ms; /* monotonic; 0: nothing asked */

void memory_return_soon(void)
{
    atomic_store_explicit(&return_after_ms, clock_mono_ms() + SETTLE_MS, memory_order_relaxed);
}

void memory_return_due(void)
{
    int64_t due = atomic_load_explicit(&return_after_ms, memory_order_relaxed);
    if (due == 0 || clock_mono_ms() < due)
        return;
    if (!atomic_compare_exchange_strong(&return_after_ms, &due, 0))
        return; /* asked again meanwhile: wait for that one */
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}
