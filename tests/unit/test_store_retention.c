/* Unit tests of history retention: the writer prunes deleted jobs whose deletion is older than the
 * retention (rows of every table, and their directory), in bounded batches, and nothing else. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/clock.h"
#include "common/fs.h"
#include "store/store.h"
#include "tests/lib/test.h"
#include "tests/lib/tmpdb.h"

#define HOUR_MS 3600000LL
#define BULK_JOBS 1100 /* more than two prune batches */

/* A job with one row in each table and a log file in its directory; deleted_ms 0 keeps it live. */
static bool add_job(sqlite3 *db, const char *data_dir, const char *uid, int64_t deleted_ms, bool with_files)
{
    char deleted[32] = "NULL";
    if (deleted_ms)
        snprintf(deleted, sizeof deleted, "%lld", (long long)deleted_ms);
    char *sql = sqlite3_mprintf(
        "INSERT INTO jobs(uid, namespace, name, created_ms, spec_json, status_json, resource_version, deleted_ms)"
        " VALUES ('%q', 'default', '%q', 1000, '{}', '{}', 1, %s);"
        "INSERT INTO tasks VALUES ('%q', 'worker', 1, 1, '{}');"
        "INSERT INTO attempts(job_uid, pod, attempt, task, idx, job_version, node, pid, pid_start, start_ms, log_path)"
        " VALUES ('%q', '%q-worker-0', 1, 'worker', 0, 0, 'n', 1, 1, 1000, 'jobs/%q/logs/x.log');"
        "INSERT INTO events(time_ms, kind, namespace, name, job_uid, from_phase, to_phase, reason, message)"
        " VALUES (1000, 'Job', 'default', '%q', '%q', '', 'Pending', '', '');"
        "INSERT INTO commands(time_ms, namespace, job_name, job_uid, action, reason, json)"
        " VALUES (1000, 'default', '%q', '%q', 'AbortJob', '', '{}');",
        uid, uid, deleted, uid, uid, uid, uid, uid, uid, uid, uid);
    bool ok = sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_free(sql);
    if (ok && with_files) {
        char dir[256];
        snprintf(dir, sizeof dir, "%s/jobs/%s/logs", data_dir, uid);
        ok = mkdir_p(dir, 0755) == 0;
        snprintf(dir, sizeof dir, "%s/jobs/%s/logs/x.log", data_dir, uid);
        ok = ok && write_file_atomic(dir, "x\n", 2, 0644) == 0;
    }
    return ok;
}

static bool job_dir_exists(const char *data_dir, const char *uid)
{
    char dir[256];
    struct stat st;
    snprintf(dir, sizeof dir, "%s/jobs/%s", data_dir, uid);
    return stat(dir, &st) == 0;
}

static long long rows_of(const char *path, const char *uid)
{
    char sql[512];
    snprintf(
        sql, sizeof sql,
        "SELECT (SELECT COUNT(*) FROM jobs WHERE uid = '%s') + (SELECT COUNT(*) FROM tasks WHERE job_uid = '%s')"
        " + (SELECT COUNT(*) FROM attempts WHERE job_uid = '%s') + (SELECT COUNT(*) FROM events WHERE job_uid = '%s')"
        " + (SELECT COUNT(*) FROM commands WHERE job_uid = '%s')",
        uid, uid, uid, uid, uid);
    return tmp_db_query_int(path, sql);
}

