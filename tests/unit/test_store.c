/* Unit tests of the store: open and refusals, the group-committing writer and its waiters, failing
 * disks, start-up recovery and job history. Each case uses its own temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "store/history.h"
#include "store/schema.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "tests/lib/test.h"
#include "tests/lib/tmpdb.h"

#define T0_MS 1763800000000LL /* 2025-11-22T08:26:40Z */

/* ---- fixtures ---------------------------------------------------------------------------------- */

/* Declares t (a new database), s (the store on it, its writer started) and err (its messages),
 * REQUIRing each step. */
#define OPEN_STORE_WITH_WRITER(t, s, err)                  \
    struct tmp_db t;                                       \
    REQUIRE(tmp_db_make(&t));                              \
    struct store *s;                                       \
    char err[512];                                         \
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0); \
    REQUIRE(store_start_writer(s) == 0)

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* The event part of an entry; unset strings stay NULL (the store writes them as ""). */
struct ev {
    const char *kind, *ns, *name, *uid, *from, *to, *reason, *message;
};

static struct journal_entry *new_entry(enum journal_op op, uint64_t seq, struct ev ev)
{
    struct journal_entry *e = journal_entry_new(op);
    e->ev.seq = seq;
    e->ev.time_ms = T0_MS + (int64_t)seq * 1000;
    e->ev.kind = dup_or_null(ev.kind);
    e->ev.ns = dup_or_null(ev.ns);
    e->ev.name = dup_or_null(ev.name);
    e->ev.job_uid = dup_or_null(ev.uid);
    e->ev.from_phase = dup_or_null(ev.from);
    e->ev.to_phase = dup_or_null(ev.to);
    e->ev.reason = dup_or_null(ev.reason);
    e->ev.message = dup_or_null(ev.message);
    return e;
}

static char *phase_status(const char *phase)
{
    char buf[128];
    snprintf(buf, sizeof buf, "{\"state\":{\"phase\":\"%s\"}}", phase);
    return strdup(buf);
}

static struct journal_entry *job_create(uint64_t seq, const char *name, const char *uid, int64_t created_ms)
{
    struct journal_entry *e = new_entry(JOURNAL_JOB_CREATE, seq,
                                        (struct ev){"Job", "default", name, uid, "", "Pending", "", ""});
    e->job_uid = strdup(uid);
    e->ns = strdup("default");
    e->name = strdup(name);
    e->created_ms = created_ms;
    e->spec_json = strdup("{\"tasks\":[{\"name\":\"worker\",\"replicas\":2}]}");
    e->status_json = phase_status("Pending");
    return e;
}

static struct journal_entry *job_status(uint64_t seq, const char *name, const char *uid, const char *from,
                                        const char *to)
{
    struct journal_entry *e = new_entry(JOURNAL_JOB_STATUS, seq,
                                        (struct ev){"Job", "default", name, uid, from, to, "", ""});
    e->job_uid = strdup(uid);
    e->ns = strdup("default");
    e->name = strdup(name);
    e->status_json = phase_status(to);
    return e;
}

static struct journal_entry *job_delete(uint64_t seq, const char *name, const char *uid, const char *from)
{
    struct journal_entry *e = new_entry(JOURNAL_JOB_DELETE, seq,
                                        (struct ev){"Job", "default", name, uid, from, "", "Deleted", ""});
    e->job_uid = strdup(uid);
    e->ns = strdup("default");
    e->name = strdup(name);
    return e;
}

/* Pod events carry the job's uid too: history must leave them out of the job's transitions. */
static struct journal_entry *attempt_start(uint64_t seq, const char *job, const char *uid, const char *task, int idx,
                                           int attempt)
{
    char pod[128];
    snprintf(pod, sizeof pod, "%s-%s-%d", job, task, idx);
    struct journal_entry *e = new_entry(JOURNAL_ATTEMPT_START, seq,
                                        (struct ev){"Pod", "default", pod, uid, "Pending", "Running", "", ""});
    struct journal_attempt *a = &e->attempt;
    a->job_uid = strdup(uid);
    a->pod = strdup(pod);
    a->task = strdup(task);
    a->index = idx;
    a->attempt = attempt;
    a->job_version = 1;
    a->node = strdup("node-a");
    a->pid = 4000 + (int)seq;
    a->pid_start = 123456;
    a->start_ms = e->ev.time_ms;
    char log[192];
    snprintf(log, sizeof log, "logs/%s/%d.log", pod, attempt);
    a->log_path = strdup(log);
    return e;
}

static struct journal_entry *attempt_end(uint64_t seq, const char *job, const char *uid, const char *task, int idx,
                                         int attempt, int exit_code, const char *reason)
{
    char pod[128];
    snprintf(pod, sizeof pod, "%s-%s-%d", job, task, idx);
    struct journal_entry *e = new_entry(JOURNAL_ATTEMPT_END, seq,
                                        (struct ev){"Pod", "default", pod, uid, "Running", "Failed", reason, ""});
    struct journal_attempt *a = &e->attempt;
    a->job_uid = strdup(uid);
    a->pod = strdup(pod);
    a->attempt = attempt;
    a->end_ms = e->ev.time_ms;
    a->exit_code = exit_code;
    a->reason = strdup(reason);
    a->message = strdup("process exited");
    return e;
}

static struct journal_entry *queue_put(uint64_t seq, const char *name)
{
    struct journal_entry *e = new_entry(JOURNAL_QUEUE_PUT, seq, (struct ev){"Queue", "", name, "", "", "Open", "", ""});
    e->queue_name = strdup(name);
    e->queue_json = strdup("{\"spec\":{\"weight\":1}}");
    return e;
}

static struct journal_entry *queue_delete(uint64_t seq, const char *name)
{
    struct journal_entry *e = new_entry(JOURNAL_QUEUE_DELETE, seq,
                                        (struct ev){"Queue", "", name, "", "Closed", "", "Deleted", ""});
    e->queue_name = strdup(name);
    return e;
}

/* A PriorityClass or ResourceQuota row change; json NULL makes it a delete. */
static struct journal_entry *object_change(uint64_t seq, const char *kind, const char *ns, const char *name,
                                           const char *json)
{
    struct journal_entry *e = new_entry(
        json ? JOURNAL_OBJECT_PUT : JOURNAL_OBJECT_DELETE, seq,
        (struct ev){kind, ns, name, "", json ? "" : "Active", json ? "Active" : "", json ? "Created" : "Deleted", ""});
    e->object_kind = strdup(kind);
    e->object_ns = strdup(ns);
    e->object_name = strdup(name);
    e->object_json = dup_or_null(json);
    return e;
}

static struct journal_entry *plain_event(uint64_t seq, const char *message)
{
    return new_entry(JOURNAL_EVENT, seq, (struct ev){"Pod", "default", "p", "u-1", "Pending", "Running", "", message});
}

/* Appends entries one list at a time; the list comes back empty. */
static void append(struct store *s, struct journal_entry **entries, int n)
{
    struct journal_list l = {0};
    for (int i = 0; i < n; i++)
        journal_list_push(&l, entries[i]);
    store_append(s, &l);
}

/* What a start does once its checks pass: confirms them, starts the writer and commits one more
 * event (seq), which must be written; then the store is closed. */
static void confirm_then_write(struct store *s, uint64_t seq, const char *message)
{
    char err[512];
    CHECK_INT(store_confirm(s, err, sizeof err), 0);
    CHECK_INT(store_start_writer(s), 0);
    struct journal_entry *more[] = {plain_event(seq, message)};
    append(s, more, 1);
    CHECK_INT(store_wait(s, seq, 5000), 0);
    store_close(s);
}

static void append_events(struct store *s, uint64_t first, uint64_t last, const char *padding)
{
    struct journal_list l = {0};
    for (uint64_t seq = first; seq <= last; seq++) {
        char msg[4096];
        snprintf(msg, sizeof msg, "event %llu%s", (unsigned long long)seq, padding);
        journal_list_push(&l, plain_event(seq, msg));
    }
    store_append(s, &l);
}

