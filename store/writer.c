/* The store writer: one thread that takes everything queued, commits it in one transaction (a group
 * commit: what arrives during a commit forms the next batch, and a commit delay lets a small batch
 * wait a bounded time for more), then wakes the waiters. */
#include "store/store_internal.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"

int store_sync_init(struct store *s)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return -1;
    /* Waiters use monotonic deadlines, so a wall-clock step neither cuts nor stretches a timeout. */
    int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0 && (rc = pthread_mutex_init(&s->mu, NULL)) == 0) {
        if ((rc = pthread_cond_init(&s->work, &attr)) == 0) {
            if ((rc = pthread_cond_init(&s->committed, &attr)) != 0)
                pthread_cond_destroy(&s->work);
        }
        if (rc == 0 && (rc = pthread_mutex_init(&s->commit_mu, NULL)) != 0) {
            pthread_cond_destroy(&s->committed);
            pthread_cond_destroy(&s->work);
        }
        if (rc != 0)
            pthread_mutex_destroy(&s->mu);
    }
    pthread_condattr_destroy(&attr);
    return rc == 0 ? 0 : -1;
}

void store_sync_destroy(struct store *s)
{
    pthread_mutex_destroy(&s->commit_mu);
    pthread_cond_destroy(&s->committed);
    pthread_cond_destroy(&s->work);
    pthread_mutex_destroy(&s->mu);
}

/* ---- the caller's side ---------------------------------------------------------------------- */

void store_append(struct store *s, struct journal_list *entries)
{
    if (!entries->head)
        return;
    pthread_mutex_lock(&s->mu);
    assert(!s->queue.tail || s->queue.tail->ev.seq < entries->head->ev.seq);
    if (s->queue.tail)
        s->queue.tail->next = entries->head;
    else
        s->queue.head = entries->head;
    s->queue.tail = entries->tail;
    s->queue.count += entries->count;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->mu);
    *entries = (struct journal_list){0};
}

/* A negative timeout_ms waits without limit. */
int store_wait(struct store *s, uint64_t seq, int timeout_ms)
{
    struct timespec deadline = clock_deadline(CLOCK_MONOTONIC, timeout_ms > 0 ? timeout_ms : 0);
    int result = 0;
    pthread_mutex_lock(&s->mu);
    while (s->committed_seq < seq) {
        if (timeout_ms < 0) {
            pthread_cond_wait(&s->committed, &s->mu);
        } else if (pthread_cond_timedwait(&s->committed, &s->mu, &deadline) == ETIMEDOUT) {
            result = s->committed_seq >= seq ? 0 : -1;
            break;
        }
    }
    pthread_mutex_unlock(&s->mu);
    return result;
}

uint64_t store_events_committed(struct store *s)
{
    return atomic_load_explicit(&s->events_committed, memory_order_relaxed);
}

uint64_t store_committed_seq(struct store *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t seq = s->committed_seq;
    pthread_mutex_unlock(&s->mu);
    return seq;
}

enum store_failure store_failure_kind(struct store *s, char *buf, size_t len)
{
    pthread_mutex_lock(&s->mu);
    enum store_failure kind = s->failure;
    if (kind != STORE_FAILURE_NONE && buf && len > 0)
        snprintf(buf, len, "%s", s->health);
    pthread_mutex_unlock(&s->mu);
    return kind;
}

const char *store_health(struct store *s, char *buf, size_t len)
{
    return store_failure_kind(s, buf, len) != STORE_FAILURE_NONE ? buf : NULL;
}

void store_set_commit_listener(struct store *s, store_commit_listener fn, void *ctx)
{
    s->listener = fn;
    s->listener_ctx = ctx;
}

void store_set_commit_delay(struct store *s, int delay_ms)
{
    pthread_mutex_lock(&s->mu);
    s->commit_delay_ms = delay_ms > 0 ? delay_ms : 0;
    pthread_mutex_unlock(&s->mu);
}

