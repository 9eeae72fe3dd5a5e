/* Start-up recovery: streams queues, API objects, live jobs and their attempts from the database to
 * the core's loader, one statement per table (never a query per job), inside one read transaction;
 * later, one job's row and attempts again when a job kept dormant at start-up is first read. */
#include "store/store_internal.h"

#include <stdio.h>
#include <string.h>

/* How much of the file the load may map (SQLite's own ceiling applies too). */
#define LOAD_MMAP_BYTES "4294967296"

/* The columns fill_job and fill_attempt read, in their order: the load and store_load_job select them. */
#define JOB_COLUMNS                                                                                    \
    "uid, namespace, name, created_ms, resource_version, spec_json, status_json, phase, queue, ttl_s," \
    " source_json"
#define ATTEMPT_COLUMNS                                                                                 \
    "job_uid, pod, task, idx, attempt, job_version, node, pid, pid_start, start_ms, end_ms, exit_code," \
    " reason, message, log_path, outcome, kept_version, cgroup, gpus"

/* Which live jobs sleep: finished for good (Aborted can still resume) with no TTL to arm. The core
 * keeps only their name, uid, queue and phase until something asks for one (controller_wake_job);
 * the others are awake. Word for word the conditions of schema 10's partial indexes, which the
 * queries name (INDEXED BY: a statement that cannot use its index fails to prepare, never scans). */
#define JOBS_ASLEEP                                                     \
    "deleted_ms IS NULL AND ttl_s IS NULL AND queue <> '' AND (phase =" \
    " 'Completed' OR phase = 'Failed' OR phase = 'Terminated')"
#define JOBS_AWAKE                                                         \
    "deleted_ms IS NULL AND (ttl_s IS NOT NULL OR queue = '' OR (phase <>" \
    " 'Completed' AND phase <> 'Failed' AND phase <> 'Terminated'))"

static const char *const sql_queues = "SELECT name, json FROM queues ORDER BY name";
/* The primary key's order: no sort. */
static const char *const sql_objects = "SELECT kind, namespace, name, json FROM objects ORDER BY kind, namespace, name";
/* Live jobs in creation order, from two statements merged (stream_jobs): the sleeping ones from
 * jobs_asleep alone, which holds all that is kept of them, and the awake ones' rows through
 * jobs_awake. SLEEPER_COLUMNS are JOB_COLUMNS' first five, then phase and queue. */
#define SLEEPER_COLUMNS "uid, namespace, name, created_ms, resource_version, phase, queue"
static const char *const sql_jobs_asleep = "SELECT " SLEEPER_COLUMNS
                                           " FROM jobs INDEXED BY jobs_asleep WHERE " JOBS_ASLEEP
                                           " ORDER BY created_ms, uid";
static const char *const sql_jobs_awake = "SELECT " JOB_COLUMNS " FROM jobs INDEXED BY jobs_awake WHERE " JOBS_AWAKE
                                          " ORDER BY created_ms, uid";
#define AWAKE_UIDS "SELECT uid FROM jobs INDEXED BY jobs_awake WHERE " JOBS_AWAKE
/* The awake jobs' attempts, a job's rows together (jobs in uid order): one range of the attempts'
 * primary key per job, in the key's order, so nothing is sorted. */
static const char *const sql_attempts_awake = "SELECT " ATTEMPT_COLUMNS " FROM attempts WHERE job_uid IN (" AWAKE_UIDS
                                              ") ORDER BY job_uid, pod, attempt";
/* Then, the same way, the attempts still open of the sleeping jobs: a task that still ran at the stop
 * (the loader wakes its job). The few open attempts are read, not the many sleeping jobs. */
#define DELETED_UIDS "SELECT uid FROM jobs INDEXED BY jobs_deleted WHERE deleted_ms IS NOT NULL"
static const char *const sql_attempts_open = "SELECT " ATTEMPT_COLUMNS
                                             " FROM attempts INDEXED BY attempts_open WHERE end_ms IS NULL AND"
                                             " job_uid NOT IN (" AWAKE_UIDS ") AND job_uid NOT IN (" DELETED_UIDS
                                             ") ORDER BY job_uid, pod, attempt";