static bool file_bytes(const char *path, char **data, size_t *len)
{
    return read_file(path, 64u << 20, data, len) == 0;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- open ------------------------------------------------------------------------------------- */

static void test_open_empty_file_creates_schema(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    int fd = open(t.path, O_CREAT | O_WRONLY, 0600); /* an empty file: version 0 */
    REQUIRE(fd >= 0);
    close(fd);

    struct store *s;
    char err[512];
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    CHECK_INT(s->migrations_applied, schema_latest_version());
    CHECK_INT(store_committed_seq(s), 0);
    store_close(s);

    CHECK_INT(tmp_db_query_int(t.path, "PRAGMA user_version"), schema_latest_version());
    /* journal_mode is stored in the file header: a fresh connection sees WAL. */
    CHECK_INT(tmp_db_query_int(t.path, "SELECT journal_mode = 'wal' FROM pragma_journal_mode"), 1);
    CHECK_INT(tmp_db_query_int(t.path,
                               "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN"
                               " ('jobs', 'attempts', 'events', 'queues', 'objects')"),
              5);
    CHECK_INT(tmp_db_query_int(t.path,
                               "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name IN"
                               " ('jobs_live_name', 'jobs_by_name', 'jobs_live_created', 'events_by_job')"),
              4);

    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    CHECK_INT(s->migrations_applied, 0); /* already at the latest version: nothing re-runs */
    store_close(s);
    CHECK_INT(tmp_db_query_int(t.path, "PRAGMA user_version"), schema_latest_version());
    tmp_db_remove(&t);
}

static void test_open_refuses_newer_schema_without_writing(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    sqlite3 *db;
    REQUIRE(sqlite3_open(t.path, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE future(x); INSERT INTO future VALUES (1); PRAGMA user_version = 9999", NULL,
                         NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    char *before, *after;
    size_t before_len, after_len;
    REQUIRE(file_bytes(t.path, &before, &before_len));

    struct store *s = (struct store *)1;
    char err[512], want[512];
    CHECK_INT(store_open(t.path, &s, err, sizeof err), -1);
    CHECK(s == NULL);
    snprintf(want, sizeof want,
             "database %s has schema version 9999 but this jobserver knows up to %d; refusing to start", t.path,
             schema_latest_version());
    CHECK_STR(err, want);

    REQUIRE(file_bytes(t.path, &after, &after_len));
    CHECK(before_len == after_len && memcmp(before, after, before_len) == 0);
    free(before);
    free(after);
    tmp_db_remove(&t);
}

/* A WAL-mode file whose newest pages are still in its log (a server that stopped without a
 * checkpoint): refusing it must not checkpoint them into the file, as a read-write connection
 * would when it closed. */
static void test_open_refuses_newer_wal_database_without_checkpointing(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    sqlite3 *db;
    REQUIRE(sqlite3_open(t.path, &db) == SQLITE_OK);
    REQUIRE(sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL) == SQLITE_OK);
    char future[128]; /* a version past this jobserver's */
    snprintf(future, sizeof future, "PRAGMA journal_mode = WAL; CREATE TABLE future(x); PRAGMA user_version = %d",
             schema_latest_version() + 1);
    REQUIRE(sqlite3_exec(db, future, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    char wal[192];
    snprintf(wal, sizeof wal, "%s-wal", t.path);
    REQUIRE(exists(wal));
    char *before, *after;
    size_t before_len, after_len;
    REQUIRE(file_bytes(t.path, &before, &before_len));

    struct store *s;
    char err[512];
    CHECK_INT(store_open(t.path, &s, err, sizeof err), -1);
    char want[128];
    snprintf(want, sizeof want, "has schema version %d but this jobserver knows up to %d; refusing to start",
             schema_latest_version() + 1, schema_latest_version());
    CHECK_CONTAINS(err, want);

    REQUIRE(file_bytes(t.path, &after, &after_len));
    CHECK(before_len == after_len && memcmp(before, after, before_len) == 0);
    CHECK(exists(wal)); /* the log is still there, not folded into the file */
    free(before);
    free(after);
    tmp_db_remove(&t);
}

/* A WAL-mode file stopped cleanly has no -wal or -shm beside it; a read-only open would create
 * both (and leave them), so the checks must open it without creating anything. */
static void test_open_refuses_clean_wal_database_without_creating_files(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    sqlite3 *db;
    REQUIRE(sqlite3_open(t.path, &db) == SQLITE_OK);
    char future[128], want[64];
    snprintf(future, sizeof future, "PRAGMA journal_mode = WAL; CREATE TABLE future(x); PRAGMA user_version = %d",
             schema_latest_version() + 1);
    snprintf(want, sizeof want, "has schema version %d", schema_latest_version() + 1);
    REQUIRE(sqlite3_exec(db, future, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db); /* the last connection: checkpoints and removes the -wal and -shm */
    char wal[192], shm[192];
    snprintf(wal, sizeof wal, "%s-wal", t.path);
    snprintf(shm, sizeof shm, "%s-shm", t.path);
    REQUIRE(!exists(wal) && !exists(shm));

    struct store *s;
    char err[512];
    CHECK_INT(store_open(t.path, &s, err, sizeof err), -1);
    CHECK_CONTAINS(err, want);
    CHECK(!exists(wal));
    CHECK(!exists(shm));
    tmp_db_remove(&t);
}

static void test_open_refuses_a_file_that_is_no_database(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    char text[4096];
    memset(text, 'n', sizeof text);
    int fd = open(t.path, O_CREAT | O_WRONLY, 0600);
    REQUIRE(fd >= 0);
    CHECK(write(fd, text, sizeof text) == (ssize_t)sizeof text);
    close(fd);
    struct store *s;
    char err[512], want[256];
    CHECK_INT(store_open(t.path, &s, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s is not a SQLite database (file is not a database); refusing to start", t.path);
    CHECK_STR(err, want);
    tmp_db_remove(&t);
}

static void test_open_refuses_corrupt_file_without_writing(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    struct store *s;
    char err[512];
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    struct journal_entry *e[] = {job_create(1, "train", "uid-1", T0_MS)};
    append(s, e, 1);
    store_close(s); /* commits on this thread (no writer started) and checkpoints the WAL away */

    /* Garbage over page 2 (the jobs table's root page; pages are 4096 bytes). */
    char garbage[4096];
    for (size_t i = 0; i < sizeof garbage; i++)
        garbage[i] = (char)(0xA5 ^ (i * 31));
    int fd = open(t.path, O_WRONLY);
    REQUIRE(fd >= 0);
    CHECK(pwrite(fd, garbage, sizeof garbage, 4096) == (ssize_t)sizeof garbage);
    close(fd);
    char *before, *after;
    size_t before_len, after_len;
    REQUIRE(file_bytes(t.path, &before, &before_len));

    s = (struct store *)1;
    CHECK_INT(store_open(t.path, &s, err, sizeof err), -1);
    CHECK(s == NULL);
    char want[256];
    snprintf(want, sizeof want, "database %s is corrupt: ", t.path);
    CHECK(strncmp(err, want, strlen(want)) == 0);
    CHECK_CONTAINS(err, "Page 2: ");
    CHECK_CONTAINS(err, "; refusing to start");
    CHECK(strchr(err, '\n') == NULL); /* one line, for the log */

    REQUIRE(file_bytes(t.path, &after, &after_len));
    CHECK(before_len == after_len && memcmp(before, after, before_len) == 0);
    free(before);
    free(after);
    tmp_db_remove(&t);
}

static void test_open_fails_when_directory_is_missing(void)
{
    struct store *s;
    char err[512];
    CHECK_INT(store_open("/tmp/caldera-no-such-dir/x/caldera.db", &s, err, sizeof err), -1);
    CHECK_CONTAINS(err, "cannot open database /tmp/caldera-no-such-dir/x/caldera.db");
}

/* ---- writer and recovery ------------------------------------------------------------------------ */

struct loaded_job {
    char uid[64], name[64], spec[128], status[128], phase[32], queue[32];
    int64_t created_ms;
    uint64_t rv;
    bool asleep;
};

struct loaded {
    int nqueues, njobs, nattempts;
    char queues[4][64];
    struct loaded_job jobs[8];
    struct store_attempt_row attempts[16]; /* strings copied below */
    char attempt_strings[16][4][64];       /* job_uid, pod, reason, log_path */
};

static int load_queue(void *ctx, const struct store_queue_row *row)
{
    struct loaded *l = ctx;
    snprintf(l->queues[l->nqueues++], 64, "%s", row->name);
    return 0;
}

static int load_job(void *ctx, const struct store_job_row *row)
{
    struct loaded *l = ctx;
    if (l->njobs == 8)
        return -1;
    struct loaded_job *j = &l->jobs[l->njobs++];
    snprintf(j->uid, sizeof j->uid, "%s", row->uid);
    snprintf(j->name, sizeof j->name, "%s", row->name);
    snprintf(j->spec, sizeof j->spec, "%s", row->spec_json ? row->spec_json : "(none)");
    snprintf(j->status, sizeof j->status, "%s", row->status_json ? row->status_json : "(none)");
    snprintf(j->phase, sizeof j->phase, "%s", row->phase);
    snprintf(j->queue, sizeof j->queue, "%s", row->queue);
    j->created_ms = row->created_ms;
    j->rv = row->resource_version;
    j->asleep = row->asleep;
    return 0;
}

static int load_attempt(void *ctx, const struct store_attempt_row *row)
{
    struct loaded *l = ctx;
    if (l->nattempts == 16)
        return -1;
    int i = l->nattempts++;
    l->attempts[i] = *row;
    const char *src[4] = {row->job_uid, row->pod, row->reason, row->log_path};
    const char **dst[4] = {&l->attempts[i].job_uid, &l->attempts[i].pod, &l->attempts[i].reason,
                           &l->attempts[i].log_path};
    for (int k = 0; k < 4; k++) {
        snprintf(l->attempt_strings[i][k], 64, "%s", src[k]);
        *dst[k] = l->attempt_strings[i][k];
    }
    return 0;
}

/* store_load into l (queues, jobs, attempts) from a fresh start: store_load's result, *max_seq set. */
static int load_rows(struct store *s, struct loaded *l, uint64_t *max_seq, char *err, size_t errlen)
{
    *l = (struct loaded){0};
    *max_seq = 0;
    struct store_loader loader = {.ctx = l, .queue = load_queue, .job = load_job, .attempt = load_attempt};
    return store_load(s, &loader, max_seq, err, errlen);
}

/* Garbage over page 2 of t's database (the jobs table's root page; pages are 4096 bytes), after one
 * committed job. */
static void make_corrupt_database(const struct tmp_db *t)
{
    struct store *s;
    char err[512];
    REQUIRE(store_open(t->path, &s, err, sizeof err) == 0);
    struct journal_entry *e[] = {job_create(1, "train", "uid-1", T0_MS)};
    append(s, e, 1);
    store_close(s);
    char garbage[4096];
    for (size_t i = 0; i < sizeof garbage; i++)
        garbage[i] = (char)(0xA5 ^ (i * 31));
    int fd = open(t->path, O_WRONLY);
    REQUIRE(fd >= 0);
    CHECK(pwrite(fd, garbage, sizeof garbage, 4096) == (ssize_t)sizeof garbage);
    close(fd);
}

static bool beside_exists(const char *path, const char *suffix)
{
    char p[600];
    snprintf(p, sizeof p, "%s%s", path, suffix);
    return access(p, F_OK) == 0;
}

/* The checks run beside the load: the load may read the corrupt file, but store_confirm refuses it
 * with the checks' sentence and nothing is written or created beside it. */
static void test_open_checking_refuses_corrupt_file_at_confirm(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    make_corrupt_database(&t);
    char *before, *after, err[512] = "";
    size_t before_len, after_len;
    REQUIRE(file_bytes(t.path, &before, &before_len));
    struct store *s = NULL;
    CHECK_INT(store_open_checking(t.path, &s, err, sizeof err), 0); /* the load's way: a clean file */
    REQUIRE(s != NULL);
    struct loaded l;
    uint64_t max_seq;
    load_rows(s, &l, &max_seq, err, sizeof err); /* may fail or not: the checks decide */
    err[0] = '\0';
    CHECK_INT(store_confirm(s, err, sizeof err), -1);
    char want[256];
    snprintf(want, sizeof want, "database %s is corrupt: ", t.path);
    CHECK(strncmp(err, want, strlen(want)) == 0);
    CHECK_CONTAINS(err, "; refusing to start");
    store_close(s);
    REQUIRE(file_bytes(t.path, &after, &after_len));
    CHECK(before_len == after_len && memcmp(before, after, before_len) == 0);
    CHECK(!beside_exists(t.path, "-wal") && !beside_exists(t.path, "-shm"));
    free(before);
    free(after);
    tmp_db_remove(&t);
}

/* A sound database: loaded before the checks end, then written after store_confirm. */
static void test_open_checking_loads_then_writes(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    struct store *s;
    char err[512];
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    struct journal_entry *e[] = {queue_put(1, "default"), job_create(2, "train", "uid-train", T0_MS)};
    append(s, e, 2);
    store_close(s);

    REQUIRE(store_open_checking(t.path, &s, err, sizeof err) == 0);
    CHECK_INT(store_committed_seq(s), 2);
    CHECK(!beside_exists(t.path, "-wal")); /* nothing opened for writing yet */
    struct loaded l;
    uint64_t max_seq;
    CHECK_INT(load_rows(s, &l, &max_seq, err, sizeof err), 0);
    CHECK_INT(max_seq, 2);
    CHECK(l.nqueues == 1 && l.njobs == 1);
    CHECK_INT(store_start_writer(s), -1); /* not on the read-only connection */
    confirm_then_write(s, 3, "third");
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    CHECK_INT(store_committed_seq(s), 3);
    store_close(s);
    tmp_db_remove(&t);
}

/* The size of the -wal beside the database at path, or -1 when there is none. */
static long long log_bytes(const char *path)
{
    char wal[600];
    struct stat st;
    snprintf(wal, sizeof wal, "%s-wal", path);
    return stat(wal, &st) == 0 ? (long long)st.st_size : -1;
}

/* Copies path and its -wal and -shm (where there) to the same names under to: the files a crash
 * leaves, taken while nothing writes. */
static void copy_crashed(const char *path, const char *to)
{
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char from[600], dest[600], *data;
        size_t len;
        snprintf(from, sizeof from, "%s%s", path, suffixes[i]);
        snprintf(dest, sizeof dest, "%s%s", to, suffixes[i]);
        if (!exists(from))
            continue;
        REQUIRE(file_bytes(from, &data, &len));
        CHECK_INT(write_file_atomic(dest, data, len, 0600), 0);
        free(data);
    }
}

/* After a crash the -wal holds committed pages: the load still runs beside the checks, reading the
 * log's pages, and nothing is folded into the file before store_confirm. */
static void test_open_checking_loads_beside_a_crashed_log(void)
{
    struct tmp_db t, crashed;
    REQUIRE(tmp_db_make(&t) && tmp_db_make(&crashed));
    struct store *s;
    char err[512];
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    REQUIRE(store_start_writer(s) == 0);
    struct journal_entry *e[] = {queue_put(1, "default"), job_create(2, "train", "uid-train", T0_MS),
                                 job_create(3, "eval", "uid-eval", T0_MS + 1)};
    append(s, e, 3);
    REQUIRE(store_wait(s, 3, 5000) == 0);
    copy_crashed(t.path, crashed.path); /* the server dies here: its log is not checkpointed */
    store_close(s);
    REQUIRE(log_bytes(crashed.path) > 0); /* committed pages not yet in the file */
    char *before, *after;
    size_t before_len, after_len;
    REQUIRE(file_bytes(crashed.path, &before, &before_len));

    REQUIRE(store_open_checking(crashed.path, &s, err, sizeof err) == 0);
    CHECK_INT(store_committed_seq(s), 3);
    CHECK_INT(store_start_writer(s), -1); /* the load's read-only connection: the checks still run */
    struct loaded l;
    uint64_t max_seq;
    CHECK_INT(load_rows(s, &l, &max_seq, err, sizeof err), 0);
    CHECK_INT(max_seq, 3);
    CHECK(l.nqueues == 1 && l.njobs == 2);
    REQUIRE(file_bytes(crashed.path, &after, &after_len));
    CHECK(before_len == after_len && memcmp(before, after, before_len) == 0); /* nothing checkpointed yet */
    confirm_then_write(s, 4, "fourth");
    CHECK_INT(tmp_db_query_int(crashed.path, "SELECT count(*) FROM jobs"), 2);
    CHECK_INT(tmp_db_query_int(crashed.path, "SELECT max(seq) FROM events"), 4);
    free(before);
    free(after);
    tmp_db_remove(&crashed);
    tmp_db_remove(&t);
}

static void test_writer_commits_and_load_rebuilds(void)
{
    OPEN_STORE_WITH_WRITER(t, s, err);
    struct journal_entry *e[] = {
        queue_put(1, "default"),
        job_create(2, "train", "uid-train", T0_MS + 10),
        job_create(3, "gone", "uid-gone", T0_MS + 5), /* created earlier: loads first if it lived */
        job_create(4, "eval", "uid-eval", T0_MS + 20),
        attempt_start(5, "train", "uid-train", "worker", 0, 1),
        attempt_end(6, "train", "uid-train", "worker", 0, 1, 137, "OOMKilled"),
        attempt_start(7, "train", "uid-train", "worker", 0, 2),
        attempt_start(8, "gone", "uid-gone", "worker", 0, 1),
        job_status(9, "train", "uid-train", "Pending", "Running"),
        attempt_start(10, "eval", "uid-eval", "main", 0, 1),
        job_delete(11, "gone", "uid-gone", "Pending"),
        plain_event(12, "a pod event"),
    };
    append(s, e, 12);
    CHECK_INT(store_wait(s, 12, 5000), 0);
    CHECK_INT(store_committed_seq(s), 12);
    char health[256];
    CHECK(store_health(s, health, sizeof health) == NULL);
    store_close(s);

    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    CHECK_INT(store_committed_seq(s), 12);
    struct loaded l;
    uint64_t max_seq;
    CHECK_INT(load_rows(s, &l, &max_seq, err, sizeof err), 0);
    CHECK_INT(max_seq, 12);
    REQUIRE(l.nqueues == 1 && l.njobs == 2 && l.nattempts == 3);
    CHECK_STR(l.queues[0], "default");
    CHECK_STR(l.jobs[0].uid, "uid-train"); /* creation order; the deleted job is not loaded */
    CHECK_INT(l.jobs[0].created_ms, T0_MS + 10);
    CHECK_INT(l.jobs[0].rv, 9); /* the JOB_STATUS event's seq */
    CHECK_STR(l.jobs[0].status, "{\"state\":{\"phase\":\"Running\"}}");
    CHECK_STR(l.jobs[0].spec, "{\"tasks\":[{\"name\":\"worker\",\"replicas\":2}]}");
    CHECK_STR(l.jobs[1].uid, "uid-eval");
    CHECK_INT(l.jobs[1].rv, 10); /* its last event: a pod's attempt started (a pod's change is its job's) */

    /* a job's attempts together, jobs in uid order: uid-eval's, then uid-train's */
    CHECK_STR(l.attempts[0].job_uid, "uid-eval");
    CHECK_STR(l.attempts[0].pod, "eval-main-0");
    CHECK(!l.attempts[0].ended);
    const struct store_attempt_row *a = l.attempts + 1;
    CHECK_STR(a[0].job_uid, "uid-train");
    CHECK_STR(a[0].pod, "train-worker-0");
    CHECK_INT(a[0].attempt, 1);
    CHECK(a[0].ended);
    CHECK_INT(a[0].exit_code, 137);
    CHECK_STR(a[0].reason, "OOMKilled");
    CHECK_INT(a[0].end_ms, T0_MS + 6000);
    CHECK_INT(a[0].pid, 4005);
    CHECK_INT(a[0].pid_start, 123456);
    CHECK_STR(a[0].log_path, "logs/train-worker-0/1.log");
    CHECK_STR(a[1].pod, "train-worker-0");
    CHECK_INT(a[1].attempt, 2);
    CHECK(!a[1].ended); /* still running when the server stopped */
    CHECK_STR(a[1].reason, "");

    /* The loader may stop the load. */
    struct loaded full = {0};
    full.njobs = 8;
    struct store_loader refusing = {.ctx = &full, .job = load_job};
    CHECK_INT(store_load(s, &refusing, &max_seq, err, sizeof err), -1);
    CHECK_CONTAINS(err, "loading jobs stopped");
    store_close(s);

    /* The deleted job's history survives. */
    struct store_reader *r;
    struct api_status st = {0};
    REQUIRE(store_reader_open(t.path, &r, &st) == 0);
    json_t *h;
    REQUIRE(store_job_history(r, "default", "gone", NULL, &h, &st) == 0);
    CHECK_STR(json_string_value(json_object_get(json_object_get(h, "metadata"), "uid")), "uid-gone");
    CHECK(json_is_string(json_object_get(json_object_get(h, "metadata"), "deletionTimestamp")));
    CHECK_INT(json_array_size(json_object_get(h, "attempts")), 1);
    json_decref(h);
    store_reader_close(r);
    tmp_db_remove(&t);
}

/* A job created in queue `queue`, its spec with ttlSecondsAfterFinished when ttl >= 0. */
static struct journal_entry *job_create_in(uint64_t seq, const char *name, const char *uid, int64_t created_ms,
                                           const char *queue, int ttl)
{
    struct journal_entry *e = job_create(seq, name, uid, created_ms);
    char spec[256];
    if (ttl >= 0)
        snprintf(spec, sizeof spec, "{\"spec\":{\"queue\":\"%s\",\"ttlSecondsAfterFinished\":%d}}", queue, ttl);
    else
        snprintf(spec, sizeof spec, "{\"spec\":{\"queue\":\"%s\"}}", queue);
    free(e->spec_json);
    e->spec_json = strdup(spec);
    return e;
}

/* The load reads a sleeping job (finished for good in a queue, no TTL) from its index alone: its head
 * columns, no spec or status, none of its ended attempts; the jobs come merged in creation order; a
 * sleeping job's attempt still open comes after the awake jobs' attempts; a finished job with a TTL,
 * or without a queue, is awake; a deleted job and its open attempt stay out. */
static void test_load_reads_sleeping_jobs_from_their_index(void)
{
    OPEN_STORE_WITH_WRITER(t, s, err);
    struct journal_entry *e[] = {
        job_create_in(1, "a-done", "uid-a", T0_MS + 10, "default", -1),
        job_create_in(2, "b-run", "uid-b", T0_MS + 20, "default", -1),
        job_create_in(3, "c-lost", "uid-c", T0_MS + 30, "default", -1),
        job_create_in(4, "d-ttl", "uid-d", T0_MS + 40, "default", 60),
        job_create_in(5, "e-gone", "uid-e", T0_MS + 5, "default", -1),
        job_create(6, "f-noqueue", "uid-f", T0_MS + 50),
        attempt_start(7, "a-done", "uid-a", "worker", 0, 1),
        attempt_end(8, "a-done", "uid-a", "worker", 0, 1, 0, "Completed"),
        attempt_start(9, "b-run", "uid-b", "worker", 0, 1),
        attempt_start(10, "c-lost", "uid-c", "worker", 1, 1),
        attempt_start(11, "e-gone", "uid-e", "worker", 0, 1),
        attempt_start(12, "d-ttl", "uid-d", "worker", 0, 1),
        attempt_end(13, "d-ttl", "uid-d", "worker", 0, 1, 0, "Completed"),
        job_status(14, "a-done", "uid-a", "Running", "Completed"),
        job_status(15, "c-lost", "uid-c", "Running", "Completed"),
        job_status(16, "d-ttl", "uid-d", "Running", "Completed"),
        job_status(17, "e-gone", "uid-e", "Running", "Failed"),
        job_delete(18, "e-gone", "uid-e", "Failed"),
        job_status(19, "f-noqueue", "uid-f", "Running", "Terminated"),
        job_status(20, "b-run", "uid-b", "Pending", "Running"),
    };
    append(s, e, 20);
    REQUIRE(store_wait(s, 20, 5000) == 0);
    store_close(s);

    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    struct loaded l = {0};
    struct store_loader loader = {.ctx = &l, .job = load_job, .attempt = load_attempt};
    uint64_t max_seq = 0;
    CHECK_INT(store_load(s, &loader, &max_seq, err, sizeof err), 0);
    store_close(s);
    REQUIRE(l.njobs == 5);
    static const char *const order[] = {"a-done", "b-run", "c-lost", "d-ttl", "f-noqueue"};
    static const bool asleep[] = {true, false, true, false, false};
    for (int i = 0; i < 5; i++) {
        CHECK_STR(l.jobs[i].name, order[i]);
        CHECK_INT(l.jobs[i].asleep, asleep[i]);
        if (asleep[i])
            CHECK_STR(l.jobs[i].spec, "(none)");
        else
            CHECK_CONTAINS(l.jobs[i].spec, "{");
    }
    CHECK_STR(l.jobs[0].phase, "Completed");
    CHECK_STR(l.jobs[0].queue, "default");
    CHECK_INT(l.jobs[0].rv, 14);
    CHECK_STR(l.jobs[0].uid, "uid-a");
    CHECK_INT(l.jobs[0].created_ms, T0_MS + 10);
    CHECK_STR(l.jobs[1].status, "{\"state\":{\"phase\":\"Running\"}}");
    /* b's and d's attempts (awake, by uid), then c's open one; a's ended one and e's are never read */
    REQUIRE(l.nattempts == 3);
    CHECK_STR(l.attempts[0].job_uid, "uid-b");
    CHECK_STR(l.attempts[1].job_uid, "uid-d");
    CHECK(l.attempts[1].ended);
    CHECK_STR(l.attempts[2].job_uid, "uid-c");
    CHECK_STR(l.attempts[2].pod, "c-lost-worker-1");
    CHECK(!l.attempts[2].ended);
    tmp_db_remove(&t);
}

/* store_load_job reads one job's row and its attempts, as store_load delivers them, from what the
 * writer committed last (while it runs, on a connection of its own; before, on the store's); a job it
 * does not have is 0. */
static void test_load_job_reads_one_job_and_its_attempts(void)
{
    OPEN_STORE_WITH_WRITER(t, s, err);
    struct journal_entry *e[] = {
        job_create(1, "train", "uid-train", T0_MS),
        job_create(2, "eval", "uid-eval", T0_MS + 10),
        attempt_start(3, "train", "uid-train", "worker", 1, 1),
        attempt_start(4, "train", "uid-train", "worker", 0, 1),
        attempt_end(5, "train", "uid-train", "worker", 0, 1, 0, "Completed"),
        attempt_start(6, "eval", "uid-eval", "main", 0, 1),
        job_status(7, "train", "uid-train", "Running", "Completed"),
    };
    append(s, e, 7);
    REQUIRE(store_wait(s, 7, 5000) == 0);
    struct loaded l = {0};
    struct store_loader loader = {.ctx = &l, .job = load_job, .attempt = load_attempt};
    CHECK_INT(store_load_job(s, "uid-train", &loader, err, sizeof err), 1);
    REQUIRE(l.njobs == 1 && l.nattempts == 2);
    CHECK_STR(l.jobs[0].name, "train");
    CHECK_STR(l.jobs[0].status, "{\"state\":{\"phase\":\"Completed\"}}");
    CHECK_INT(l.jobs[0].rv, 7);
    CHECK_STR(l.attempts[0].pod, "train-worker-0"); /* by pod, then attempt; never the other job's */
    CHECK(l.attempts[0].ended);
    CHECK_STR(l.attempts[0].reason, "Completed");
    CHECK_STR(l.attempts[1].pod, "train-worker-1");
    CHECK(!l.attempts[1].ended);
    /* what the writer commits later is read the next time */
    struct journal_entry *later[] = {attempt_end(8, "train", "uid-train", "worker", 1, 1, 3, "Error")};
    append(s, later, 1);
    REQUIRE(store_wait(s, 8, 5000) == 0);
    l = (struct loaded){0};
    CHECK_INT(store_load_job(s, "uid-train", &loader, err, sizeof err), 1);
    REQUIRE(l.nattempts == 2);
    CHECK(l.attempts[1].ended);
    CHECK_INT(l.attempts[1].exit_code, 3);
    l = (struct loaded){0};
    CHECK_INT(store_load_job(s, "uid-nosuch", &loader, err, sizeof err), 0);
    CHECK_INT(l.njobs + l.nattempts, 0);
    store_close(s);
    /* before the writer starts (the start-up's load), on the store's own connection */
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    l = (struct loaded){0};
    CHECK_INT(store_load_job(s, "uid-eval", &loader, err, sizeof err), 1);
    REQUIRE(l.njobs == 1 && l.nattempts == 1);
    CHECK_STR(l.attempts[0].pod, "eval-main-0");
    store_close(s);
    tmp_db_remove(&t);
}

struct loaded_objects {
    int n;
    char rows[8][4][96]; /* kind, namespace, name, json */
};

static int load_object(void *ctx, const struct store_object_row *row)
{
    struct loaded_objects *l = ctx;
    if (l->n == 8)
        return -1;
    const char *src[4] = {row->kind, row->ns, row->name, row->json};
    for (int k = 0; k < 4; k++)
        snprintf(l->rows[l->n][k], 96, "%s", src[k]);
    l->n++;
    return 0;
}

/* Queues are put and deleted; PriorityClasses and ResourceQuotas live in `objects`, keyed by kind,
 * namespace and name, and come back in that order (after queues, before jobs). */
static void test_object_rows_put_delete_and_load(void)
{
    OPEN_STORE_WITH_WRITER(t, s, err);
    struct journal_entry *e[] = {
        queue_put(1, "default"),
        queue_put(2, "short-lived"),
        object_change(3, "ResourceQuota", "team-b", "compute", "{\"spec\":{\"hard\":{\"cpu\":\"4\"}}}"),
        object_change(4, "PriorityClass", "", "high", "{\"value\":1000}"),
        object_change(5, "PriorityClass", "", "low", "{\"value\":1}"),
        object_change(6, "ResourceQuota", "team-a", "compute", "{\"spec\":{}}"),
        object_change(7, "PriorityClass", "", "high", "{\"value\":1000,\"description\":\"x\"}"), /* replaces */
        object_change(8, "PriorityClass", "", "low", NULL),
        queue_delete(9, "short-lived"),
    };
    append(s, e, 9);
    CHECK_INT(store_wait(s, 9, 5000), 0);
    store_close(s);

    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events WHERE kind IN ('PriorityClass', 'ResourceQuota')"),
              6);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM queues"), 1);
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    struct loaded queues = {0};
    struct loaded_objects objects = {0};
    struct store_loader loader = {.ctx = &objects, .object = load_object};
    uint64_t max_seq = 0;
    CHECK_INT(store_load(s, &loader, &max_seq, err, sizeof err), 0);
    CHECK_INT(max_seq, 9);
    REQUIRE(objects.n == 3);
    CHECK_STR(objects.rows[0][0], "PriorityClass");
    CHECK_STR(objects.rows[0][1], "");
    CHECK_STR(objects.rows[0][2], "high");
    CHECK_STR(objects.rows[0][3], "{\"value\":1000,\"description\":\"x\"}");
    CHECK_STR(objects.rows[1][0], "ResourceQuota");
    CHECK_STR(objects.rows[1][1], "team-a");
    CHECK_STR(objects.rows[2][1], "team-b");
    CHECK_STR(objects.rows[2][3], "{\"spec\":{\"hard\":{\"cpu\":\"4\"}}}");
    struct store_loader queue_loader = {.ctx = &queues, .queue = load_queue};
    CHECK_INT(store_load(s, &queue_loader, &max_seq, err, sizeof err), 0);
    REQUIRE(queues.nqueues == 1);
    CHECK_STR(queues.queues[0], "default");
    store_close(s);
    tmp_db_remove(&t);
}

static void test_close_without_writer_commits_queue(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    struct store *s;
    char err[512];
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    store_close(s); /* nothing queued, no writer: just closes */
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    append_events(s, 1, 5, "");
    store_close(s);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events"), 5);
    tmp_db_remove(&t);
}

/* ---- group commit and waiters --------------------------------------------------------------------- */

/* A burst that leaves a long log (past STORE_TRUNCATE_FRAMES pages): once the writer is idle and the
 * log is copied back, the -wal is emptied, so a crash then leaves nothing for the next start to read
 * through; what was written is all in the file. */
static void test_long_log_is_emptied_once_copied_back(void)
{
    OPEN_STORE_WITH_WRITER(t, s, err);
    char padding[2048];
    memset(padding, 'x', sizeof padding - 1);
    padding[sizeof padding - 1] = '\0';
    enum { EVENTS = 20000 }; /* ~2 KiB each: ~10,000 pages of events, past the threshold */
    append_events(s, 1, EVENTS, padding);
    REQUIRE(store_wait(s, EVENTS, 60000) == 0);
    for (int tries = 0; tries < 100 && log_bytes(t.path) != 0; tries++)
        usleep(50 * 1000); /* the writer checkpoints after publishing the commit */
    CHECK_INT(log_bytes(t.path), 0);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT count(*) FROM events"), EVENTS);
    store_close(s);
    tmp_db_remove(&t);
}

static void test_group_commit_100k_events(void)
{
    enum { TOTAL = 100000, CHUNK = 100 };
    OPEN_STORE_WITH_WRITER(t, s, err);

    /* Built beforehand, so the rate measures the store rather than strdup. */
    struct journal_list *chunks = calloc(TOTAL / CHUNK, sizeof *chunks);
    REQUIRE(chunks);
    for (int c = 0; c < TOTAL / CHUNK; c++) {
        for (int i = 0; i < CHUNK; i++) {
            uint64_t seq = (uint64_t)c * CHUNK + (uint64_t)i + 1;
            char msg[64], uid[32];
            snprintf(msg, sizeof msg, "event %llu", (unsigned long long)seq);
            snprintf(uid, sizeof uid, "uid-%d", (int)(seq % 1000));
            journal_list_push(
                &chunks[c], new_entry(JOURNAL_EVENT, seq,
                                      (struct ev){"Pod", "default", "pod", uid, "Pending", "Running", "Started", msg}));
        }
    }
    int64_t start = clock_mono_ms();
    for (int c = 0; c < TOTAL / CHUNK; c++)
        store_append(s, &chunks[c]);
    CHECK_INT(store_wait(s, TOTAL, 120000), 0);
    int64_t elapsed = clock_mono_ms() - start;
    pthread_mutex_lock(&s->mu);
    unsigned long long commits = s->commits;
    pthread_mutex_unlock(&s->mu);
    printf("# group commit: %d events in %lld ms = %.0f events/s, %llu transactions\n", TOTAL, (long long)elapsed,
           elapsed > 0 ? TOTAL * 1000.0 / (double)elapsed : 0.0, commits);
    CHECK_INT(store_committed_seq(s), TOTAL);
    CHECK(commits >= TOTAL / STORE_BATCH_MAX); /* a transaction never takes more than the cap */
    store_close(s);
    free(chunks);

    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events"), TOTAL);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT MIN(seq) FROM events"), 1);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT MAX(seq) FROM events"), TOTAL);
    /* each row holds its own entry: nothing shifted, duplicated or reordered */
    CHECK_INT(tmp_db_query_int(t.path,
                               "SELECT COUNT(*) FROM events WHERE message != 'event ' || seq"
                               " OR time_ms != 1763800000000 + seq * 1000"),
              0);
    tmp_db_remove(&t);
}

struct waiter {
    struct store *s;
    uint64_t seq;
    int timeout_ms;
    int result;
    uint64_t seen; /* committed_seq right after the wait returned */
};

static void *wait_thread(void *arg)
{
    struct waiter *w = arg;
    w->result = store_wait(w->s, w->seq, w->timeout_ms);
    w->seen = store_committed_seq(w->s);
    return NULL;
}

static void test_concurrent_waiters_wake_at_their_seq(void)
{
    enum { WAITERS = 8, STEP = 500 };
    OPEN_STORE_WITH_WRITER(t, s, err);

    struct waiter w[WAITERS + 1];
    pthread_t th[WAITERS + 1];
    for (int i = 0; i < WAITERS; i++)
        w[i] = (struct waiter){s, (uint64_t)(WAITERS - i) * STEP, 20000, -2, 0};
    w[WAITERS] = (struct waiter){s, 1000000, 300, -2, 0}; /* never committed: times out */
    for (int i = 0; i <= WAITERS; i++)
        REQUIRE(pthread_create(&th[i], NULL, wait_thread, &w[i]) == 0);

    struct timespec pause = {0, 2 * 1000000L};
    for (uint64_t first = 1; first <= WAITERS * STEP; first += 50) {
        append_events(s, first, first + 49, "");
        nanosleep(&pause, NULL);
    }
    for (int i = 0; i <= WAITERS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < WAITERS; i++) {
        CHECK_INT(w[i].result, 0);
        CHECK(w[i].seen >= w[i].seq);
    }
    CHECK_INT(w[WAITERS].result, -1);
    CHECK_INT(store_wait(s, 0, 0), 0);
    CHECK_INT(store_wait(s, WAITERS * STEP, 0), 0); /* already committed: no wait at all */
    store_close(s);
    tmp_db_remove(&t);
}

/* ---- failing disk ------------------------------------------------------------------------------------ */

static void test_disk_full_keeps_batch_and_recovers(void)
{
    OPEN_STORE_WITH_WRITER(t, s, err);
    append_events(s, 1, 10, "");
    REQUIRE(store_wait(s, 10, 5000) == 0);

    /* Freeze the file at its size; 300 events of 2 KB need new pages, so the commit fails. */
    static char padding[2048];
    memset(padding, 'x', sizeof padding - 1);
    store_test_set_max_pages(s, 1);
    append_events(s, 11, 310, padding);
    CHECK_INT(store_wait(s, 310, 600), -1);
    CHECK_INT(store_committed_seq(s), 10);
    char health[512];
    const char *h = store_health(s, health, sizeof health);
    CHECK_STR(h, "database or disk is full (SQLITE_FULL) while committing events 11-310");
    CHECK_INT(store_failure_kind(s, NULL, 0), STORE_FAILURE_DISK_FULL);

    /* More work while failing queues behind the failing batch. */
    append_events(s, 311, 320, "");
    CHECK_INT(store_wait(s, 311, 200), -1);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events"), 10); /* what was acknowledged is there */

    store_test_set_max_pages(s, 1073741823);
    CHECK_INT(store_wait(s, 320, 10000), 0);
    CHECK(store_health(s, health, sizeof health) == NULL);
    CHECK_INT(store_failure_kind(s, health, sizeof health), STORE_FAILURE_NONE);
    store_close(s);

    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events"), 320);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(DISTINCT seq) FROM events WHERE seq BETWEEN 1 AND 320"), 320);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events WHERE message NOT LIKE 'event ' || seq || '%'"), 0);
    tmp_db_remove(&t);
}

/* At close a disk that stays full is retried for a few seconds, then the rest is dropped and counted
 * in the log (and freed: the sanitizer build checks). */
static void test_close_gives_up_on_a_disk_that_stays_full(void)
{
    OPEN_STORE_WITH_WRITER(t, s, err);
    static char padding[2048];
    memset(padding, 'y', sizeof padding - 1);
    store_test_set_max_pages(s, 1);
    append_events(s, 1, 300, padding);
    CHECK_INT(store_wait(s, 300, 100), -1);
    int64_t start = clock_mono_ms();
    store_close(s);
    int64_t took = clock_mono_ms() - start;
    CHECK(took >= STORE_CLOSE_DRAIN_MS - 100 && took < STORE_CLOSE_DRAIN_MS + 2500);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events"), 0);
    tmp_db_remove(&t);
}

/* A job created while commits fail can be withdrawn: none of its entries is ever written, while the
 * rest of the failing batch is; a withdrawal of a job whose creation is committed says so. */
static void test_withdrawn_job_is_never_written(void)
{
    OPEN_STORE_WITH_WRITER(t, s, err);
    struct journal_entry *kept[] = {job_create(1, "kept", "k-1", T0_MS)};
    append(s, kept, 1);
    REQUIRE(store_wait(s, 1, 5000) == 0);
    CHECK_INT(store_withdraw_job(s, "k-1", 1), STORE_WITHDRAW_LANDED);

    static char padding[2048];
    memset(padding, 'w', sizeof padding - 1);
    store_test_set_max_pages(s, 1);
    struct journal_list batch = {0}; /* one list: the job's entries fail with the padding's pages */
    journal_list_push(&batch, job_create(2, "gone", "g-1", T0_MS));
    journal_list_push(&batch, job_status(3, "gone", "g-1", "Pending", "Running"));
    for (uint64_t seq = 4; seq <= 300; seq++) {
        char msg[4096];
        snprintf(msg, sizeof msg, "event %llu%s", (unsigned long long)seq, padding);
        journal_list_push(&batch, plain_event(seq, msg));
    }
    store_append(s, &batch);
    CHECK_INT(store_wait(s, 2, 600), -1);
    CHECK_INT(store_withdraw_job(s, "g-1", 2), STORE_WITHDRAWN);
    struct journal_entry *removal[] = {job_delete(301, "gone", "g-1", "Running")};
    append(s, removal, 1);
    store_withdraw_seal(s, "g-1", 301);

    store_test_set_max_pages(s, 1073741823);
    CHECK_INT(store_wait(s, 301, 10000), 0);
    CHECK_INT(store_committed_seq(s), 301);
    store_close(s);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM jobs WHERE uid = 'g-1'"), 0);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events WHERE job_uid = 'g-1'"), 0);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM jobs WHERE uid = 'k-1'"), 1);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events WHERE seq BETWEEN 4 AND 300"), 297);
    tmp_db_remove(&t);
}

