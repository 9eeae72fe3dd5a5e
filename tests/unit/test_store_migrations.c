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
    CHECK_INT(tmp_db_query_int(path,
                               "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN"
                               " ('jobs', 'attempts', 'events', 'queues', 'objects', 'tasks', 'nodes', 'commands')"),
              8);
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

/* A version-1 database with rows in it, as the previous jobserver left it. */
static bool build_version_1_with_rows(const char *path)
{
    sqlite3 *db;
    bool ok = build_at_version(path, 1) && sqlite3_open(path, &db) == SQLITE_OK;
    if (!ok)
        return false;
    ok = sqlite3_exec(db,
                      "INSERT INTO queues VALUES ('default', '{\"metadata\":{\"name\":\"default\"},"
                      "\"spec\":{\"weight\":1}}');"
                      "INSERT INTO events VALUES (1, 0, 'Queue', '', 'default', '', '', 'Open', 'Created', '');",
                      NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

/* Version 1 -> 2 adds the objects table (PriorityClasses, ResourceQuotas) and keeps every row. */
static void test_version_1_gains_objects_and_keeps_rows(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    REQUIRE(build_version_1_with_rows(t.path));
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'objects'"), 0);
    struct store *s;
    char err[512];
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    CHECK_INT(s->migrations_applied, schema_latest_version() - 1);
    store_close(s);
    CHECK_INT(tmp_db_query_int(t.path, "PRAGMA user_version"), schema_latest_version());
    /* version 3: what became of each attempt's pod, and what it used */
    CHECK_INT(tmp_db_query_int(t.path,
                               "SELECT COUNT(*) FROM pragma_table_info('attempts') WHERE name IN "
                               "('outcome', 'kept_version', 'peak_memory', 'cpu_usec')"),
              4);
    /* version 6: the object a job was posted as in another dialect; existing jobs have none */
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM pragma_table_info('jobs') WHERE name = 'source_json'"), 1);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM jobs WHERE source_json IS NOT NULL"), 0);
    /* version 10: the start-up's partial indexes (sleeping jobs, awake jobs, open attempts) */
    CHECK_INT(tmp_db_query_int(t.path,
                               "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name IN"
                               " ('jobs_asleep', 'jobs_awake', 'attempts_open')"),
              3);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM queues WHERE name = 'default'"), 1);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events"), 1);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM objects"), 0);
    /* WITHOUT ROWID, keyed by (kind, namespace, name): a second put of one key replaces the first. */
    sqlite3 *db;
    REQUIRE(sqlite3_open(t.path, &db) == SQLITE_OK);
    CHECK_INT(sqlite3_exec(db,
                           "INSERT OR REPLACE INTO objects VALUES ('PriorityClass', '', 'high', '{}');"
                           "INSERT OR REPLACE INTO objects VALUES ('PriorityClass', '', 'high', '{\"value\":1}');"
                           "INSERT OR REPLACE INTO objects VALUES ('ResourceQuota', 'a', 'high', '{}');",
                           NULL, NULL, NULL),
              SQLITE_OK);
    sqlite3_close(db);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM objects"), 2);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM pragma_table_list WHERE name = 'objects' AND wr = 1"), 1);
    tmp_db_remove(&t);
}

