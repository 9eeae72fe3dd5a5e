/* Freeing big things off the caller's thread: a helper thread drops what is handed to it (a big
 * document's tree, a big job), so the walk over their parts is not on the core's or a request's clock. */
#ifndef CALDERA_FREE_LATER_H
#define CALDERA_FREE_LATER_H

#include <jansson.h>
#include <stdbool.h>

/* Runs drop(thing) on the helper thread, inside a batch (common/free_batch.h). Returns false, doing
 * nothing, when no thread could be started or memory runs out: the caller drops it itself. */
bool free_later(void (*drop)(void *thing), void *thing);
/* Drops the caller's reference on v (NULL is fine). When that reference is v's last and v is big
 * (the allocator's filter says so: a value of a big body's arena), the helper thread drops it, in a
 * batch (common/free_batch.h); otherwise, or inside the caller's own batch, or when no thread could
 * be started, it is dropped here and now. Any thread may call it. */
void json_decref_later(json_t *v);
/* Waits until everything handed over before the call has been dropped (tests, shutdown). */
void free_later_flush(void);
/* Set once, before any thread frees (the allocator does it in a constructor): which values are worth
 * a hand-over. */
void free_later_set_filter(bool (*big)(const json_t *v));

#endif
