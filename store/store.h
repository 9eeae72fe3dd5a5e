/* The durable side of Caldera: one SQLite database in WAL mode, written only by the store's writer
 * thread in group commits, and read back at start-up to rebuild the core's state. */
#ifndef CALDERA_STORE_H
#define CALDERA_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/journal.h"

struct store;

/* Opens (creating when missing) the database at path: PRAGMA quick_check, refuses a database
 * whose user_version is newer than this build's schema (and writes nothing to it), applies the
 * pending migrations, one transaction each, and switches to WAL with synchronous=FULL.
 * Returns 0, or -1 with a sentence in err. The directory must exist.
 * Threading: store_open, store_load, store_start_writer and store_close belong to the thread that
 * owns the store; store_append, store_wait, store_committed_seq, store_events_committed and store_health
 * may be called from any thread between store_open and store_close. */
int store_open(const char *path, struct store **out, char *err, size_t errlen);
/* store_open for a start that loads at once: store_load reads through a read-only connection, and
 * the checks (quick_check reads the whole file) run on a thread from store_start_checks() on;
 * store_confirm() waits for them (or runs them, when they were not started) and then opens
 * the read-write connection. Until it returns 0 nothing is written and the directory is left as it
 * was (store_start_writer refuses to start before it); it says the checks' refusal in err. A database
 * that is missing, has a log or journal beside it or wants a migration takes store_open's way
 * (store_confirm is then a no-op). store_checks_over: whether store_confirm() would not wait for
 * running checks (none run, or they have ended); any thread. */
int store_open_checking(const char *path, struct store **out, char *err, size_t errlen);
void store_start_checks(struct store *s);
int store_confirm(struct store *s, char *err, size_t errlen);
bool store_checks_over(struct store *s);
/* store_open's checks alone, writing nothing: a newer schema, a corrupt file (PRAGMA quick_check) or
 * no database at all is refused with a one-line sentence in err. A missing file passes. */
int store_check_file(const char *path, char *err, size_t errlen);

/* Recovery rows, valid only during the callback. */
struct store_queue_row {
    const char *name;
    const char *json;
};

struct store_object_row {
    const char *kind, *ns, *name, *json;
};

struct store_job_row {
    const char *uid, *ns, *name;
    int64_t created_ms;
    uint64_t resource_version;
    const char *spec_json;
    const char *status_json;
    const char *phase;       /* status.state.phase, "" when unknown (schema 5 keeps it with the row) */
    const char *queue;       /* spec.queue, "" when unknown */
    bool has_ttl;            /* spec.ttlSecondsAfterFinished is set */
    const char *source_json; /* the object as posted in another dialect, "" for a Volcano Job */
    /* store_load only: the job sleeps (finished for good, no TTL to arm), and only uid, ns, name,
     * created_ms, resource_version, phase and queue were read; spec, status and source are NULL. */
    bool asleep;
};

struct store_attempt_row {
    const char *job_uid, *pod, *task;
    int32_t index, attempt, job_version;
    const char *node;
    int32_t pid;
    int64_t pid_start;
    int64_t start_ms;
    bool ended; /* false: the server stopped (or crashed) while it ran */
    int64_t end_ms;
    int32_t exit_code;
    const char *reason, *message, *log_path;
    const char *outcome;  /* what became of the pod: "", "Requeued", "Restarting", "Deleted" */
    int32_t kept_version; /* the latest job version its finished pod was kept into, -1 when none */
    const char *cgroup;   /* where it ran, as /proc/<pid>/cgroup said it ("" without cgroups) */
    const char *gpus;     /* the indexes of its node's GPU devices it held ("2,3"), "" for none */
};

struct store_loader {
    void *ctx;
    /* Each returns 0 to go on, or -1 to stop the load (store_load then fails). */
    int (*queue)(void *ctx, const struct store_queue_row *row);
    int (*object)(void *ctx, const struct store_object_row *row); /* PriorityClasses, ResourceQuotas */
    int (*job)(void *ctx, const struct store_job_row *row);       /* live jobs, in creation order */
    /* After all jobs, the attempts of the awake ones (row->asleep false): a job's rows together
     * (jobs in uid order, not creation order), by pod and attempt number; then, the same way, the
     * attempts not ended of the sleeping ones (a task that still ran at the stop). */
    int (*attempt)(void *ctx, const struct store_attempt_row *row);
    /* Optional, before any row: the last committed event's sequence number, so events the loader
     * records while loading (attempts it finds lost) follow it. */
    void (*begin)(void *ctx, uint64_t max_seq);
    /* Optional: after the jobs' stream, before any attempt; complete is false when the stream stopped
     * early (the load then fails whatever it returns). Returns 0, or -1 to fail the load. */
    int (*jobs_done)(void *ctx, bool complete);
};

/* Reads queues, live (not deleted) jobs (a sleeping one's head only: row->asleep) and the attempts
 * of the awake ones and the open ones of the sleeping ones, in that order, from one snapshot,
 * streaming rows (no query per job); a NULL callback skips its table. Sets *max_seq to the highest
 * event sequence number ever committed (0 for a new database). Call before store_start_writer(). */
