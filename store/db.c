/* Opening and closing the database: safety checks on a read-only connection first (so a refused file
 * is never written), then the read-write connection, its pragmas, the migrations and the statements. */
#include "store/store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/sbuf.h"
#include "store/schema.h"

/* How many quick_check complaints to quote in the refusal sentence. */
#define QUICK_CHECK_LINES 3
/* How much of the file the check may map (SQLite's own ceiling applies too). */
#define CHECK_MMAP_BYTES "4294967296"

static int fail_corrupt(const char *path, const char *detail, char *err, size_t errlen)
{
    snprintf(err, errlen, "database %s is corrupt: %s; refusing to start", path, detail);
    return -1;
}

/* Adds one quick_check complaint to a one-line sentence: SQLite starts the first with a
 * "*** in database main ***" header line, which says nothing here, and may span lines. */
static void append_problem(struct sbuf *found, const char *problem)
{
    static const char header[] = "*** in database main ***\n";
    if (strncmp(problem, header, sizeof header - 1) == 0)
        problem += sizeof header - 1;
    if (found->len > 0)
        sbuf_puts(found, "; ");
    for (const char *p = problem; *p; p++)
        sbuf_append(found, *p == '\n' ? " " : p, 1);
}

/* Runs PRAGMA quick_check. Returns 0 when it says "ok", else -1 with its complaints in err (or why
 * the check itself could not run, e.g. another process holding the file locked). */
static int quick_check(sqlite3 *db, const char *path, char *err, size_t errlen)
{
    sqlite3_stmt *stmt;
    int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &stmt, NULL);
    struct sbuf found = {0};
    int lines = 0;
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const char *line = (const char *)sqlite3_column_text(stmt, 0);
        if (!line || strcmp(line, "ok") != 0) {
            if (lines++ < QUICK_CHECK_LINES)
                append_problem(&found, line ? line : "");
        }
        rc = SQLITE_OK;
    }
    int result = 0;
    if (lines > 0) {
        if (lines > QUICK_CHECK_LINES)
            sbuf_printf(&found, "; and %d more problems", lines - QUICK_CHECK_LINES);
        result = fail_corrupt(path, sbuf_str(&found), err, errlen);
    } else if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) { /* the pager gave up before any row */
        result = fail_corrupt(path, sqlite3_errmsg(db), err, errlen);
    } else if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "cannot check database %s: %s", path, sqlite3_errmsg(db));
        result = -1;
    }
    sqlite3_finalize(stmt);
    sbuf_free(&found);
    return result;
}

static bool file_exists(const char *path, const char *suffix)
{
    char name[4200];
    struct stat st;
    snprintf(name, sizeof name, "%s%s", path, suffix);
    return stat(name, &st) == 0;
}

/* "file:<path>?immutable=1" with the path percent-encoded where a URI needs it. */
static void immutable_uri(const char *path, struct sbuf *uri)
{
    static const char hex[] = "0123456789ABCDEF";
    sbuf_puts(uri, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p == '%' || *p == '?' || *p == '#' || *p <= ' ' || *p >= 0x7f) {
            char esc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            sbuf_append(uri, esc, 3);
        } else {
            sbuf_append(uri, (const char *)p, 1);
        }
    }
    sbuf_puts(uri, "?immutable=1");
}

/* A read-only connection for the checks. A read-only open of a WAL-mode file still creates its -wal
 * and -shm beside it (and leaves them), so when no log or journal is there (a clean stop, or a file
 * that is no database at all) the file is opened immutable: nothing pending can be missed, and
 * nothing is created. After a crash the -wal holds committed pages, so it is read the normal way
 * (SQLite may then create a missing -shm, the log's index, which holds no data). */
static int open_for_checks(const char *path, sqlite3 **db)
{
    if (file_exists(path, "-wal") || file_exists(path, "-journal"))
        return sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    struct sbuf uri = {0};
    immutable_uri(path, &uri);
    int rc = sqlite3_open_v2(sbuf_str(&uri), db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, NULL);
    sbuf_free(&uri);
    return rc;
}

