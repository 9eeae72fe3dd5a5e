/* Unit tests of the schema migrations: a database built at every earlier version migrates to the
 * latest, and a migration that fails leaves the database at the version it had. */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "store/schema.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "tests/lib/test.h"
#include "tests/lib/tmpdb.h"

/* A database as an older jobserver left it: version 0 is an empty file, version v the result of the
 * first v migrations. */
static bool build_at_version(const char *path, int version)
{
    if (version == 0) {
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
        if (fd < 0)
            return false;
        close(fd);
        return true;
    }
    sqlite3 *db;
    char err[512];
    bool ok = sqlite3_open(path, &db) == SQLITE_OK && schema_migrate(db, path, version, NULL, err, sizeof err) == 0;
    sqlite3_close(db);
    return ok;
}

static void check_latest_schema(const char *path)
{
    CHECK_INT(tmp_db_query_int(path, "PRAGMA user_version"), schema_latest_version());
    CHECK_INT(tmp_db_query_int(path, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN"
                              " ('jobs', 'attempts', 'events', 'queues')"),
              4);
    CHECK_INT(tmp_db_query_int(path, "SELECT COUNT(*) FROM pragma_quick_check WHERE quick_check != 'ok'"), 0);
}

static void test_every_earlier_version_migrates(void)
{
    for (int v = 0; v < schema_latest_version(); v++) {
        struct tmp_db t;
        REQUIRE(tmp_db_make(&t));
        REQUIRE(build_at_version(t.path, v));
        CHECK_INT(tmp_db_query_int(t.path, "PRAGMA user_version"), v);
        struct store *s;
        char err[512];
        CHECK_INT(store_open(t.path, &s, err, sizeof err), 0);
        if (s) {
            CHECK_INT(s->migrations_applied, schema_latest_version() - v);
            store_close(s);
        }
        check_latest_schema(t.path);
        tmp_db_remove(&t);
    }
}

static void test_missing_file_is_created_at_latest(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    struct store *s;
    char err[512];
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    CHECK_INT(s->migrations_applied, schema_latest_version());
    store_close(s);
    check_latest_schema(t.path);
    tmp_db_remove(&t);
}

/* Migration 1 meets a table already named queues: it fails, and its transaction takes every other
 * table it had created with it; the version stays 0. */
static void test_failed_migration_leaves_version_unchanged(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    sqlite3 *db;
    REQUIRE(sqlite3_open(t.path, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE queues(x)", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);

    struct store *s;
    char err[512];
    CHECK_INT(store_open(t.path, &s, err, sizeof err), -1);
    CHECK_CONTAINS(err, "migration to schema version 1 failed: table queues already exists");
    CHECK_INT(tmp_db_query_int(t.path, "PRAGMA user_version"), 0);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('jobs', 'events')"), 0);
    tmp_db_remove(&t);
}

TEST_MAIN(TEST_CASE(test_every_earlier_version_migrates), TEST_CASE(test_missing_file_is_created_at_latest),
          TEST_CASE(test_failed_migration_leaves_version_unchanged))
