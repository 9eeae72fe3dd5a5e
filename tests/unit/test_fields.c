/* Unit tests for adapters/fields: the field paths every cause names, joined and cut at FIELD_PATH_MAX
 * exactly as snprintf would. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "adapters/fields.h"
#include "tests/lib/test.h"

static void paths_join_names_and_indexes(void)
{
    char p[FIELD_PATH_MAX];
    field_path(p, "spec", "tasks");
    CHECK_STR(p, "spec.tasks");
    field_path(p, "", "metadata");
    CHECK_STR(p, "metadata");
    field_path(p, NULL, "spec");
    CHECK_STR(p, "spec");
    field_path_index(p, "spec.tasks", 0);
    CHECK_STR(p, "spec.tasks[0]");
    field_path_index(p, "spec.tasks", 4999);
    CHECK_STR(p, "spec.tasks[4999]");
    field_path_index(p, "", 7);
    CHECK_STR(p, "[7]");
    field_path_index(p, "x", SIZE_MAX);
    char want[FIELD_PATH_MAX];
    snprintf(want, sizeof want, "x[%zu]", (size_t)SIZE_MAX);
    CHECK_STR(p, want);
}

/* Every length around the limit, for each part of the path. */
static void long_paths_are_cut_as_snprintf_cuts_them(void)
{
    char parent[FIELD_PATH_MAX + 40], key[FIELD_PATH_MAX + 40];
    for (size_t n = 0; n < sizeof parent; n++) {
        memset(parent, 'p', n);
        parent[n] = '\0';
        memset(key, 'k', 30);
        key[30] = '\0';
        char got[FIELD_PATH_MAX], want[FIELD_PATH_MAX];
        field_path(got, parent, key);
        if (n)
            snprintf(want, sizeof want, "%s.%s", parent, key);
        else
            snprintf(want, sizeof want, "%s", key);
        CHECK_STR(got, want);
        field_path(got, "spec", parent);
        snprintf(want, sizeof want, "spec.%s", parent);
        CHECK_STR(got, want);
        field_path_index(got, parent, 123456);
        snprintf(want, sizeof want, "%s[%zu]", parent, (size_t)123456);
        CHECK_STR(got, want);
    }
}

TEST_MAIN(TEST_CASE(paths_join_names_and_indexes), TEST_CASE(long_paths_are_cut_as_snprintf_cuts_them))