/* ---- history --------------------------------------------------------------------------------------- */

static const char *str_at(json_t *arr, size_t i, const char *key)
{
    return json_string_value(json_object_get(json_array_get(arr, i), key));
}

static void check_history_document(json_t *h)
{
    char ts[RFC3339_LEN];
    CHECK_STR(json_string_value(json_object_get(h, "apiVersion")), "caldera.io/v1");
    CHECK_STR(json_string_value(json_object_get(h, "kind")), "JobHistory");
    json_t *meta = json_object_get(h, "metadata");
    CHECK_STR(json_string_value(json_object_get(meta, "name")), "demo");
    CHECK_STR(json_string_value(json_object_get(meta, "namespace")), "default");
    CHECK_STR(json_string_value(json_object_get(meta, "uid")), "uid-demo");
    CHECK_STR(json_string_value(json_object_get(meta, "creationTimestamp")), rfc3339_ms(T0_MS + 123, ts));
    CHECK(json_object_get(meta, "deletionTimestamp") == NULL);
    CHECK_STR(json_string_value(json_object_get(h, "phase")), "Completed");

    json_t *tr = json_object_get(h, "transitions");
    REQUIRE(json_array_size(tr) == 3); /* the job's own events only, not its pods' */
    CHECK_INT(json_integer_value(json_object_get(json_array_get(tr, 0), "seq")), 1);
    CHECK_STR(str_at(tr, 0, "from"), "");
    CHECK_STR(str_at(tr, 0, "to"), "Pending");
    CHECK_STR(str_at(tr, 0, "time"), rfc3339_ms(T0_MS + 1000, ts));
    CHECK_INT(json_integer_value(json_object_get(json_array_get(tr, 1), "seq")), 3);
    CHECK_STR(str_at(tr, 1, "from"), "Pending");
    CHECK_STR(str_at(tr, 1, "to"), "Running");
    CHECK_INT(json_integer_value(json_object_get(json_array_get(tr, 2), "seq")), 8);
    CHECK_STR(str_at(tr, 2, "to"), "Completed");
    CHECK_STR(str_at(tr, 2, "reason"), "");
    CHECK_STR(str_at(tr, 2, "message"), "");

    json_t *at = json_object_get(h, "attempts");
    REQUIRE(json_array_size(at) == 4); /* by task, index, attempt, whatever order they happened in */
    CHECK_STR(str_at(at, 0, "pod"), "demo-master-0");
    CHECK_STR(str_at(at, 1, "pod"), "demo-worker-0");
    CHECK_INT(json_integer_value(json_object_get(json_array_get(at, 1), "attempt")), 1);
    CHECK_STR(str_at(at, 2, "pod"), "demo-worker-0");
    CHECK_INT(json_integer_value(json_object_get(json_array_get(at, 2), "attempt")), 2);
    CHECK_STR(str_at(at, 3, "pod"), "demo-worker-1");

    json_t *ended = json_array_get(at, 1), *running = json_array_get(at, 2);
    CHECK_STR(json_string_value(json_object_get(ended, "task")), "worker");
    CHECK_INT(json_integer_value(json_object_get(ended, "index")), 0);
    CHECK_INT(json_integer_value(json_object_get(ended, "jobVersion")), 1);
    CHECK_STR(json_string_value(json_object_get(ended, "node")), "node-a");
    CHECK_INT(json_integer_value(json_object_get(ended, "pid")), 4002);
    CHECK_STR(json_string_value(json_object_get(ended, "startTime")), rfc3339_ms(T0_MS + 2000, ts));
    CHECK_STR(json_string_value(json_object_get(ended, "finishTime")), rfc3339_ms(T0_MS + 5000, ts));
    CHECK_INT(json_integer_value(json_object_get(ended, "exitCode")), 1);
    CHECK_STR(json_string_value(json_object_get(ended, "reason")), "Error");
    CHECK_STR(json_string_value(json_object_get(ended, "message")), "process exited");
    CHECK_STR(json_string_value(json_object_get(ended, "logPath")), "logs/demo-worker-0/1.log");
    CHECK(json_is_null(json_object_get(running, "finishTime")));
    CHECK(json_is_null(json_object_get(running, "exitCode")));
    CHECK_STR(json_string_value(json_object_get(running, "reason")), "");
}

