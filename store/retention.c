/* History retention on the writer's connection: deleted jobs whose deletion is older than the
 * retention lose their rows (jobs, tasks, attempts, events, commands) and their directory
 * (<data>/jobs/<uid>: work files and logs), a bounded batch per transaction. Live jobs never, nor a
 * deleted job whose pods are still stopping (an attempt without an end). */
#include "store/store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/log.h"

/* How often the writer looks for jobs to prune: every minute, or every half retention when that is
 * shorter, but not more often than each second. */
#define PRUNE_INTERVAL_MAX_MS 60000
#define PRUNE_INTERVAL_MIN_MS 1000

/* A deleted job's pods stop with their grace period (up to the shutdown's when the server stops):
 * until the last attempt has ended, its processes still run in <data>/jobs/<uid> and their ends
 * are still to be recorded, so the job is not expired however old its deletion. */
static const char *const sql_expired =
    "SELECT uid FROM jobs WHERE deleted_ms IS NOT NULL AND deleted_ms <= ?1"
    " AND NOT EXISTS (SELECT 1 FROM attempts WHERE attempts.job_uid = jobs.uid AND attempts.end_ms IS NULL)"
    " ORDER BY deleted_ms LIMIT ?2";
/* At start, before anything runs: attempts of deleted jobs an earlier server left without an end
 * (it stopped or crashed while they stopped). No server will record their end: start-up adopts only
 * live jobs' tasks and kills the rest; they end at their job's deletion, so retention can prune. */
static const char *const sql_end_orphans =
    "UPDATE attempts SET end_ms = MAX(start_ms, (SELECT deleted_ms FROM jobs WHERE jobs.uid = attempts.job_uid))"
    " WHERE end_ms IS NULL AND job_uid IN (SELECT uid FROM jobs WHERE deleted_ms IS NOT NULL)";
/* A job's rows, child tables first; each ?1 is the job's uid. The newest event of all stays even
 * when it is the job's: start-up continues the sequence after MAX(events.seq), and a sequence
 * number (a resourceVersion clients saw) must never be handed out twice. */
static const char *const sql_prune[] = {
    "DELETE FROM attempts WHERE job_uid = ?1",
    "DELETE FROM tasks WHERE job_uid = ?1",
    "DELETE FROM events WHERE job_uid = ?1 AND seq < (SELECT MAX(seq) FROM events)",
    "DELETE FROM commands WHERE job_uid = ?1",
    "DELETE FROM jobs WHERE uid = ?1 AND deleted_ms IS NOT NULL",
};
#define NPRUNE (sizeof sql_prune / sizeof sql_prune[0])

struct store_retention {
    int64_t retention_ms;
    int64_t interval_ms;
    int64_t next_mono_ms; /* when the next step is due; 0: at once */
    char *data_dir;
    sqlite3_stmt *expired;
    sqlite3_stmt *prune[NPRUNE];
    bool failing;     /* the last step failed (logged once per streak) */
    char (*uids)[64]; /* STORE_PRUNE_BATCH uids: the batch being pruned */
};

int store_set_history_retention(struct store *s, int64_t retention_ms, const char *data_dir)
{
    if (retention_ms <= 0)
        return 0;
    struct store_retention *r = calloc(1, sizeof *r);
    if (!r || !(r->data_dir = strdup(data_dir)) || !(r->uids = calloc(STORE_PRUNE_BATCH, sizeof *r->uids))) {
        store_retention_free(r);
        return -1;
    }
    r->retention_ms = retention_ms;
    r->interval_ms = retention_ms / 2;
    if (r->interval_ms > PRUNE_INTERVAL_MAX_MS)
        r->interval_ms = PRUNE_INTERVAL_MAX_MS;
    if (r->interval_ms < PRUNE_INTERVAL_MIN_MS)
        r->interval_ms = PRUNE_INTERVAL_MIN_MS;
    if (s->checking)
        s->end_orphans_pending = true; /* nothing is written before the checks pass */
    else
        store_retention_end_orphans(s);
    store_retention_free(s->retention);
    s->retention = r;
    return 0;
}

void store_retention_end_orphans(struct store *s)
{
    s->end_orphans_pending = false;
    if (sqlite3_exec(s->db, sql_end_orphans, NULL, NULL, NULL) != SQLITE_OK)
        log_warn("store: history retention: cannot end the attempts of deleted jobs an earlier run left: %s",
                 sqlite3_errmsg(s->db));
}