void store_test_set_max_pages(struct store *s, int pages)
{
    pthread_mutex_lock(&s->mu);
    s->test_max_pages = pages;
    pthread_mutex_unlock(&s->mu);
}

/* ---- the writer's side ---------------------------------------------------------------------- */

/* Splits everything past the first STORE_BATCH_MAX entries off into rest. */
static void split_batch(struct journal_list *batch, struct journal_list *rest)
{
    *rest = (struct journal_list){0};
    if (batch->count <= STORE_BATCH_MAX)
        return;
    struct journal_entry *last = batch->head;
    for (int i = 1; i < STORE_BATCH_MAX; i++)
        last = last->next;
    *rest = (struct journal_list){last->next, batch->tail, batch->count - STORE_BATCH_MAX};
    last->next = NULL;
    batch->tail = last;
    batch->count = STORE_BATCH_MAX;
}

/* With a commit delay: once the first entries are there, waits up to the delay for more, unless a
 * full batch is already queued or a stop is asked. Called and returns with mu held. */
static void gather_for_delay(struct store *s)
{
    if (s->commit_delay_ms <= 0)
        return;
    struct timespec deadline = clock_deadline(CLOCK_MONOTONIC, s->commit_delay_ms);
    while (s->queue.count < STORE_BATCH_MAX && !s->stopping &&
           pthread_cond_timedwait(&s->work, &s->mu, &deadline) != ETIMEDOUT)
        ;
}

enum writer_work { WORK_BATCH, WORK_PRUNE, WORK_STOP };

/* Blocks until entries are queued, a stop is asked or a retention step is due (and, with a commit
 * delay, for more entries up to that delay), then takes up to STORE_BATCH_MAX of them. WORK_STOP:
 * stopping, and nothing is left. The whole queue is taken under the lock and the excess walked and
 * handed back outside it, so store_append() never waits for a 20,000-entry walk. */
static enum writer_work wait_for_batch(struct store *s, struct journal_list *batch)
{
    pthread_mutex_lock(&s->mu);
    while (s->queue.count == 0 && !s->stopping) {
        int64_t due_ms = store_retention_due_in_ms(s);
        if (due_ms < 0) {
            pthread_cond_wait(&s->work, &s->mu);
            continue;
        }
        struct timespec deadline = clock_deadline(CLOCK_MONOTONIC, (int)(due_ms < 3600000 ? due_ms : 3600000));
        if (due_ms == 0 || pthread_cond_timedwait(&s->work, &s->mu, &deadline) == ETIMEDOUT) {
            if (s->queue.count == 0 && !s->stopping) {
                pthread_mutex_unlock(&s->mu);
                return WORK_PRUNE;
            }
        }
    }
    if (s->queue.count > 0)
        gather_for_delay(s);
    *batch = s->queue;
    s->queue = (struct journal_list){0};
    pthread_mutex_unlock(&s->mu);
    if (batch->count == 0)
        return WORK_STOP;

    struct journal_list rest;
    split_batch(batch, &rest);
    if (rest.count > 0) {
        pthread_mutex_lock(&s->mu); /* the excess goes back in front of whatever arrived meanwhile */
        rest.tail->next = s->queue.head;
        if (!s->queue.head)
            s->queue.tail = rest.tail;
        s->queue.head = rest.head;
        s->queue.count += rest.count;
        pthread_mutex_unlock(&s->mu);
    }
    return WORK_BATCH;
}

/* Applies store_test_set_max_pages() on the writer's own thread (the connection is not shared);
 * in production this is one uncontended lock per commit attempt. */
static void apply_test_max_pages(struct store *s)
{
    pthread_mutex_lock(&s->mu);
    int pages = s->test_max_pages;
    s->test_max_pages = 0;
    pthread_mutex_unlock(&s->mu);
    if (pages > 0) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA max_page_count = %d", pages);
        sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    }
}