/* One job and its attempts, by uid, for store_load_job. */
static const char *const sql_job_one = "SELECT " JOB_COLUMNS " FROM jobs WHERE uid = ?1";
static const char *const sql_attempts_one = "SELECT " ATTEMPT_COLUMNS
                                            " FROM attempts WHERE job_uid = ?1 ORDER BY pod, attempt";

static void fill_queue(sqlite3_stmt *stmt, void *out)
{
    struct store_queue_row *row = out;
    *row = (struct store_queue_row){.name = store_column_text(stmt, 0), .json = store_column_text(stmt, 1)};
}

static void fill_object(sqlite3_stmt *stmt, void *out)
{
    struct store_object_row *row = out;
    *row = (struct store_object_row){.kind = store_column_text(stmt, 0),
                                     .ns = store_column_text(stmt, 1),
                                     .name = store_column_text(stmt, 2),
                                     .json = store_column_text(stmt, 3)};
}

/* The first five columns, which JOB_COLUMNS and SLEEPER_COLUMNS share; the rest zeroed. */
static void fill_job_head(sqlite3_stmt *stmt, struct store_job_row *row)
{
    *row = (struct store_job_row){
        .uid = store_column_text(stmt, 0),
        .ns = store_column_text(stmt, 1),
        .name = store_column_text(stmt, 2),
        .created_ms = sqlite3_column_int64(stmt, 3),
        .resource_version = (uint64_t)sqlite3_column_int64(stmt, 4),
    };
}

static void fill_job(sqlite3_stmt *stmt, void *out)
{
    struct store_job_row *row = out;
    fill_job_head(stmt, row);
    row->spec_json = store_column_text(stmt, 5);
    row->status_json = store_column_text(stmt, 6);
    row->phase = store_column_text(stmt, 7);
    row->queue = store_column_text(stmt, 8);
    row->has_ttl = sqlite3_column_type(stmt, 9) != SQLITE_NULL;
    row->source_json = store_column_text(stmt, 10);
}

/* A sleeping job's row as sql_jobs_asleep reads it: no spec, status or source. */
static void fill_sleeper(sqlite3_stmt *stmt, void *out)
{
    struct store_job_row *row = out;
    fill_job_head(stmt, row);
    row->phase = store_column_text(stmt, 5);
    row->queue = store_column_text(stmt, 6);
    row->asleep = true;
}

static void fill_attempt(sqlite3_stmt *stmt, void *out)
{
    struct store_attempt_row *row = out;
    *row = (struct store_attempt_row){
        .job_uid = store_column_text(stmt, 0),
        .pod = store_column_text(stmt, 1),
        .task = store_column_text(stmt, 2),
        .index = sqlite3_column_int(stmt, 3),
        .attempt = sqlite3_column_int(stmt, 4),
        .job_version = sqlite3_column_int(stmt, 5),
        .node = store_column_text(stmt, 6),
        .pid = sqlite3_column_int(stmt, 7),
        .pid_start = sqlite3_column_int64(stmt, 8),
        .start_ms = sqlite3_column_int64(stmt, 9),
        .ended = sqlite3_column_type(stmt, 10) != SQLITE_NULL,
        .end_ms = sqlite3_column_int64(stmt, 10),
        .exit_code = sqlite3_column_int(stmt, 11),
        .reason = store_column_text(stmt, 12),
        .message = store_column_text(stmt, 13),
        .log_path = store_column_text(stmt, 14),
        .outcome = store_column_text(stmt, 15),
        .kept_version = sqlite3_column_int(stmt, 16),
        .cgroup = store_column_text(stmt, 17),
        .gpus = store_column_text(stmt, 18),
    };
}

static int deliver_queue(const struct store_loader *l, const void *row) { return l->queue(l->ctx, row); }
static int deliver_object(const struct store_loader *l, const void *row) { return l->object(l->ctx, row); }
static int deliver_job(const struct store_loader *l, const void *row) { return l->job(l->ctx, row); }
static int deliver_attempt(const struct store_loader *l, const void *row) { return l->attempt(l->ctx, row); }

