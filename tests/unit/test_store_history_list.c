/* Unit tests of JobHistoryList at the store: pages walk every job once even when many share a
 * creation time, filters combine with pages, and tokens that are not the server's are refused. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "store/history.h"
#include "store/store.h"
#include "tests/lib/test.h"
#include "tests/lib/tmpdb.h"

#define NJOBS 25

/* NJOBS jobs in ns "a" (every third Failed, the rest Completed), created in 5 groups of equal
 * creation time; two more in ns "b". */
static bool build(const struct tmp_db *t)
{
    sqlite3 *db = tmp_db_open_schema(t);
    bool ok = db != NULL;
    for (int i = 0; ok && i < NJOBS + 2; i++) {
        char *sql = sqlite3_mprintf(
            "INSERT INTO jobs(uid, namespace, name, created_ms, spec_json, status_json,"
            " resource_version, deleted_ms) VALUES ('uid-%02d', '%s', 'job-%02d', %d, '{}',"
            " '{\"state\":{\"phase\":\"%s\"}}', 1, NULL)",
            i, i < NJOBS ? "a" : "b", i, 1000 + (i / 5) * 10, i % 3 == 0 ? "Failed" : "Completed");
        ok = sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
        sqlite3_free(sql);
    }
    sqlite3_close(db);
    return ok;
}

/* Walks every page of q with page size limit; counts each job seen into seen[]. Returns pages. */
/* Declares t (a new database, built), r (a reader on it) and st (the reader's status), REQUIRing
 * each step. */
#define OPEN_BUILT_READER(t, r, st) \
    struct tmp_db t;                \
    REQUIRE(tmp_db_make(&t));       \
    REQUIRE(build(&t));             \
    struct store_reader *r;         \
    struct api_status st = {0};     \
    REQUIRE(store_reader_open(t.path, &r, &st) == 0)

static int walk(struct store_reader *r, struct store_history_query q, long limit, int *seen)
{
    char token[512] = "";
    int pages = 0;
    q.limit = limit;
    do {
        q.continue_token = token;
        json_t *list;
        struct api_status st = {0};
        if (store_job_history_list(r, &q, &list, &st) != 0) {
            test_fail(__FILE__, __LINE__, "page %d: %s", pages, st.message);
            return pages;
        }
        size_t i;
        json_t *item;
        json_array_foreach(json_object_get(list, "items"), i, item)
        {
            const char *name = json_string_value(json_object_get(json_object_get(item, "metadata"), "name"));
            int n = -1;
            if (name && sscanf(name, "job-%d", &n) == 1 && n >= 0 && n < NJOBS + 2)
                seen[n]++;
        }
        CHECK((long)json_array_size(json_object_get(list, "items")) <= limit);
        const char *next = json_string_value(json_object_get(json_object_get(list, "metadata"), "continue"));
        snprintf(token, sizeof token, "%s", next ? next : "");
        json_decref(list);
        pages++;
    } while (token[0] && pages < 100);
    return pages;
}

static void test_pages_cover_ties_once(void)
{
    OPEN_BUILT_READER(t, r, st);
    struct store_history_query all = {.ns = "a", .since_ms = INT64_MIN, .until_ms = INT64_MAX};
    for (long limit = 1; limit <= 7; limit += 3) {
        int seen[NJOBS + 2] = {0};
        int pages = walk(r, all, limit, seen);
        CHECK_INT(pages, (NJOBS + limit - 1) / limit);
        for (int i = 0; i < NJOBS + 2; i++)
            CHECK_INT(seen[i], i < NJOBS ? 1 : 0);
    }
    /* a filter with pages: only the Failed ones, each once */
    struct store_history_query failed = all;
    failed.phase = "Failed";
    int seen[NJOBS + 2] = {0};
    walk(r, failed, 2, seen);
    for (int i = 0; i < NJOBS; i++)
        CHECK_INT(seen[i], i % 3 == 0 ? 1 : 0);
    /* every namespace; and a creation window [1010, 1030) holds groups 1 and 2 */
    struct store_history_query everywhere = {.since_ms = INT64_MIN, .until_ms = INT64_MAX};
    int seen_all[NJOBS + 2] = {0};
    walk(r, everywhere, 4, seen_all);
    CHECK_INT(seen_all[NJOBS + 1], 1);
    struct store_history_query window = {.ns = "a", .since_ms = 1010, .until_ms = 1030};
    int seen_window[NJOBS + 2] = {0};
    walk(r, window, 100, seen_window);
    for (int i = 0; i < NJOBS; i++)
        CHECK_INT(seen_window[i], i >= 5 && i < 15 ? 1 : 0);
    store_reader_close(r);
    tmp_db_remove(&t);
}

static void test_foreign_tokens_are_refused(void)
{
    OPEN_BUILT_READER(t, r, st);
    /* base64url of {"created":1} (no uid), of "[]", garbage, and an impossible length */
    const char *tokens[] = {"eyJjcmVhdGVkIjoxfQ", "W10", "!!!!", "a"};
    for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++) {
        struct store_history_query q = {
            .ns = "a", .since_ms = INT64_MIN, .until_ms = INT64_MAX, .continue_token = tokens[i]};
        json_t *list = NULL;
        struct api_status bad = {0};
        CHECK_INT(store_job_history_list(r, &q, &list, &bad), -1);
        CHECK(list == NULL);
        CHECK_INT(bad.code, 400);
        CHECK_STR(bad.causes[0].field, "continue");
    }
    store_reader_close(r);
    tmp_db_remove(&t);
}

/* A caller's visible namespaces narrow every list: all of them, one, several (pages still whole), and
 * a namespace asked for that it cannot see gives nothing. */
static void test_lists_show_only_visible_namespaces(void)
{
    OPEN_BUILT_READER(t, r, st);
    const char *only_b[] = {"b"}, *a_and_b[] = {"c", "b", "a"}, *c[] = {"c"};
    const struct namespace_set just_b = {false, 1, only_b}, both = {false, 3, a_and_b}, none = {false, 1, c};
    const struct {
        const struct namespace_set *visible;
        const char *ns;
        int in_a, in_b;
    } cases[] = {{NULL, NULL, NJOBS, 2}, {&just_b, NULL, 0, 2}, {&both, NULL, NJOBS, 2},
                 {&none, NULL, 0, 0},    {&just_b, "a", 0, 0},  {&both, "a", NJOBS, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct store_history_query q = {
            .ns = cases[k].ns, .visible = cases[k].visible, .since_ms = INT64_MIN, .until_ms = INT64_MAX};
        int seen[NJOBS + 2] = {0};
        walk(r, q, 4, seen);
        int in_a = 0, in_b = 0;
        for (int i = 0; i < NJOBS + 2; i++) {
            CHECK(seen[i] <= 1);
            in_a += i < NJOBS ? seen[i] : 0;
            in_b += i >= NJOBS ? seen[i] : 0;
        }
        if (in_a != cases[k].in_a || in_b != cases[k].in_b)
            test_fail(__FILE__, __LINE__, "case %zu: %d in a and %d in b, expected %d and %d", k, in_a, in_b,
                      cases[k].in_a, cases[k].in_b);
    }
    store_reader_close(r);
    tmp_db_remove(&t);
}

TEST_MAIN(TEST_CASE(test_pages_cover_ties_once), TEST_CASE(test_foreign_tokens_are_refused),
          TEST_CASE(test_lists_show_only_visible_namespaces))