static bool build(const struct tmp_db *t, int64_t now)
{
    sqlite3 *db = tmp_db_open_schema(t);
    bool ok = db != NULL && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK &&
              add_job(db, t->dir, "old-gone", now - 2 * HOUR_MS, true) &&
              add_job(db, t->dir, "recent-gone", now - 60000, true) && add_job(db, t->dir, "live", 0, true) &&
              sqlite3_exec(db,
                           "INSERT INTO events(time_ms, kind, namespace, name, job_uid, from_phase, to_phase,"
                           " reason, message) VALUES (1, 'Queue', '', 'default', '', '', 'Open', '', '')",
                           NULL, NULL, NULL) == SQLITE_OK;
    for (int i = 0; ok && i < BULK_JOBS; i++) {
        char uid[32];
        snprintf(uid, sizeof uid, "bulk-%d", i);
        ok = add_job(db, t->dir, uid, now - 3 * HOUR_MS + i, false);
    }
    ok = ok && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

static bool wait_until_pruned(const char *path, int timeout_ms)
{
    for (int waited = 0; waited < timeout_ms; waited += 50) {
        if (tmp_db_query_int(path, "SELECT COUNT(*) FROM jobs") == 2)
            return true;
        nanosleep(&(struct timespec){0, 50000000L}, NULL);
    }
    return false;
}

/* Retention one hour: the job deleted two hours ago and the 1,100 bulk ones go (rows and files), in
 * batches while the writer also commits; the one deleted a minute ago and the live one stay, and so
 * does an event of no job. */
static void test_retention_prunes_only_old_deleted_jobs(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    int64_t now = clock_wall_ms();
    REQUIRE(build(&t, now));
    CHECK_INT(rows_of(t.path, "old-gone"), 5);
    long long max_seq = tmp_db_query_int(t.path, "SELECT MAX(seq) FROM events");
    struct store *s;
    char err[512];
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    REQUIRE(store_set_history_retention(s, HOUR_MS, t.dir) == 0);
    REQUIRE(store_start_writer(s) == 0);
    CHECK(wait_until_pruned(t.path, 20000));
    store_close(s);
    CHECK_INT(rows_of(t.path, "old-gone"), 0);
    CHECK(!job_dir_exists(t.dir, "old-gone"));
    CHECK_INT(rows_of(t.path, "bulk-1098"), 0);
    /* the newest event of all was bulk-1099's: it stays, so the sequence never goes back */
    CHECK_INT(rows_of(t.path, "bulk-1099"), 1);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT MAX(seq) FROM events"), max_seq);
    CHECK_INT(rows_of(t.path, "recent-gone"), 5);
    CHECK(job_dir_exists(t.dir, "recent-gone"));
    CHECK_INT(rows_of(t.path, "live"), 5);
    CHECK(job_dir_exists(t.dir, "live"));
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events WHERE job_uid = ''"), 1);
    tmp_db_remove(&t);
}

/* Without retention nothing is pruned, however old. */
static void test_no_retention_keeps_everything(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    REQUIRE(build(&t, clock_wall_ms()));
    struct store *s;
    char err[512];
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    REQUIRE(store_set_history_retention(s, 0, t.dir) == 0);
    REQUIRE(store_start_writer(s) == 0);
    nanosleep(&(struct timespec){0, 300000000L}, NULL);
    store_close(s);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM jobs"), 3 + BULK_JOBS);
    CHECK(job_dir_exists(t.dir, "old-gone"));
    tmp_db_remove(&t);
}

static bool exec_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    bool ok = sqlite3_open(path, &db) == SQLITE_OK && sqlite3_busy_timeout(db, 5000) == SQLITE_OK &&
              sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

/* Waits until the job's row is gone (its newest event may stay: the newest of all is kept). */
static bool wait_until_gone(const char *path, const char *uid, int timeout_ms)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM jobs WHERE uid = '%s'", uid);
    for (int waited = 0; waited < timeout_ms; waited += 50) {
        if (tmp_db_query_int(path, sql) == 0)
            return true;
        nanosleep(&(struct timespec){0, 50000000L}, NULL);
    }
    return false;
}

/* A job deleted while its pods stop (their grace, the shutdown's grace): its attempt has no end
 * yet, its task still runs in its directory. Retention leaves rows and directory alone, however old
 * the deletion, until the end is recorded; then prunes it. */
static void test_retention_waits_for_stopping_pods(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    sqlite3 *db = tmp_db_open_schema(&t);
    REQUIRE(db);
    sqlite3_close(db);
    struct store *s;
    char err[512];
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    REQUIRE(store_set_history_retention(s, 1000, t.dir) == 0);
    /* deleted by this run, two hours ago by the clock, after retention was set up */
    db = tmp_db_open_schema(&t);
    REQUIRE(db);
    int64_t now = clock_wall_ms();
    CHECK(add_job(db, t.dir, "stopping", now - 2 * HOUR_MS, true));
    CHECK(add_job(db, t.dir, "ended", now - 2 * HOUR_MS, true));
    CHECK(sqlite3_exec(db, "UPDATE attempts SET end_ms = 2000 WHERE job_uid = 'ended'", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    REQUIRE(store_start_writer(s) == 0);
    CHECK(wait_until_gone(t.path, "ended", 20000));
    CHECK_INT(rows_of(t.path, "stopping"), 5);
    CHECK(job_dir_exists(t.dir, "stopping"));
    /* the pod's end is recorded: the next step prunes it */
    CHECK(exec_sql(t.path, "UPDATE attempts SET end_ms = 3000 WHERE job_uid = 'stopping'"));
    CHECK(wait_until_gone(t.path, "stopping", 20000));
    store_close(s);
    CHECK(!job_dir_exists(t.dir, "stopping"));
    tmp_db_remove(&t);
}

/* An earlier run stopped (or crashed) while a deleted job's pods stopped: nothing will record their
 * end, so the next start ends them at the deletion and retention prunes the job. */
static void test_attempts_left_by_an_earlier_run_end_at_start(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    sqlite3 *db = tmp_db_open_schema(&t);
    REQUIRE(db);
    int64_t deleted = clock_wall_ms() - 2 * HOUR_MS;
    CHECK(add_job(db, t.dir, "orphan", deleted, true));
    CHECK(add_job(db, t.dir, "live", 0, true));
    sqlite3_close(db);
    struct store *s;
    char err[512];
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    REQUIRE(store_set_history_retention(s, 1000, t.dir) == 0);
    REQUIRE(store_start_writer(s) == 0);
    CHECK(wait_until_gone(t.path, "orphan", 20000));
    store_close(s);
    CHECK(!job_dir_exists(t.dir, "orphan"));
    CHECK_INT(rows_of(t.path, "live"), 5); /* a live job's running attempt is the next start's to adopt */
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM attempts WHERE end_ms IS NULL"), 1);
    tmp_db_remove(&t);
}

TEST_MAIN(TEST_CASE(test_retention_prunes_only_old_deleted_jobs), TEST_CASE(test_no_retention_keeps_everything),
          TEST_CASE(test_retention_waits_for_stopping_pods),
          TEST_CASE(test_attempts_left_by_an_earlier_run_end_at_start))