static void write_demo_job(struct store *s)
{
    struct journal_entry *e[] = {
        job_create(1, "demo", "uid-demo", T0_MS + 123),
        attempt_start(2, "demo", "uid-demo", "worker", 0, 1),
        job_status(3, "demo", "uid-demo", "Pending", "Running"),
        attempt_start(4, "demo", "uid-demo", "worker", 1, 1),
        attempt_end(5, "demo", "uid-demo", "worker", 0, 1, 1, "Error"),
        attempt_start(6, "demo", "uid-demo", "worker", 0, 2),
        attempt_start(7, "demo", "uid-demo", "master", 0, 1),
        job_status(8, "demo", "uid-demo", "Running", "Completed"),
    };
    append(s, e, 8);
}

static void test_history_of_a_job(void)
{
    OPEN_STORE_WITH_WRITER(t, s, err);
    write_demo_job(s);
    REQUIRE(store_wait(s, 8, 5000) == 0);

    /* Read while the writer's connection is open: WAL lets a read-only connection see commits. */
    struct store_reader *r;
    struct api_status st = {0};
    REQUIRE(store_reader_open(t.path, &r, &st) == 0);
    json_t *h = NULL;
    REQUIRE(store_job_history(r, "default", "demo", NULL, &h, &st) == 0);
    check_history_document(h);
    json_decref(h);

    st = (struct api_status){0};
    CHECK_INT(store_job_history(r, "default", "missing", NULL, &h, &st), -1);
    CHECK(h == NULL);
    CHECK_INT(st.code, 404);
    CHECK_STR(st.reason, "NotFound");
    CHECK_STR(st.message, "jobs.batch.volcano.sh \"missing\" not found");
    CHECK_STR(st.kind, "jobs");
    CHECK_STR(st.group, "batch.volcano.sh");
    CHECK_STR(st.name, "missing");
    st = (struct api_status){0};
    CHECK_INT(store_job_history(r, "other", "demo", NULL, &h, &st), -1); /* names are per namespace */
    CHECK_INT(st.code, 404);

    store_reader_close(r);
    store_close(s);
    tmp_db_remove(&t);
}