/* The macro name of a primary result code, for sentences an operator can search for. */
static const char *result_code_name(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_ERROR: return "SQLITE_ERROR";
    case SQLITE_PERM: return "SQLITE_PERM";
    case SQLITE_BUSY: return "SQLITE_BUSY";
    case SQLITE_LOCKED: return "SQLITE_LOCKED";
    case SQLITE_NOMEM: return "SQLITE_NOMEM";
    case SQLITE_READONLY: return "SQLITE_READONLY";
    case SQLITE_IOERR: return "SQLITE_IOERR";
    case SQLITE_CORRUPT: return "SQLITE_CORRUPT";
    case SQLITE_FULL: return "SQLITE_FULL";
    case SQLITE_CANTOPEN: return "SQLITE_CANTOPEN";
    case SQLITE_PROTOCOL: return "SQLITE_PROTOCOL";
    case SQLITE_CONSTRAINT: return "SQLITE_CONSTRAINT";
    case SQLITE_MISMATCH: return "SQLITE_MISMATCH";
    case SQLITE_MISUSE: return "SQLITE_MISUSE";
    case SQLITE_NOTADB: return "SQLITE_NOTADB";
    default: return "SQLITE error";
    }
}

/* A full disk shows as SQLITE_FULL (the unix VFS maps ENOSPC on a write to it), or as an I/O error
 * whose errno says so (growing the WAL index, a quota, a sync). */
static bool errno_means_full(int err) { return err == ENOSPC || err == EDQUOT; }

static enum store_failure failure_kind(int rc, int sys_errno)
{
    if ((rc & 0xff) == SQLITE_FULL || ((rc & 0xff) == SQLITE_IOERR && errno_means_full(sys_errno)))
        return STORE_FAILURE_DISK_FULL;
    return STORE_FAILURE_OTHER;
}

/* Commits the batch in one transaction. On failure rolls back (the batch is untouched and can be
 * retried as it is), writes the health sentence into why and returns the failure's kind. */
static enum store_failure commit_batch(struct store *s, const struct journal_list *batch, char *why, size_t whylen)
{
    const struct store_stmts *st = &s->stmts;
    int rc = store_stmt_run(st->begin);
    for (const struct journal_entry *e = batch->head; rc == SQLITE_OK && e; e = e->next)
        rc = store_apply_entry(st, e);
    if (rc == SQLITE_OK)
        rc = store_apply_job_versions(st, batch);
    if (rc == SQLITE_OK)
        rc = store_stmt_run(st->commit);
    if (rc == SQLITE_OK)
        return STORE_FAILURE_NONE;
    /* The connection's message matches rc unless the failure was ours (an unknown op). */
    bool from_sqlite = (sqlite3_errcode(s->db) & 0xff) == (rc & 0xff);
    const char *msg = from_sqlite ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
    int sys_errno = from_sqlite ? sqlite3_system_errno(s->db) : 0;
    char os_error[96] = "";
    if ((rc & 0xff) == SQLITE_IOERR && sys_errno != 0)
        snprintf(os_error, sizeof os_error, ", errno %d: %s", sys_errno, strerror(sys_errno));
    snprintf(why, whylen, "%s (%s%s) while committing events %llu-%llu", msg, result_code_name(rc), os_error,
             (unsigned long long)batch->head->ev.seq, (unsigned long long)batch->tail->ev.seq);
    /* SQLite may already have rolled back by itself (SQLITE_FULL, SQLITE_IOERR, ...). */
    if (!sqlite3_get_autocommit(s->db))
        store_stmt_run(st->rollback);
    return failure_kind(rc, sys_errno);
}

#ifndef NDEBUG
/* Whether the batch's sequence numbers strictly increase from past the last committed one (for an
 * assert on the writer's thread, the only one that writes committed_seq). */
static bool batch_in_order(const struct store *s, const struct journal_list *batch)
{
    uint64_t last = s->committed_seq;
    for (const struct journal_entry *e = batch->head; e; e = e->next) {
        if (e->ev.seq <= last)
            return false;
        last = e->ev.seq;
    }
    return true;
}
#endif

