/* memory_return(): malloc_trim where the C library has it (glibc), nothing elsewhere (musl returns
 * freed memory by itself). */
#include "common/memory.h"

#include <stdlib.h> /* defines __GLIBC__ (through features.h) where glibc is the C library */

#ifdef __GLIBC__
#include <malloc.h>
#endif

void memory_return(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}