/* One table's rows, each filled into its row struct and handed to its loader callback. */
struct row_stream {
    const char *what; /* "queues", "objects", "jobs", "attempts": for messages */
    const char *sql;
    void (*fill)(sqlite3_stmt *stmt, void *row);
    int (*deliver)(const struct store_loader *l, const void *row);
};

/* Streams the rows of a prepared statement (its parameters bound), then resets it. Returns how many
 * rows were delivered, or -1. */
static int stream_stmt(sqlite3_stmt *stmt, const struct row_stream *rs, const struct store_loader *loader,
                       const char *path, char *err, size_t errlen)
{
    /* Big enough for any of the row types. */
    union {
        struct store_queue_row q;
        struct store_object_row o;
        struct store_job_row j;
        struct store_attempt_row a;
    } row;
    int rc, result = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rs->fill(stmt, &row);
        result++;
        if (rs->deliver(loader, &row) != 0) {
            snprintf(err, errlen, "database %s: loading %s stopped: the loader refused a row", path, rs->what);
            result = -1;
            break;
        }
    }
    if (result >= 0 && rc != SQLITE_DONE) {
        snprintf(err, errlen, "database %s: cannot read %s: %s", path, rs->what,
                 sqlite3_errmsg(sqlite3_db_handle(stmt)));
        result = -1;
    }
    sqlite3_reset(stmt);
    return result;
}

static int stream_rows(sqlite3 *db, const struct row_stream *rs, const struct store_loader *loader, const char *path,
                       char *err, size_t errlen)
{
    sqlite3_stmt *stmt;
    if (sqlite3_prepare_v2(db, rs->sql, -1, &stmt, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "database %s: cannot read %s: %s", path, rs->what, sqlite3_errmsg(db));
        return -1;
    }
    int result = stream_stmt(stmt, rs, loader, path, err, errlen);
    sqlite3_finalize(stmt);
    return result;
}

/* Whether the sleeping job at asleep's row was created before the awake one at awake's: by
 * (created_ms, uid), the order both statements deliver (uids compare as SQLite's BINARY does). */
static bool sleeper_first(sqlite3_stmt *asleep, sqlite3_stmt *awake)
{
    int64_t a = sqlite3_column_int64(asleep, 3), b = sqlite3_column_int64(awake, 3);
    if (a != b)
        return a < b;
    return strcmp(store_column_text(asleep, 0), store_column_text(awake, 0)) < 0;
}

/* The live jobs in creation order: sql_jobs_asleep's and sql_jobs_awake's rows merged (a NULL
 * statement: none of its kind). */
static int merge_jobs(sqlite3_stmt *asleep, sqlite3_stmt *awake, const struct store_loader *loader, const char *path,
                      char *err, size_t errlen)
{
    int ra = asleep ? sqlite3_step(asleep) : SQLITE_DONE, rw = awake ? sqlite3_step(awake) : SQLITE_DONE;
    while (ra == SQLITE_ROW || rw == SQLITE_ROW) {
        bool sleeper = rw != SQLITE_ROW || (ra == SQLITE_ROW && sleeper_first(asleep, awake));
        struct store_job_row row;
        if (sleeper)
            fill_sleeper(asleep, &row);
        else
            fill_job(awake, &row);
        if (loader->job(loader->ctx, &row) != 0) {
            snprintf(err, errlen, "database %s: loading jobs stopped: the loader refused a row", path);
            return -1;
        }
        if (sleeper)
            ra = sqlite3_step(asleep);
        else
            rw = sqlite3_step(awake);
    }
    if (ra != SQLITE_DONE || rw != SQLITE_DONE) {
        snprintf(err, errlen, "database %s: cannot read jobs: %s", path,
                 sqlite3_errmsg(sqlite3_db_handle(ra != SQLITE_DONE ? asleep : awake)));
        return -1;
    }
    return 0;
}

static int stream_jobs(sqlite3 *db, enum store_load_part part, const struct store_loader *loader, const char *path,
                       char *err, size_t errlen)
{
    sqlite3_stmt *asleep = NULL, *awake = NULL;
    int result = -1;
    if ((part != STORE_LOAD_AWAKE && sqlite3_prepare_v2(db, sql_jobs_asleep, -1, &asleep, NULL) != SQLITE_OK) ||
        (part != STORE_LOAD_ASLEEP && sqlite3_prepare_v2(db, sql_jobs_awake, -1, &awake, NULL) != SQLITE_OK))
        snprintf(err, errlen, "database %s: cannot read jobs: %s", path, sqlite3_errmsg(db));
    else
        result = merge_jobs(asleep, awake, loader, path, err, errlen);
    sqlite3_finalize(asleep);
    sqlite3_finalize(awake);
    return result;
}

