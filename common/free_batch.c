/* Batched frees: the per-thread depth of begin/end pairs, and the allocator's hook that settles
 * what it counted when the outermost pair ends. */
#include "common/free_batch.h"

#include <stddef.h>

_Thread_local int free_batch_depth;
static void (*settle_hook)(void);

void free_batch_end(void)
{
    if (--free_batch_depth == 0 && settle_hook)
        settle_hook();
}

void free_batch_set_settle(void (*settle)(void)) { settle_hook = settle; }