/* Acknowledges a committed batch that ran up to sequence number through (entries of withdrawn jobs
 * were dropped from it, so it may be empty): advances committed_seq, clears health, wakes the
 * waiters. */
static void publish_commit(struct store *s, const struct journal_list *batch, uint64_t through, int failed_attempts)
{
    pthread_mutex_lock(&s->mu);
    if (through > s->committed_seq) /* monotonic even if the core broke the order */
        s->committed_seq = through;
    uint64_t committed = s->committed_seq;
    s->commits++;
    atomic_fetch_add_explicit(&s->events_committed, (uint64_t)batch->count, memory_order_relaxed);
    s->failure = STORE_FAILURE_NONE;
    s->health[0] = '\0';
    pthread_cond_broadcast(&s->committed);
    pthread_mutex_unlock(&s->mu);
    store_withdrawn_forget(s, committed);
    if (failed_attempts > 0)
        log_info("store: commits succeed again: %d events up to %llu written after %d failed attempts", batch->count,
                 (unsigned long long)through, failed_attempts);
}

/* Records a failed attempt as the health sentence; logs only the first failure of a streak. */
static void record_failure(struct store *s, enum store_failure kind, const char *why)
{
    pthread_mutex_lock(&s->mu);
    bool first = s->failure == STORE_FAILURE_NONE;
    s->failure = kind;
    snprintf(s->health, sizeof s->health, "%s", why);
    pthread_mutex_unlock(&s->mu);
    if (first)
        log_error("store: %s; retrying until it succeeds", why);
}

static bool drain_deadline_passed(struct store *s)
{
    pthread_mutex_lock(&s->mu);
    bool passed = s->stopping && clock_mono_ms() >= s->stop_deadline_ms;
    pthread_mutex_unlock(&s->mu);
    return passed;
}

/* At close, after the drain deadline: drops the batch and everything still queued, and says how much
 * was lost. Nothing in them was acknowledged (committed_seq never reached them). */
