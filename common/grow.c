/* The growable-array step (GROW): the room doubles from a first size until it holds what is needed, the
 * sizes checked for overflow; nothing changes when memory runs out. */
#include "common/grow.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int grow_to(void *itemsp, size_t cap, size_t need, size_t item_size, size_t first, size_t max_cap, size_t *out)
{
    if (need <= cap) {
        *out = cap;
        return 0;
    }
    size_t n = cap ? cap : first;
    if (n == 0)
        n = 1;
    while (n < need) {
        if (n > max_cap / 2)
            return -1;
        n *= 2;
    }
    if (n > max_cap || item_size == 0 || n > SIZE_MAX / item_size)
        return -1;
    void *items;
    memcpy(&items, itemsp, sizeof items);
    void *grown = realloc(items, n * item_size);
    if (!grown)
        return -1;
    memcpy(itemsp, &grown, sizeof grown);
    *out = n;
    return 0;
}

int grow_array(void *itemsp, size_t *cap, size_t need, size_t item_size, size_t first)
{
    return grow_to(itemsp, *cap, need, item_size, first, SIZE_MAX, cap);
}

int grow_array_int(void *itemsp, int *cap, size_t need, size_t item_size, size_t first)
{
    size_t n;
    if (grow_to(itemsp, *cap > 0 ? (size_t)*cap : 0, need, item_size, first, INT_MAX, &n) != 0)
        return -1;
    *cap = (int)n;
    return 0;
}
