/* Giving freed memory back to the system: glibc keeps what a thread freed in that thread's arena,
 * so a server that once built a big answer or held a big job would keep its peak for ever. */
#ifndef CALDERA_MEMORY_H
#define CALDERA_MEMORY_H

#include <stddef.h>

/* After freeing something big (a job of many replicas, a long list's tree): returns the free pages
 * of every arena to the kernel (malloc_trim). Costs a walk of the arenas' free lists, so it is for
 * rare big frees only. Any thread. */
void memory_return(void);

#endif
