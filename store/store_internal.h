/* The store's private state and the seams between its files (db.c opens and closes, apply.c turns
 * entries into rows, writer.c runs the commit thread, recovery.c reads back). Not for other modules. */
#ifndef CALDERA_STORE_INTERNAL_H
#define CALDERA_STORE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

/* Commit retry policy: back-off doubles from the first to the max; at close a failing commit is
 * retried until the drain deadline, then the remaining entries are dropped (and counted in the log). */
#define STORE_RETRY_FIRST_MS 50
#define STORE_RETRY_MAX_MS 1000
#define STORE_CLOSE_DRAIN_MS 5000
/* How long a connection waits on another's lock (a checkpoint, the writer) before it fails. */
#define STORE_BUSY_TIMEOUT_MS 5000
/* store_load_job's statements, prepared once on its connection. */
enum sleeper_stmt { SLEEPER_BEGIN, SLEEPER_END, SLEEPER_JOB, SLEEPER_ATTEMPTS, STORE_SLEEPER_STMTS };
/* Bounds one transaction, so a burst still commits (and acknowledges) in steps of bounded latency. */
#define STORE_BATCH_MAX 20000
/* The log's size, in pages, past which the writer copies it back into the file (SQLite's own default
 * threshold), once a commit is published and no entry waits; and past which it does so even while
 * entries wait (128 MiB of 4 KiB pages), so a long burst cannot grow the log without bound. */
#define STORE_CHECKPOINT_FRAMES 1000
#define STORE_CHECKPOINT_FRAMES_BUSY 32768
/* A log at least this long (32 MiB), once copied back whole, is emptied too (when no reader holds it):
 * its pages stay valid until the next write, and a crash meanwhile makes the next start read the
 * whole log to index it, then every page it holds through it. Shorter ones are reused in place. */
#define STORE_TRUNCATE_FRAMES 8192

/* A column's text, "" for NULL, so readers never see a NULL string. */
static inline const char *store_column_text(sqlite3_stmt *stmt, int col)
{
    const char *s = (const char *)sqlite3_column_text(stmt, col);
    return s ? s : "";
}

/* Jobs withdrawn at once whose entries still wait in the queue (store_withdraw_job). */
#define STORE_WITHDRAW_MAX 64

/* History retention prunes at most this many deleted jobs per transaction. */
#define STORE_PRUNE_BATCH 500

/* The write path's prepared statements, prepared once at open and reused for every entry. */
struct store_stmts {
    sqlite3_stmt *begin, *commit, *rollback;
    sqlite3_stmt *event;
    sqlite3_stmt *job_create, *job_status, *job_delete;
    sqlite3_stmt *attempt_start, *attempt_end, *attempt_carry;
    sqlite3_stmt *job_spec;
    sqlite3_stmt *queue_put;
    sqlite3_stmt *tasks_insert, *tasks_delete;
    sqlite3_stmt *node_put, *command;
    sqlite3_stmt *job_version;
};

struct store {
    char *path;
    /* The read-write connection, opened without SQLite's own mutex: exactly one thread uses it at a
     * time, the opener until store_start_writer(), then the writer thread, then store_close() after
     * the join. */
    sqlite3 *db;
    struct store_stmts stmts;
    int migrations_applied;            /* by store_open(); tests read it */
    struct store_retention *retention; /* NULL: history kept for ever; the writer's, like db */
    /* store_load_job's read-only connection and its statements (enum sleeper_stmt), opened at its
     * first call once the writer runs; used by the thread that owns the loaded state, never the writer. */
    sqlite3 *sleepers;
    sqlite3_stmt *sleeper_stmts[STORE_SLEEPER_STMTS];

    /* Everything below up to `thread` is guarded by mu. The writer holds mu only to move list
     * pointers and copy small fields, never across SQLite calls or log writes, so store_append(),
     * store_wait() and store_health() never wait on I/O. */
    pthread_mutex_t mu;
    pthread_cond_t work;      /* the writer waits here (CLOCK_MONOTONIC): entries queued, or a stop asked */
    pthread_cond_t committed; /* store_wait() callers wait here (CLOCK_MONOTONIC): committed_seq moved */
    struct journal_list queue;
    uint64_t committed_seq;
    uint64_t commits;                  /* transactions committed by the writer: group-commit diagnostics */
    _Atomic uint64_t events_committed; /* entries (events) committed since store_open: read without mu */
    bool stopping;
    int64_t stop_deadline_ms;   /* monotonic: after it, a stopping writer gives up on a failing commit */
    enum store_failure failure; /* of the last commit attempt (NONE: it succeeded); health holds why */
    char health[512];
    int test_max_pages;             /* store_test_set_max_pages() value not yet applied, 0 when none */
    int commit_delay_ms;            /* store_set_commit_delay(): how long a small batch waits for more */
    int wal_frames;                 /* pages in the log after db's last commit (its WAL hook): the writer's */
    store_commit_listener listener; /* set before the writer starts; called on its thread */
    void *listener_ctx;