/* Migration 2 meets a table already named objects: the database stays at version 1, rows intact. */
static void test_failed_migration_2_leaves_version_1(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    REQUIRE(build_version_1_with_rows(t.path));
    sqlite3 *db;
    REQUIRE(sqlite3_open(t.path, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE objects(x)", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    struct store *s;
    char err[512];
    CHECK_INT(store_open(t.path, &s, err, sizeof err), -1);
    CHECK_CONTAINS(err, "migration to schema version 2 failed: table objects already exists");
    CHECK_INT(tmp_db_query_int(t.path, "PRAGMA user_version"), 1);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM queues"), 1);
    tmp_db_remove(&t);
}

/* Rows an older jobserver at `version` wrote: a queue, a job whose spec has two tasks (the second
 * without minAvailable), one ended attempt with its events; from version 2 a PriorityClass, from
 * version 3 the attempt's outcome and usage. */
static bool insert_rows_of_version(const char *path, int version)
{
    static const char v1_rows[] =
        "INSERT INTO queues VALUES ('default', '{\"spec\":{\"weight\":1}}');"
        "INSERT INTO jobs(uid, namespace, name, created_ms, spec_json, status_json, resource_version, deleted_ms)"
        " VALUES ('u-1', 'default', 'train', 1000,"
        " '{\"metadata\":{\"name\":\"train\"},\"spec\":{\"tasks\":["
        "{\"name\":\"master\",\"replicas\":1,\"minAvailable\":1,\"template\":{\"spec\":{\"containers\":[]}}},"
        "{\"name\":\"worker\",\"replicas\":3}]}}',"
        " '{\"state\":{\"phase\":\"Failed\"}}', 3, NULL);"
        "INSERT INTO jobs(uid, namespace, name, created_ms, spec_json, status_json, resource_version, deleted_ms)"
        " VALUES ('u-0', 'default', 'broken', 500, 'not json', '{}', 1, 900);"
        "INSERT INTO attempts(job_uid, pod, attempt, task, idx, job_version, node, pid, pid_start, start_ms, end_ms,"
        " exit_code, reason, message, log_path)"
        " VALUES ('u-1', 'train-worker-0', 1, 'worker', 0, 0, 'node-a', 42, 7, 1100, 1200, 3, 'Error', 'exit 3',"
        " 'jobs/u-1/logs/train-worker-0.1.log');"
        "INSERT INTO events(seq, time_ms, kind, namespace, name, job_uid, from_phase, to_phase, reason, message)"
        " VALUES (1, 1000, 'Job', 'default', 'train', 'u-1', '', 'Pending', 'Created', '');"
        "INSERT INTO events(seq, time_ms, kind, namespace, name, job_uid, from_phase, to_phase, reason, message)"
        " VALUES (2, 1100, 'Pod', 'default', 'train-worker-0', 'u-1', 'Pending', 'Running', '', '');";
    static const char v2_rows[] = "INSERT INTO objects VALUES ('PriorityClass', '', 'high', '{\"value\":100}');";
    static const char v3_rows[] =
        "UPDATE attempts SET outcome = 'Restarting', kept_version = 0, peak_memory = 1048576, cpu_usec = 250000;";
    static const char v4_rows[] = /* what migration 4 derives, as a version-4 server would have written it */
        "INSERT INTO tasks VALUES ('u-1', 'master', 1, 1, '{\"spec\":{\"containers\":[]}}');"
        "INSERT INTO tasks VALUES ('u-1', 'worker', 3, 3, '{}');";
    static const char v5_rows[] = /* what a version-5 server kept beside the JSON */
        "UPDATE jobs SET phase = 'Failed' WHERE uid = 'u-1';";
    static const char v7_rows[] = "UPDATE attempts SET gpus = '';";
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK)
        return false;
    bool ok = sqlite3_exec(db, v1_rows, NULL, NULL, NULL) == SQLITE_OK &&
              (version < 2 || sqlite3_exec(db, v2_rows, NULL, NULL, NULL) == SQLITE_OK) &&
              (version < 3 || sqlite3_exec(db, v3_rows, NULL, NULL, NULL) == SQLITE_OK) &&
              (version < 4 || sqlite3_exec(db, v4_rows, NULL, NULL, NULL) == SQLITE_OK) &&
              (version < 5 || sqlite3_exec(db, v5_rows, NULL, NULL, NULL) == SQLITE_OK) &&
              (version < 7 || sqlite3_exec(db, v7_rows, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    return ok;
}

struct loaded {
    int jobs, attempts;
    char cgroup[64], outcome[32], phase[32], gpus[32];
};

static int count_job(void *ctx, const struct store_job_row *row)
{
    struct loaded *l = ctx;
    l->jobs++;
    snprintf(l->phase, sizeof l->phase, "%s", row->phase);
    return 0;
}

static int keep_attempt(void *ctx, const struct store_attempt_row *row)
{
    struct loaded *l = ctx;
    l->attempts++;
    snprintf(l->cgroup, sizeof l->cgroup, "%s", row->cgroup);
    snprintf(l->outcome, sizeof l->outcome, "%s", row->outcome);
    snprintf(l->gpus, sizeof l->gpus, "%s", row->gpus ? row->gpus : "(null)");
    return 0;
}

/* Versions 4, 5, 7 and 8 on a database with rows: every row stays; attempts gain cgroup "" and gpus "",
 * requests of 0 and GPU samples NULL (schema 8: never sampled); the tasks of
 * stored jobs are derived from their specs (minAvailable defaulting to replicas; a spec that is not
 * JSON gives none); nodes and commands start empty; live jobs gain their phase, queue and TTL from
 * their JSON; recovery reads the old attempt with cgroup "" and the job with its phase. */
static void test_rows_of_every_version_survive(void)
{
    for (int v = 1; v < schema_latest_version(); v++) {
        struct tmp_db t;
        REQUIRE(tmp_db_make(&t));
        REQUIRE(build_at_version(t.path, v));
        REQUIRE(insert_rows_of_version(t.path, v));
        struct store *s;
        char err[512];
        REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
        CHECK_INT(s->migrations_applied, schema_latest_version() - v);
        struct loaded l = {0};
        uint64_t max_seq = 0;
        struct store_loader loader = {.ctx = &l, .job = count_job, .attempt = keep_attempt};
        CHECK_INT(store_load(s, &loader, &max_seq, err, sizeof err), 0);
        store_close(s);
        CHECK_INT(max_seq, 2);
        CHECK_INT(l.jobs, 1); /* the deleted one stays out of recovery */
        CHECK_INT(l.attempts, 1);
        CHECK_STR(l.cgroup, "");
        CHECK_STR(l.gpus, "");
        CHECK_STR(l.outcome, v >= 3 ? "Restarting" : "");
        check_latest_schema(t.path);
        CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM jobs"), 2);
        CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events"), 2);
        CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM queues"), 1);
        CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM objects"), v >= 2 ? 1 : 0);
        CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM attempts WHERE cgroup = '' AND exit_code = 3"), 1);
        CHECK_INT(tmp_db_query_int(t.path, "SELECT peak_memory FROM attempts"), v >= 3 ? 1048576 : 0);
        CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM tasks"), 2);
        CHECK_INT(tmp_db_query_int(t.path, "SELECT min_available FROM tasks WHERE job_uid = 'u-1' AND name = 'worker'"),
                  3);
        CHECK_INT(tmp_db_query_int(t.path, "SELECT replicas FROM tasks WHERE name = 'master'"), 1);
        CHECK_INT(tmp_db_query_int(t.path,
                                   "SELECT template_json ->> '$.spec.containers' = '[]' FROM tasks"
                                   " WHERE name = 'master'"),
                  1);
        CHECK_INT(tmp_db_query_int(t.path, "SELECT template_json = '{}' FROM tasks WHERE name = 'worker'"), 1);
        CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM nodes"), 0);
        CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM commands"), 0);
        /* version 5: the phase, queue and TTL start-up reads without parsing, from the stored JSON */
        CHECK_INT(tmp_db_query_int(t.path,
                                   "SELECT phase = 'Failed' AND queue = '' AND ttl_s IS NULL FROM jobs"
                                   " WHERE uid = 'u-1'"),
                  1);
        CHECK_STR(l.phase, "Failed");
        /* version 8: an old attempt asked for nothing it recorded, and its GPUs were never sampled */
        CHECK_INT(tmp_db_query_int(t.path,
                                   "SELECT cpu_request = 0 AND memory_request = 0 AND gpu_request = 0 AND gpu_util_mean"
                                   " IS NULL AND gpu_util_peak IS NULL AND gpu_memory_peak IS NULL FROM attempts"),
                  1);
        tmp_db_remove(&t);
    }
}

TEST_MAIN(TEST_CASE(test_every_earlier_version_migrates), TEST_CASE(test_missing_file_is_created_at_latest),
          TEST_CASE(test_failed_migration_leaves_version_unchanged),
          TEST_CASE(test_version_1_gains_objects_and_keeps_rows), TEST_CASE(test_failed_migration_2_leaves_version_1),
          TEST_CASE(test_rows_of_every_version_survive))
