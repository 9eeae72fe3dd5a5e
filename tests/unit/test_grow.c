/* Unit tests for common/grow: GROW starts at its first size and doubles, leaves an array with room alone,
 * and refuses a size that would overflow without touching the array. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/grow.h"
#include "tests/lib/test.h"

static void test_zero_start(void)
{
    int *items = NULL;
    size_t cap = 0;
    CHECK_INT(GROW(items, cap, 1, 16), 0);
    REQUIRE(items != NULL);
    CHECK_INT(cap, 16);
    items[15] = 7;
    CHECK_INT(items[15], 7);
    free(items);
}

static void test_doubles(void)
{
    long *items = NULL;
    size_t cap = 0;
    for (size_t n = 0; n < 100; n++) {
        CHECK_INT(GROW(items, cap, n + 1, 4), 0);
        items[n] = (long)n;
    }
    CHECK_INT(cap, 128); /* 4, 8, ..., 128 */
    for (size_t n = 0; n < 100; n++)
        CHECK_INT(items[n], n);
    CHECK_INT(GROW(items, cap, 1000, 4), 0); /* several doublings at once */
    CHECK_INT(cap, 1024);
    CHECK_INT(items[99], 99);
    free(items);
}

static void test_room_left_alone(void)
{
    char *items = malloc(8);
    REQUIRE(items != NULL);
    char *before = items;
    size_t cap = 8;
    CHECK_INT(GROW(items, cap, 8, 64), 0);
    CHECK(items == before);
    CHECK_INT(cap, 8);
    CHECK_INT(GROW(items, cap, 0, 64), 0);
    CHECK_INT(cap, 8);
    free(items);
}

static void test_int_capacity(void)
{
    double *items = NULL;
    int cap = 0, n = 0;
    while (n < 65) { /* the first 64, then one doubling */
        REQUIRE(GROW(items, cap, (size_t)n + 1, 64) == 0);
        items[n++] = 1.5;
    }
    CHECK_INT(cap, 128);
    CHECK(items[64] == 1.5);
    free(items);
}

static void test_overflow_refused(void)
{
    int *items = NULL;
    size_t cap = 0;
    CHECK_INT(GROW(items, cap, SIZE_MAX / 2, 16), -1); /* the bytes would overflow */
    CHECK(items == NULL);
    CHECK_INT(cap, 0);
    CHECK_INT(GROW(items, cap, SIZE_MAX, 16), -1); /* the count would overflow on doubling */
    CHECK_INT(cap, 0);
    CHECK_INT(GROW(items, cap, 4, 4), 0);
    int *before = items;
    CHECK_INT(GROW(items, cap, SIZE_MAX / 2, 4), -1); /* a failure leaves the array as it was */
    CHECK(items == before);
    CHECK_INT(cap, 4);
    free(items);

    char *bytes = NULL;
    int icap = 0;
    CHECK_INT(GROW(bytes, icap, (size_t)INT_MAX + 1, 16), -1); /* an int capacity stops at INT_MAX */
    CHECK(bytes == NULL);
    CHECK_INT(icap, 0);
}

TEST_MAIN(TEST_CASE(test_zero_start), TEST_CASE(test_doubles), TEST_CASE(test_room_left_alone),
          TEST_CASE(test_int_capacity), TEST_CASE(test_overflow_refused))