static const char *history_uid(struct store_reader *r, const char *name, bool *deleted)
{
    static char uid[64];
    struct api_status st = {0};
    json_t *h;
    if (store_job_history(r, "default", name, NULL, &h, &st) != 0)
        return "(error)";
    json_t *meta = json_object_get(h, "metadata");
    snprintf(uid, sizeof uid, "%s", json_string_value(json_object_get(meta, "uid")));
    *deleted = json_object_get(meta, "deletionTimestamp") != NULL;
    json_decref(h);
    return uid;
}

static void test_history_newest_job_wins_when_name_reused(void)
{
    OPEN_STORE_WITH_WRITER(t, s, err);
    struct store_reader *r;
    struct api_status st = {0};
    REQUIRE(store_reader_open(t.path, &r, &st) == 0);
    bool deleted;

    struct journal_entry *first[] = {job_create(1, "reuse", "uid-1", T0_MS + 1000),
                                     job_delete(2, "reuse", "uid-1", "Pending"),
                                     job_create(3, "reuse", "uid-2", T0_MS + 2000)};
    append(s, first, 3);
    REQUIRE(store_wait(s, 3, 5000) == 0);
    CHECK_STR(history_uid(r, "reuse", &deleted), "uid-2"); /* the live one */
    CHECK(!deleted);

    struct journal_entry *second[] = {job_delete(4, "reuse", "uid-2", "Pending")};
    append(s, second, 1);
    REQUIRE(store_wait(s, 4, 5000) == 0);
    CHECK_STR(history_uid(r, "reuse", &deleted), "uid-2"); /* the most recently created deleted one */
    CHECK(deleted);

    /* A live job wins over a deleted one even when the deleted one was created later. */
    struct journal_entry *third[] = {job_create(5, "reuse", "uid-3", T0_MS + 1500)};
    append(s, third, 1);
    REQUIRE(store_wait(s, 5, 5000) == 0);
    CHECK_STR(history_uid(r, "reuse", &deleted), "uid-3");
    CHECK(!deleted);

    store_reader_close(r);
    store_close(s);
    tmp_db_remove(&t);
}