static void abandon_all(struct store *s, struct journal_list *batch, const char *why)
{
    pthread_mutex_lock(&s->mu);
    struct journal_list rest = s->queue;
    s->queue = (struct journal_list){0};
    pthread_mutex_unlock(&s->mu);
    uint64_t last = rest.tail ? rest.tail->ev.seq : batch->tail->ev.seq;
    log_error("store: giving up at shutdown: %d entries (events %llu-%llu) could not be written: %s",
              batch->count + rest.count, (unsigned long long)batch->head->ev.seq, (unsigned long long)last, why);
    journal_list_free(batch);
    journal_list_free(&rest);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Commits one batch, retrying a failing database with growing back-off; the batch is kept whole, so
 * nothing is lost or reordered. Frees the batch once it is committed (or abandoned at close). */
static void commit_with_retry(struct store *s, struct journal_list *batch)
{
    int backoff_ms = STORE_RETRY_FIRST_MS;
    assert(batch_in_order(s, batch));
    uint64_t through = batch->tail->ev.seq;
    for (int failed = 0;; failed++) {
        apply_test_max_pages(s);
        char why[512];
        pthread_mutex_lock(&s->commit_mu); /* a withdrawal waits for this attempt's outcome */
        store_withdrawn_drop(s, batch);
        enum store_failure kind = batch->count > 0 ? commit_batch(s, batch, why, sizeof why) : STORE_FAILURE_NONE;
        if (kind == STORE_FAILURE_NONE) {
            publish_commit(s, batch, through, failed);
            pthread_mutex_unlock(&s->commit_mu);
            if (s->listener && batch->count > 0)
                s->listener(s->listener_ctx, batch);
            journal_list_free(batch);
            return;
        }
        pthread_mutex_unlock(&s->commit_mu);
        record_failure(s, kind, why);
        if (drain_deadline_passed(s)) {
            abandon_all(s, batch, why);
            return;
        }
        sleep_ms(backoff_ms);
        backoff_ms = backoff_ms * 2 < STORE_RETRY_MAX_MS ? backoff_ms * 2 : STORE_RETRY_MAX_MS;
    }
}

/* SQLite checkpoints in the commit whose pages take the log past its threshold, before that commit
 * returns: the entries it acknowledges then wait for the copy of the whole log into the file, and so
 * does every entry queued behind them (at a restart with 100,000 jobs, the recovery's first commit
 * wrote 20,000 pages to the log and copying them back took 0.4 s). The hook replaces SQLite's
 * automatic checkpoint and only notes the log's size. */
static int note_wal_size(void *ctx, sqlite3 *db, const char *name, int frames)
{
    (void)db;
    (void)name;
    ((struct store *)ctx)->wal_frames = frames;
    return SQLITE_OK;
}

void store_defer_checkpoints(struct store *s) { sqlite3_wal_hook(s->db, note_wal_size, s); }

static bool entries_waiting(struct store *s)
{
    pthread_mutex_lock(&s->mu);
    bool waiting = s->queue.count > 0;
    pthread_mutex_unlock(&s->mu);
    return waiting;
}

/* A passive checkpoint, as SQLite's automatic one is, when the log has grown past the threshold; run
 * by the writer between commits, once the last one's waiters are answered and, unless the log is
 * very long, when no entry waits for the next commit. A long log copied back whole is then emptied,
 * unless a reader still holds it (no waiting for one: the next long log tries again). */
static void checkpoint_if_due(struct store *s)
{
    if (s->wal_frames < STORE_CHECKPOINT_FRAMES || (s->wal_frames < STORE_CHECKPOINT_FRAMES_BUSY && entries_waiting(s)))
        return;
    int logged = 0, copied = 0;
    int rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, &logged, &copied);
    if (rc == SQLITE_OK && logged >= STORE_TRUNCATE_FRAMES && copied == logged) {
        sqlite3_busy_timeout(s->db, 0);
        rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
        sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
    }
    if (rc != SQLITE_OK && rc != SQLITE_BUSY)
        log_warn("store: checkpoint of %s: %s", s->path, sqlite3_errmsg(s->db));
    s->wal_frames = 0; /* the next commit reports the log's size again */
}

/* The writer loop: until stopped and drained. A due retention step runs between commits, when
 * nothing waits to be committed; under a steady stream of entries, after a commit. */
static void run_writer(struct store *s)
{
    struct journal_list batch;
    for (enum writer_work w; (w = wait_for_batch(s, &batch)) != WORK_STOP;) {
        if (w == WORK_BATCH)
            commit_with_retry(s, &batch);
        if (store_retention_due_in_ms(s) == 0)
            store_prune_if_due(s);
        checkpoint_if_due(s);
    }
}

static void *writer_main(void *arg)
{
    pthread_setname_np(pthread_self(), "store-writer");
    run_writer(arg);
    return NULL;
}

int store_start_writer(struct store *s)
{
    if (s->writer_started)
        return -1;
    if (s->checking) { /* store_open_checking's read-only connection: store_confirm() comes first */
        log_error("store: the writer cannot start before the checks of %s are confirmed", s->path);
        return -1;
    }
    int rc = pthread_create(&s->thread, NULL, writer_main, s);
    if (rc != 0) {
        log_error("store: cannot start the writer thread: %s", strerror(rc));
        return -1;
    }
    s->writer_started = true;
    return 0;
}

void store_writer_stop(struct store *s)
{
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    s->stop_deadline_ms = clock_mono_ms() + STORE_CLOSE_DRAIN_MS;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->mu);
    if (s->writer_started) {
        pthread_join(s->thread, NULL);
        s->writer_started = false;
    } else {
        run_writer(s); /* entries appended before any writer ran: commit them here */
    }
}