static int load_all(struct store *s, const struct store_loader *loader, enum store_load_part part, char *err,
                    size_t errlen)
{
    bool awake = part != STORE_LOAD_ASLEEP, asleep = part != STORE_LOAD_AWAKE;
    const struct row_stream before_jobs[] = {
        {"queues", sql_queues, fill_queue, awake && loader->queue ? deliver_queue : NULL},
        {"objects", sql_objects, fill_object, awake && loader->object ? deliver_object : NULL},
    };
    const struct row_stream after_jobs[] = {
        {"attempts", sql_attempts_awake, fill_attempt, awake && loader->attempt ? deliver_attempt : NULL},
        {"open attempts", sql_attempts_open, fill_attempt, asleep && loader->attempt ? deliver_attempt : NULL},
    };
    for (size_t i = 0; i < sizeof before_jobs / sizeof before_jobs[0]; i++) {
        if (before_jobs[i].deliver && stream_rows(s->db, &before_jobs[i], loader, s->path, err, errlen) < 0)
            return -1;
    }
    if (loader->job) {
        int streamed = stream_jobs(s->db, part, loader, s->path, err, errlen);
        if (loader->jobs_done && loader->jobs_done(loader->ctx, streamed == 0) != 0 && streamed == 0) {
            snprintf(err, errlen, "database %s: loading jobs stopped: the loader refused a row", s->path);
            streamed = -1;
        }
        if (streamed != 0)
            return -1;
    }
    for (size_t i = 0; i < sizeof after_jobs / sizeof after_jobs[0]; i++) {
        if (after_jobs[i].deliver && stream_rows(s->db, &after_jobs[i], loader, s->path, err, errlen) < 0)
            return -1;
    }
    return 0;
}

int store_read_max_seq(sqlite3 *db, const char *path, uint64_t *max_seq, char *err, size_t errlen)
{
    sqlite3_stmt *stmt;
    int rc = sqlite3_prepare_v2(db, "SELECT COALESCE(MAX(seq), 0) FROM events", -1, &stmt, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
        *max_seq = (uint64_t)sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    if (rc == SQLITE_ROW)
        return 0;
    snprintf(err, errlen, "database %s: cannot read the last event: %s", path, sqlite3_errmsg(db));
    return -1;
}

int store_load(struct store *s, const struct store_loader *loader, uint64_t *max_seq, char *err, size_t errlen)
{
    return store_load_part(s, loader, STORE_LOAD_ALL, max_seq, err, errlen);
}

/* A NULL callback skips its table. One read transaction makes the reads one snapshot. */
int store_load_part(struct store *s, const struct store_loader *loader, enum store_load_part part, uint64_t *max_seq,
                    char *err, size_t errlen)
{
    if (s->writer_started) {
        snprintf(err, errlen, "store_load must run before the writer starts (database %s)", s->path);
        return -1;
    }
    /* Mapped, the pages the load reads once are not copied through the page cache; the writer goes
     * back to plain reads afterwards. */
    sqlite3_exec(s->db, "PRAGMA mmap_size = " LOAD_MMAP_BYTES, NULL, NULL, NULL);
    if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "database %s: cannot begin reading: %s", s->path, sqlite3_errmsg(s->db));
        return -1;
    }
    int result = store_read_max_seq(s->db, s->path, max_seq, err, errlen);
    if (result == 0 && loader->begin)
        loader->begin(loader->ctx, *max_seq);
    if (result == 0)
        result = load_all(s, loader, part, err, errlen);
    sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL); /* read-only transaction: ending it cannot lose data */
    sqlite3_exec(s->db, "PRAGMA mmap_size = 0", NULL, NULL, NULL);
    return result;
}

/* The connection of store_load_job, read-only (it writes nothing while the start's checks run), with
 * its statements prepared once: a list page may wake hundreds of jobs. */