/* Version 4's rows: a job's tasks from its spec at creation, replaced by a spec change; an attempt's
 * cgroup; a node; a command keyed by its event. */
static void test_tasks_nodes_commands_and_cgroup_written(void)
{
    OPEN_STORE_WITH_WRITER(t, s, err);
    struct journal_entry *create = job_create(1, "train", "uid-train", T0_MS);
    free(create->spec_json);
    create->spec_json = strdup(
        "{\"spec\":{\"tasks\":[{\"name\":\"ps\",\"replicas\":1,\"template\":{\"a\":1}},"
        "{\"name\":\"worker\",\"replicas\":4,\"minAvailable\":2}]}}");
    struct journal_entry *start = attempt_start(2, "train", "uid-train", "worker", 0, 1);
    start->attempt.cgroup = strdup("0::/caldera/uid-train/train-worker-0.1");
    struct journal_entry *spec = new_entry(
        JOURNAL_JOB_SPEC, 3, (struct ev){"Job", "default", "train", "uid-train", "Running", "Running", "", ""});
    spec->job_uid = strdup("uid-train");
    spec->spec_json = strdup("{\"spec\":{\"tasks\":[{\"name\":\"worker\",\"replicas\":6,\"minAvailable\":2}]}}");
    struct journal_entry *node = new_entry(JOURNAL_NODE_PUT, 4,
                                           (struct ev){"Node", "", "node-a", "", "", "Ready", "", ""});
    node->node_name = strdup("node-a");
    node->node_json = strdup("{\"kind\":\"Node\"}");
    struct journal_entry *cmd = new_entry(
        JOURNAL_COMMAND, 5, (struct ev){"Job", "default", "train", "uid-train", "Running", "Running", "", ""});
    cmd->job_uid = strdup("uid-train");
    cmd->ns = strdup("default");
    cmd->name = strdup("train");
    cmd->command_action = strdup("AbortJob");
    cmd->command_reason = strdup("by hand");
    cmd->command_json = strdup("{\"kind\":\"Command\"}");
    struct journal_entry *e[] = {create, start, spec, node, cmd};
    append(s, e, 5);
    CHECK_INT(store_wait(s, 5, 5000), 0);
    store_close(s);

    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM tasks WHERE job_uid = 'uid-train'"), 1);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT replicas * 10 + min_available FROM tasks WHERE name = 'worker'"), 62);
    CHECK_INT(tmp_db_query_int(t.path,
                               "SELECT COUNT(*) FROM attempts WHERE cgroup = "
                               "'0::/caldera/uid-train/train-worker-0.1'"),
              1);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT updated_ms FROM nodes WHERE name = 'node-a' AND json LIKE '%Node%'"),
              T0_MS + 4000);
    CHECK_INT(tmp_db_query_int(t.path,
                               "SELECT seq FROM commands WHERE job_uid = 'uid-train' AND action = 'AbortJob'"
                               " AND reason = 'by hand' AND job_name = 'train' AND namespace = 'default'"),
              5);
    CHECK_INT(tmp_db_query_int(t.path, "SELECT COUNT(*) FROM events"), 5);
    tmp_db_remove(&t);
}