/* Read-only, so even a WAL-mode file with a pending log is left exactly as it was (a read-write
 * connection would checkpoint into the file when it closes). */
int store_check_file(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot open database %s: %s", path, strerror(errno));
        return -1;
    }
    sqlite3 *db = NULL;
    int rc = open_for_checks(path, &db);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "cannot open database %s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
    /* quick_check reads every page once: mapped, they are not copied (a third less time at 300 MB) */
    sqlite3_exec(db, "PRAGMA mmap_size = " CHECK_MMAP_BYTES, NULL, NULL, NULL);
    int version = 0, result = 0;
    rc = schema_read_version(db, &version);
    if (rc == SQLITE_NOTADB) {
        snprintf(err, errlen, "%s is not a SQLite database (%s); refusing to start", path, sqlite3_errmsg(db));
        result = -1;
    } else if (rc == SQLITE_CORRUPT) {
        result = fail_corrupt(path, sqlite3_errmsg(db), err, errlen);
    } else if (rc != SQLITE_OK) {
        snprintf(err, errlen, "cannot read database %s: %s", path, sqlite3_errmsg(db));
        result = -1;
    } else if (version > schema_latest_version()) {
        snprintf(err, errlen, "database %s has schema version %d but this jobserver knows up to %d; refusing to start",
                 path, version, schema_latest_version());
        result = -1;
    } else {
        result = quick_check(db, path, err, errlen);
    }
    sqlite3_close(db);
    return result;
}

static int exec_pragma(sqlite3 *db, const char *path, const char *sql, char *err, size_t errlen)
{
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    snprintf(err, errlen, "database %s: %s failed: %s", path, sql, sqlite3_errmsg(db));
    return -1;
}

/* WAL lets history readers run beside the writer and turns a commit into one append and one fsync.
 * journal_mode answers with the mode it got, which must be wal. */
static int switch_to_wal(sqlite3 *db, const char *path, char *err, size_t errlen)
{
    sqlite3_stmt *stmt;
    int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &stmt, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(stmt);
    const char *mode = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(stmt, 0) : NULL;
    int result = 0;
    if (!mode || strcmp(mode, "wal") != 0) {
        snprintf(err, errlen, "database %s: cannot switch to WAL: %s", path,
                 rc == SQLITE_ROW ? (mode ? mode : "no mode reported") : sqlite3_errmsg(db));
        result = -1;
    }
    sqlite3_finalize(stmt);
    return result;
}

/* synchronous=FULL: an acknowledged commit survives a power cut. The 8 MiB page cache (default 2)
 * keeps the events index and start-up's reads of jobs mostly in memory. */
static int set_pragmas(sqlite3 *db, const char *path, char *err, size_t errlen)
{
    sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
    if (switch_to_wal(db, path, err, errlen) != 0 ||
        exec_pragma(db, path, "PRAGMA synchronous = FULL", err, errlen) != 0 ||
        exec_pragma(db, path, "PRAGMA foreign_keys = OFF", err, errlen) != 0 ||
        exec_pragma(db, path, "PRAGMA cache_size = -8192", err, errlen) != 0)
        return -1;
    return 0;
}

static int open_read_write(struct store *s, char *err, size_t errlen)
{
    int rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "cannot open database %s: %s", s->path,
                 s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        return -1;
    }
    return 0;
}

/* Frees a store whose writer is not running. */
static void store_destroy(struct store *s)
{
    if (s->check_started)
        pthread_join(s->check_thread, NULL);
    s->checking = s->check_started = false;
    store_stmts_finalize(&s->stmts);
    store_retention_free(s->retention); /* its statements before the connection */
    store_close_sleepers(s);
    if (s->db && sqlite3_close(s->db) != SQLITE_OK)
        log_error("store: closing %s failed: %s", s->path, sqlite3_errmsg(s->db));
    journal_list_free(&s->queue);
    store_sync_destroy(s);
    free(s->path);
    free(s);
}

static struct store *store_new(const char *path, char *err, size_t errlen)
{
    struct store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path)) || store_sync_init(s) != 0) {
        if (s)
            free(s->path);
        free(s);
        snprintf(err, errlen, "cannot open database %s: out of memory", path);
        return NULL;
    }
    return s;
}

