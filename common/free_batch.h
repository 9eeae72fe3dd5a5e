/* Batched frees: a thread about to free a big tree of values (a document's or a job's last reference)
 * says so, and the allocator under Jansson (adapters/intake/arena.c) settles its counts once, at the end. */
#ifndef CALDERA_FREE_BATCH_H
#define CALDERA_FREE_BATCH_H

#include <stdbool.h>

/* How deep the calling thread is in begin/end pairs (read by the allocator on every free). */
extern _Thread_local int free_batch_depth;

/* Pairs nest, on any thread; the outermost end calls the settle hook on that thread. */
static inline void free_batch_begin(void) { free_batch_depth++; }
void free_batch_end(void);
/* Set once, before any thread frees (the allocator does it in a constructor). */
void free_batch_set_settle(void (*settle)(void));

#endif