static uint64_t commits_of(struct store *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t n = s->commits;
    pthread_mutex_unlock(&s->mu);
    return n;
}

/* With a commit delay the writer holds a small batch back for more entries (bounded by the delay),
 * so entries appended apart commit together; without one it commits at once. */
static void test_commit_delay_gathers_a_batch(void)
{
    struct tmp_db t;
    REQUIRE(tmp_db_make(&t));
    struct store *s;
    char err[512];
    REQUIRE(store_open(t.path, &s, err, sizeof err) == 0);
    store_set_commit_delay(s, 400);
    REQUIRE(store_start_writer(s) == 0);
    struct journal_entry *first[] = {plain_event(1, "first")};
    append(s, first, 1);
    CHECK_INT(store_wait(s, 1, 100), -1); /* held back: the delay has not passed */
    struct journal_entry *more[] = {plain_event(2, "second"), plain_event(3, "third")};
    append(s, more, 2);
    CHECK_INT(store_wait(s, 3, 5000), 0);
    CHECK_INT(commits_of(s), 1);
    store_set_commit_delay(s, 0);
    struct journal_entry *last[] = {plain_event(4, "fourth")};
    append(s, last, 1);
    CHECK_INT(store_wait(s, 4, 5000), 0);
    CHECK_INT(commits_of(s), 2);
    store_close(s);
    tmp_db_remove(&t);
}