int store_load(struct store *s, const struct store_loader *loader, uint64_t *max_seq, char *err, size_t errlen);
/* store_load in two parts, for a start that answers before it has read the sleeping jobs: AWAKE reads
 * the queues, objects, awake jobs and their attempts; ASLEEP then the sleeping jobs (merged into the
 * same creation order by the loader) and their attempts not ended. Nothing may write the database
 * between the two (the writer starts after both), so they read the same state. *max_seq as store_load
 * (both parts set it). */
enum store_load_part { STORE_LOAD_ALL, STORE_LOAD_AWAKE, STORE_LOAD_ASLEEP };
int store_load_part(struct store *s, const struct store_loader *loader, enum store_load_part part, uint64_t *max_seq,
                    char *err, size_t errlen);
/* One job's row, then its attempts (by pod and attempt number), through loader->job and
 * loader->attempt as store_load delivers them, from the last committed state on a read-only
 * connection of the store's own (before store_start_writer, on the opener's connection, inside
 * store_load's snapshot when it runs): how a job kept dormant at start-up is read when something
 * first asks for it. One thread at a time (the one that owns the loaded state), never concurrently
 * with store_close. Returns 1 when the job's row was there, 0 when not, -1 on an error (err says why). */
int store_load_job(struct store *s, const char *uid, const struct store_loader *loader, char *err, size_t errlen);

/* Group commit with a bounded delay: once entries are queued, the writer waits up to delay_ms for
 * more (unless STORE_BATCH_MAX are already there) before it commits them together. 0, the default,
 * commits as soon as the writer is free. Any thread, any time; applies from the next batch. */
void store_set_commit_delay(struct store *s, int delay_ms);

/* History retention: the writer prunes deleted jobs whose deletion is older than retention_ms (their
 * jobs, tasks, attempts, events and commands rows, and <data_dir>/jobs/<uid>), at its start and then
 * every minute (every half retention when shorter, at least a second apart), at most 500 jobs per
 * transaction. Live jobs are never pruned, nor deleted ones with an attempt not ended (pods still
 * in their grace period). Attempts of deleted jobs that an earlier run left without an end are
 * ended here, so call it before anything starts tasks. 0 keeps everything. Call before
 * store_start_writer().
 * Returns 0, or -1 when memory ran out. */
int store_set_history_retention(struct store *s, int64_t retention_ms, const char *data_dir);

/* Called on the writer thread after each successful commit, with the batch just committed (in sequence
 * order) and before its entries are freed: the live streams (watch, WebSocket) take their view of it
 * here, so nothing reaches them before it is durable. The listener may take an entry's watch objects
 * (leaving e->watch NULL) and must not block. Set it before store_start_writer(). */
typedef void (*store_commit_listener)(void *ctx, struct journal_list *committed);
void store_set_commit_listener(struct store *s, store_commit_listener fn, void *ctx);

/* Starts the writer thread. Returns 0 or -1. */
int store_start_writer(struct store *s);
/* Hands entries to the writer (never blocks on I/O); the list is emptied and the store owns the
 * entries. Entries must arrive in sequence order. Entries appended before the writer starts are
 * committed once it runs (or by store_close). */
void store_append(struct store *s, struct journal_list *entries);
/* Waits until every entry with ev.seq <= seq is committed. Returns 0, or -1 after timeout_ms
 * (the database is failing; store_health() says why). A negative timeout_ms waits without limit. */
int store_wait(struct store *s, uint64_t seq, int timeout_ms);
uint64_t store_committed_seq(struct store *s);
/* Events (journal entries) the writer has committed since store_open: a lock-free counter. */
uint64_t store_events_committed(struct store *s);
/* NULL while writes succeed, else the last failure as a sentence written into buf. */
const char *store_health(struct store *s, char *buf, size_t len);
/* What the writer's last commit attempt ran into: nothing (writes succeed), a full disk (SQLITE_FULL,
 * or an I/O error whose errno is ENOSPC or EDQUOT), or anything else. */
enum store_failure { STORE_FAILURE_NONE, STORE_FAILURE_DISK_FULL, STORE_FAILURE_OTHER };
/* The current failure's kind; when it is not NONE and buf is not NULL, its sentence goes into buf. */
enum store_failure store_failure_kind(struct store *s, char *buf, size_t len);
/* Takes back a job whose creation is not committed yet (its client was not answered, and will be
 * told it was not created): every queued entry about job_uid is dropped by the writer instead of
 * written, so nothing of the job reaches the database, the hub or a stream. STORE_WITHDRAWN, or
 * STORE_WITHDRAW_LANDED when created_seq is committed already (the job stays), or
 * STORE_WITHDRAW_FULL when too many withdrawals wait. Once the caller has recorded the job's last
 * entry (its removal from live state), store_withdraw_seal() bounds the withdrawal at it. */
enum store_withdraw_result { STORE_WITHDRAWN, STORE_WITHDRAW_LANDED, STORE_WITHDRAW_FULL };
enum store_withdraw_result store_withdraw_job(struct store *s, const char *job_uid, uint64_t created_seq);
void store_withdraw_seal(struct store *s, const char *job_uid, uint64_t through);
/* Commits what is queued (retrying a failing disk for a few seconds, then logging how many
 * entries could not be written), stops the writer and closes the database. Safe when the writer
 * never started; no store_append may run concurrently or after. */
void store_close(struct store *s);

#endif
