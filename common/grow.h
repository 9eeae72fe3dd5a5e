/* One growable-array step for the arrays that double as they fill: GROW(items, cap, need, first) makes room
 * for need items, starting at first and doubling, with the sizes checked for overflow. */
#ifndef CALDERA_COMMON_GROW_H
#define CALDERA_COMMON_GROW_H

#include <stddef.h>

/* Makes the array whose pointer is at itemsp (room for *cap items of item_size bytes) hold at least need
 * items: nothing when it already does, else the room starts at first (or *cap when not 0) and doubles
 * until it is enough. 0 when there is room; -1 when memory runs out or the size would overflow, and then
 * the array and *cap are as they were. */
int grow_array(void *itemsp, size_t *cap, size_t need, size_t item_size, size_t first);

/* The same for a capacity kept in an int: the room never passes INT_MAX. */
int grow_array_int(void *itemsp, int *cap, size_t need, size_t item_size, size_t first);

/* GROW(items, cap, need, first): items is an lvalue pointer to the array, cap its capacity (size_t or int). */
#define GROW(items, cap, need, first) \
    _Generic(&(cap), int * : grow_array_int, size_t * : grow_array)(&(items), &(cap), (need), sizeof *(items), (first))

#endif