void store_retention_free(struct store_retention *r)
{
    if (!r)
        return;
    sqlite3_finalize(r->expired);
    for (size_t i = 0; i < NPRUNE; i++)
        sqlite3_finalize(r->prune[i]);
    free(r->data_dir);
    free(r->uids);
    free(r);
}

int64_t store_retention_due_in_ms(const struct store *s)
{
    if (!s->retention)
        return -1;
    int64_t left = s->retention->next_mono_ms - clock_mono_ms();
    return left > 0 ? left : 0;
}

static int prepare_statements(sqlite3 *db, struct store_retention *r)
{
    if (r->expired)
        return SQLITE_OK;
    int rc = sqlite3_prepare_v2(db, sql_expired, -1, &r->expired, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < NPRUNE; i++)
        rc = sqlite3_prepare_v2(db, sql_prune[i], -1, &r->prune[i], NULL);
    return rc;
}

/* Up to `limit` expired uids into uids. Returns the count, or -1. */
static int find_expired(struct store_retention *r, int64_t cutoff_ms, char (*uids)[64], int limit)
{
    sqlite3_bind_int64(r->expired, 1, cutoff_ms);
    sqlite3_bind_int(r->expired, 2, limit);
    int n = 0, rc;
    while ((rc = sqlite3_step(r->expired)) == SQLITE_ROW && n < limit)
        snprintf(uids[n++], 64, "%s", (const char *)sqlite3_column_text(r->expired, 0));
    sqlite3_reset(r->expired);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? n : -1;
}

static int prune_job(struct store_retention *r, const char *uid)
{
    for (size_t i = 0; i < NPRUNE; i++) {
        sqlite3_bind_text(r->prune[i], 1, uid, -1, SQLITE_STATIC);
        int rc = store_stmt_run(r->prune[i]);
        sqlite3_clear_bindings(r->prune[i]);
        if (rc != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}

/* One transaction: the rows of up to STORE_PRUNE_BATCH expired jobs. Returns how many jobs went
 * (their uids in uids), or -1 with the transaction rolled back. */
static int prune_batch(struct store *s, char (*uids)[64])
{
    struct store_retention *r = s->retention;
    int rc = prepare_statements(s->db, r);
    if (rc == SQLITE_OK)
        rc = store_stmt_run(s->stmts.begin);
    if (rc != SQLITE_OK)
        return -1;
    int n = find_expired(r, clock_wall_ms() - r->retention_ms, uids, STORE_PRUNE_BATCH);
    rc = n < 0 ? SQLITE_ERROR : SQLITE_OK;
    for (int i = 0; rc == SQLITE_OK && i < n; i++)
        rc = prune_job(r, uids[i]);
    if (rc == SQLITE_OK)
        rc = store_stmt_run(s->stmts.commit);
    if (rc == SQLITE_OK)
        return n;
    if (!sqlite3_get_autocommit(s->db))
        store_stmt_run(s->stmts.rollback);
    return -1;
}

static void remove_job_dirs(const struct store_retention *r, char (*uids)[64], int n)
{
    for (int i = 0; i < n; i++) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/jobs/%s", r->data_dir, uids[i]);
        if (remove_tree(dir) != 0)
            log_warn("store: history retention: cannot remove %s: %s", dir, strerror(errno));
    }
}

void store_prune_if_due(struct store *s)
{
    struct store_retention *r = s->retention;
    if (!r || clock_mono_ms() < r->next_mono_ms)
        return;
    int n = prune_batch(s, r->uids);
    if (n < 0) {
        if (!r->failing)
            log_error("store: history retention: pruning deleted jobs failed: %s; trying again in %lld ms",
                      sqlite3_errmsg(s->db), (long long)r->interval_ms);
        r->failing = true;
        r->next_mono_ms = clock_mono_ms() + r->interval_ms;
        return;
    }
    r->failing = false;
    remove_job_dirs(r, r->uids, n);
    if (n > 0)
        log_info("store: history retention: pruned %d deleted job%s", n, n == 1 ? "" : "s");
    /* a full batch may have left more: the next step follows the commits queued meanwhile */
    r->next_mono_ms = n == STORE_PRUNE_BATCH ? 0 : clock_mono_ms() + r->interval_ms;
}
