/* Giving freed memory back to the system: glibc keeps what a thread freed in that thread's arena,
 * so a server that once built a big answer or held a big job would keep its peak for ever. */
#ifndef CALDERA_MEMORY_H
#define CALDERA_MEMORY_H

/* Something big was freed (a job of many replicas, a long list's tree): asks for a
 * memory_return_due() to give it back once a second has passed without another such request, so a
 * client paging through 100,000 pods pays one trim, not one a page. Any thread. */
void memory_return_soon(void);
/* Called regularly by one thread (the core, every loop iteration: at least once a scheduling
 * period): when asked and due, returns the free pages of every arena to the kernel (malloc_trim,
 * which costs a walk of the arenas' free lists). */
void memory_return_due(void);

#endif