    /* Withdrawn jobs (withdraw.c): guarded by commit_mu, which the writer holds across each commit
     * attempt, so a withdrawal either sees the creation committed or is applied to every attempt
     * after it. Taken before mu, never the other way. */
    pthread_mutex_t commit_mu;
    struct store_withdrawal {
        char job_uid[40];
        uint64_t through; /* its entries up to this sequence number are dropped (UINT64_MAX: not sealed) */
    } withdrawn[STORE_WITHDRAW_MAX];
    int nwithdrawn;

    /* Touched only by the thread that owns the store (start and close). */
    pthread_t thread;
    bool writer_started;

    /* store_open_checking(): while `checking`, db is a read-only connection for store_load; the
     * quick_check runs on check_thread from store_start_checks() on (`check_started`), else in
     * store_confirm(), which then opens the read-write connection. */
    bool checking, check_started;
    pthread_t check_thread;
    int check_result;
    char check_err[512];
    atomic_bool check_over;   /* set by check_thread as it ends: store_confirm() would not wait */
    bool end_orphans_pending; /* history retention's start-up write, put off until store_confirm() */
};

/* writer.c: on the read-write connection (after the migrations, which SQLite checkpoints itself),
 * SQLite's checkpoint inside a commit is replaced by the writer's own, after the commit is published. */
void store_defer_checkpoints(struct store *s);

/* recovery.c: closes store_load_job's connection (with its statements), if open. */
void store_close_sleepers(struct store *s);

/* apply.c */
int store_stmts_prepare(sqlite3 *db, struct store_stmts *st, char *err, size_t errlen);
void store_stmts_finalize(struct store_stmts *st);
/* Runs a statement that returns no rows and resets it. Returns SQLITE_OK or the failing code. */
int store_stmt_run(sqlite3_stmt *stmt);
/* Writes one entry's event row and row change inside the open transaction. Returns SQLITE_OK or the
 * failing code (sqlite3_errmsg() has the detail). */
int store_apply_entry(const struct store_stmts *st, const struct journal_entry *e);
/* After a batch's entries: every job an event of the batch is about gets that event's sequence number
 * as its resource_version (a pod's change is its job's too), so a restart shows clients the
 * resourceVersions they saw. Returns SQLITE_OK or the failing code. */
int store_apply_job_versions(const struct store_stmts *st, const struct journal_list *batch);

/* retention.c (on the thread that owns the connection): one bounded prune step when one is due;
 * how long until the next is due (0: now, -1: never). */
struct store_retention;
void store_prune_if_due(struct store *s);
int64_t store_retention_due_in_ms(const struct store *s);
void store_retention_free(struct store_retention *r);
/* Ends the attempts of deleted jobs an earlier run left (a write: only after the checks passed). */
void store_retention_end_orphans(struct store *s);

/* recovery.c: MAX(seq) of events, 0 when there are none. */
int store_read_max_seq(sqlite3 *db, const char *path, uint64_t *max_seq, char *err, size_t errlen);

/* withdraw.c, on the writer with commit_mu held: drops the batch's entries about withdrawn jobs
 * (freed; the batch may end up empty), and forgets withdrawals whose entries are all behind
 * committed_seq. */
void store_withdrawn_drop(struct store *s, struct journal_list *batch);
void store_withdrawn_forget(struct store *s, uint64_t committed_seq);

/* writer.c */
int store_sync_init(struct store *s);
void store_sync_destroy(struct store *s);
/* Asks the writer to commit what is queued and stop, and waits for it; when no writer thread was
 * started the queue is committed on the calling thread. The connection stays open. */
void store_writer_stop(struct store *s);

/* Test hook: sets PRAGMA max_page_count on the writer's connection before its next commit attempt,
 * so tests can make commits fail with SQLITE_FULL (SQLite never lowers the limit below the current
 * size: pass 1 to freeze the database at its size, a large number such as 1073741823 to lift it). */
void store_test_set_max_pages(struct store *s, int pages);

#endif