/* After the checks: the read-write connection, its pragmas, the migrations and the statements. */
static int open_checked(struct store *s, char *err, size_t errlen)
{
    if (open_read_write(s, err, errlen) != 0 || set_pragmas(s->db, s->path, err, errlen) != 0 ||
        schema_migrate(s->db, s->path, schema_latest_version(), &s->migrations_applied, err, errlen) != 0 ||
        /* events already in the database are committed: nobody waits for them */
        store_read_max_seq(s->db, s->path, &s->committed_seq, err, errlen) != 0)
        return -1;
    store_defer_checkpoints(s);
    char why[512];
    if (store_stmts_prepare(s->db, &s->stmts, why, sizeof why) != 0) {
        snprintf(err, errlen, "database %s: %s", s->path, why);
        return -1;
    }
    if (s->migrations_applied > 0)
        log_info("store: %s migrated from schema version %d to %d", s->path,
                 schema_latest_version() - s->migrations_applied, schema_latest_version());
    return 0;
}

int store_open(const char *path, struct store **out, char *err, size_t errlen)
{
    *out = NULL;
    if (store_check_file(path, err, errlen) != 0)
        return -1;
    struct store *s = store_new(path, err, errlen);
    if (!s)
        return -1;
    if (open_checked(s, err, errlen) != 0) {
        store_destroy(s);
        return -1;
    }
    *out = s;
    return 0;
}

static void run_checks(struct store *s)
{
    s->check_result = store_check_file(s->path, s->check_err, sizeof s->check_err);
    atomic_store(&s->check_over, true);
}

static void *check_main(void *arg)
{
    run_checks(arg);
    return NULL;
}

bool store_checks_over(struct store *s) { return !s->checking || !s->check_started || atomic_load(&s->check_over); }

/* The read-only connection store_load reads through while the checks run, opened as the checks'
 * own is: immutable after a clean stop, the normal way after a crash, when the -wal holds committed
 * pages (a read-only connection never checkpoints them into the file; SQLite may create the -shm,
 * the log's index). Only for a database at this build's schema with no rollback journal beside it
 * (a hot journal is rolled back by whoever opens it to write). Returns 0, or -1 when the start must
 * take store_open's way. */
static int open_for_load(struct store *s)
{
    struct stat st;
    if (stat(s->path, &st) != 0 || file_exists(s->path, "-journal") || open_for_checks(s->path, &s->db) != SQLITE_OK)
        return -1;
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
    int version = 0;
    char why[512];
    if (schema_read_version(s->db, &version) != SQLITE_OK || version != schema_latest_version() ||
        store_read_max_seq(s->db, s->path, &s->committed_seq, why, sizeof why) != 0)
        return -1;
    return 0;
}

int store_open_checking(const char *path, struct store **out, char *err, size_t errlen)
{
    *out = NULL;
    struct store *s = store_new(path, err, errlen);
    if (!s)
        return -1;
    if (open_for_load(s) != 0) {
        store_destroy(s); /* whatever stopped it, store_open's way says it plainly, or works */
        return store_open(path, out, err, errlen);
    }
    s->checking = true;
    *out = s;
    return 0;
}

void store_start_checks(struct store *s)
{
    if (s->checking && !s->check_started && pthread_create(&s->check_thread, NULL, check_main, s) == 0)
        s->check_started = true; /* else store_confirm runs them */
}

int store_confirm(struct store *s, char *err, size_t errlen)
{
    if (!s->checking)
        return 0;
    if (s->check_started)
        pthread_join(s->check_thread, NULL);
    else
        run_checks(s);
    s->checking = s->check_started = false;
    sqlite3_close(s->db);
    s->db = NULL;
    if (s->check_result != 0) {
        snprintf(err, errlen, "%s", s->check_err);
        return -1;
    }
    if (open_checked(s, err, errlen) != 0)
        return -1;
    if (s->end_orphans_pending)
        store_retention_end_orphans(s);
    return 0;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    store_writer_stop(s);
    store_destroy(s);
}