TEST_MAIN(TEST_CASE(test_open_empty_file_creates_schema), TEST_CASE(test_open_refuses_newer_schema_without_writing),
          TEST_CASE(test_open_refuses_newer_wal_database_without_checkpointing),
          TEST_CASE(test_open_refuses_clean_wal_database_without_creating_files),
          TEST_CASE(test_open_refuses_a_file_that_is_no_database),
          TEST_CASE(test_open_refuses_corrupt_file_without_writing),
          TEST_CASE(test_open_checking_refuses_corrupt_file_at_confirm),
          TEST_CASE(test_open_checking_loads_then_writes), TEST_CASE(test_open_checking_loads_beside_a_crashed_log),
          TEST_CASE(test_open_fails_when_directory_is_missing), TEST_CASE(test_writer_commits_and_load_rebuilds),
          TEST_CASE(test_load_reads_sleeping_jobs_from_their_index), TEST_CASE(test_object_rows_put_delete_and_load),
          TEST_CASE(test_close_without_writer_commits_queue), TEST_CASE(test_group_commit_100k_events),
          TEST_CASE(test_long_log_is_emptied_once_copied_back), TEST_CASE(test_concurrent_waiters_wake_at_their_seq),
          TEST_CASE(test_load_job_reads_one_job_and_its_attempts), TEST_CASE(test_disk_full_keeps_batch_and_recovers),
          TEST_CASE(test_close_gives_up_on_a_disk_that_stays_full), TEST_CASE(test_withdrawn_job_is_never_written),
          TEST_CASE(test_history_of_a_job), TEST_CASE(test_history_newest_job_wins_when_name_reused),
          TEST_CASE(test_tasks_nodes_commands_and_cgroup_written), TEST_CASE(test_commit_delay_gathers_a_batch))