static int open_sleepers(struct store *s, char *err, size_t errlen)
{
    if (s->sleepers)
        return 0;
    static const char *const sql[STORE_SLEEPER_STMTS] = {"BEGIN", "COMMIT", sql_job_one, sql_attempts_one};
    int rc = sqlite3_open_v2(s->path, &s->sleepers, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(s->sleepers, STORE_BUSY_TIMEOUT_MS); /* a checkpoint holds a lock for a moment */
        for (int i = 0; rc == SQLITE_OK && i < STORE_SLEEPER_STMTS; i++)
            rc = sqlite3_prepare_v3(s->sleepers, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->sleeper_stmts[i], NULL);
    }
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "cannot open database %s for reading: %s", s->path,
                 s->sleepers ? sqlite3_errmsg(s->sleepers) : sqlite3_errstr(rc));
        store_close_sleepers(s);
        return -1;
    }
    return 0;
}

void store_close_sleepers(struct store *s)
{
    for (int i = 0; i < STORE_SLEEPER_STMTS; i++) {
        sqlite3_finalize(s->sleeper_stmts[i]);
        s->sleeper_stmts[i] = NULL;
    }
    sqlite3_close(s->sleepers);
    s->sleepers = NULL;
}

static const struct row_stream one_job = {"the job", sql_job_one, fill_job, deliver_job};
static const struct row_stream its_attempts = {"its attempts", sql_attempts_one, fill_attempt, deliver_attempt};

/* The job's row, then (when there is one) its attempts, through two statements whose ?1 is bound to
 * the uid. Returns 1, 0 when the job has no row, or -1. */
static int read_one_job(sqlite3_stmt *job, sqlite3_stmt *attempts, const char *uid, const struct store_loader *loader,
                        const char *path, char *err, size_t errlen)
{
    sqlite3_bind_text(job, 1, uid, -1, SQLITE_STATIC);
    sqlite3_bind_text(attempts, 1, uid, -1, SQLITE_STATIC);
    int found = stream_stmt(job, &one_job, loader, path, err, errlen);
    if (found > 0 && stream_stmt(attempts, &its_attempts, loader, path, err, errlen) < 0)
        found = -1;
    return found < 0 ? -1 : found > 0;
}

/* Before the writer starts (the load, and recovery right after it, on the opener's thread): on the
 * store's own connection, inside the load's read transaction when it is open. That connection may be
 * the checks' read-only one, opened so as to create nothing beside a file still being checked. */
static int load_job_before_writer(struct store *s, const char *uid, const struct store_loader *loader, char *err,
                                  size_t errlen)
{
    sqlite3_stmt *job = NULL, *attempts = NULL;
    if (sqlite3_prepare_v2(s->db, sql_job_one, -1, &job, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db, sql_attempts_one, -1, &attempts, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "database %s: cannot read job %s: %s", s->path, uid, sqlite3_errmsg(s->db));
        sqlite3_finalize(job);
        return -1;
    }
    bool own = sqlite3_get_autocommit(s->db) && sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    int found = read_one_job(job, attempts, uid, loader, s->path, err, errlen);
    if (own)
        sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL); /* it only read */
    sqlite3_finalize(job);
    sqlite3_finalize(attempts);
    return found;
}

int store_load_job(struct store *s, const char *uid, const struct store_loader *loader, char *err, size_t errlen)
{
    if (!s->writer_started)
        return load_job_before_writer(s, uid, loader, err, errlen);
    if (open_sleepers(s, err, errlen) != 0)
        return -1;
    sqlite3_stmt **st = s->sleeper_stmts;
    int rc = sqlite3_step(st[SLEEPER_BEGIN]);
    sqlite3_reset(st[SLEEPER_BEGIN]);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "database %s: cannot begin reading job %s: %s", s->path, uid,
                 sqlite3_errmsg(s->sleepers));
        return -1;
    }
    int found = read_one_job(st[SLEEPER_JOB], st[SLEEPER_ATTEMPTS], uid, loader, s->path, err, errlen);
    sqlite3_step(st[SLEEPER_END]); /* read-only: ending it cannot lose data */
    sqlite3_reset(st[SLEEPER_END]);
    return found;
}
