/* Turns journal entries into rows: the write path's prepared statements and the one function that
 * binds an entry to them. Runs on whichever thread owns the connection (the writer, normally). */
#include "store/store_internal.h"

#include <stdio.h>
#include <string.h>

#include "common/hashmap.h"

static const char *const sql_begin = "BEGIN IMMEDIATE";
static const char *const sql_commit = "COMMIT";
static const char *const sql_rollback = "ROLLBACK";
static const char *const sql_event =
    "INSERT INTO events(seq, time_ms, kind, namespace, name, job_uid, from_phase, to_phase, reason, message, uid)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
/* phase, queue and ttl_s restate parts of the JSON for start-up (schema 5); SQLite's JSON functions
 * read them here, and a value that is not JSON leaves them empty rather than failing the commit. */
#define PHASE_OF(p) "CASE WHEN json_valid(" p ") THEN coalesce(json_extract(" p ", '$.state.phase'), '') ELSE '' END"
#define QUEUE_OF(p) "CASE WHEN json_valid(" p ") THEN coalesce(json_extract(" p ", '$.spec.queue'), '') ELSE '' END"
#define TTL_OF(p) "CASE WHEN json_valid(" p ") THEN json_extract(" p ", '$.spec.ttlSecondsAfterFinished') END"
static const char *const sql_job_create =
    "INSERT INTO jobs(uid, namespace, name, created_ms, spec_json, status_json, resource_version, deleted_ms,"
    " phase, queue, ttl_s, source_json)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, " PHASE_OF("?6") ", " QUEUE_OF("?5") ", " TTL_OF("?5") ", ?8)";
static const char *const sql_job_status = "UPDATE jobs SET status_json = ?2, resource_version = ?3, phase = " PHASE_OF(
    "?2") " WHERE uid = ?1";
static const char *const sql_job_delete = "UPDATE jobs SET deleted_ms = ?2, resource_version = ?3 WHERE uid = ?1";
static const char *const sql_attempt_start =
    "INSERT INTO attempts(job_uid, pod, attempt, task, idx, job_version, node, pid, pid_start, start_ms,"
    " end_ms, exit_code, reason, message, log_path, cgroup, gpus)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, NULL, NULL, '', '', ?11, ?12, ?13)";
static const char *const sql_attempt_end =
    "UPDATE attempts SET end_ms = ?4, exit_code = ?5, reason = ?6, message = ?7, outcome = ?8, peak_memory = ?9,"
    " cpu_usec = ?10, cpu_request = ?11, memory_request = ?12, gpu_request = ?13, gpu_util_mean = ?14,"
    " gpu_util_peak = ?15, gpu_memory_peak = ?16 WHERE job_uid = ?1 AND pod = ?2 AND attempt = ?3";
static const char
    *const sql_attempt_carry = "UPDATE attempts SET kept_version = ?4 WHERE job_uid = ?1 AND pod = ?2 AND attempt = ?3";
static const char *const sql_job_spec =
    "UPDATE jobs SET spec_json = ?2, resource_version = ?3, status_json = coalesce(?4, status_json),"
    " phase = " PHASE_OF("coalesce(?4, status_json)") ", queue = " QUEUE_OF("?2") ", ttl_s = " TTL_OF(
        "?2") ", source_json = coalesce(?5, source_json) WHERE uid = ?1";
/* A job's tasks from its spec (?2), by SQLite's JSON functions on the writer: no JSON tree is built
 * in C. A task without minAvailable has replicas (Volcano's default); a name repeated keeps the last.
 * A spec that is not JSON gives no tasks rather than a commit that fails for ever. */
static const char *const sql_tasks_insert =
    "INSERT OR REPLACE INTO tasks(job_uid, name, replicas, min_available, template_json)"
    " SELECT ?1, coalesce(value ->> '$.name', ''), coalesce(value ->> '$.replicas', 0),"
    " coalesce(value ->> '$.minAvailable', value ->> '$.replicas', 0), coalesce(value -> '$.template', '{}')"
    " FROM json_each(CASE WHEN json_valid(?2) THEN ?2 ELSE '{}' END, '$.spec.tasks')";
static const char *const sql_tasks_delete = "DELETE FROM tasks WHERE job_uid = ?1";
static const char *const sql_node_put = "INSERT OR REPLACE INTO nodes(name, json, updated_ms) VALUES(?1, ?2, ?3)";
static const char *const sql_command =
    "INSERT INTO commands(seq, time_ms, namespace, job_name, job_uid, action, reason, json)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
static const char
    *const sql_job_version = "UPDATE jobs SET resource_version = ?2 WHERE uid = ?1 AND resource_version < ?2";
static const char *const sql_queue_put = "INSERT OR REPLACE INTO queues(name, json) VALUES(?1, ?2)";
static const char *const sql_queue_delete = "DELETE FROM queues WHERE name = ?1";
static const char
    *const sql_object_put = "INSERT OR REPLACE INTO objects(kind, namespace, name, json) VALUES(?1, ?2, ?3, ?4)";
static const char *const sql_object_delete = "DELETE FROM objects WHERE kind = ?1 AND namespace = ?2 AND name = ?3";

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **out, char *err, size_t errlen)
{
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL) == SQLITE_OK)
        return 0;
    snprintf(err, errlen, "cannot prepare \"%s\": %s", sql, sqlite3_errmsg(db));
    return -1;
}

int store_stmts_prepare(sqlite3 *db, struct store_stmts *st, char *err, size_t errlen)
{
    if (prepare(db, sql_begin, &st->begin, err, errlen) || prepare(db, sql_commit, &st->commit, err, errlen) ||
        prepare(db, sql_rollback, &st->rollback, err, errlen) || prepare(db, sql_event, &st->event, err, errlen) ||
        prepare(db, sql_job_create, &st->job_create, err, errlen) ||
        prepare(db, sql_job_status, &st->job_status, err, errlen) ||
        prepare(db, sql_job_delete, &st->job_delete, err, errlen) ||
        prepare(db, sql_attempt_start, &st->attempt_start, err, errlen) ||
        prepare(db, sql_attempt_end, &st->attempt_end, err, errlen) ||
        prepare(db, sql_attempt_carry, &st->attempt_carry, err, errlen) ||
        prepare(db, sql_job_spec, &st->job_spec, err, errlen) ||
        prepare(db, sql_queue_put, &st->queue_put, err, errlen) ||
        prepare(db, sql_tasks_insert, &st->tasks_insert, err, errlen) ||
        prepare(db, sql_tasks_delete, &st->tasks_delete, err, errlen) ||
        prepare(db, sql_node_put, &st->node_put, err, errlen) || prepare(db, sql_command, &st->command, err, errlen) ||
        prepare(db, sql_job_version, &st->job_version, err, errlen)) {
        store_stmts_finalize(st);
        return -1;
    }
    return 0;
}

void store_stmts_finalize(struct store_stmts *st)
{
    sqlite3_stmt **all[] = {&st->begin,      &st->commit,     &st->rollback,      &st->event,        &st->job_create,
                            &st->job_status, &st->job_delete, &st->attempt_start, &st->attempt_end,  &st->attempt_carry,
                            &st->job_spec,   &st->queue_put,  &st->tasks_insert,  &st->tasks_delete, &st->node_put,
                            &st->command,    &st->job_version};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        sqlite3_finalize(*all[i]); /* a no-op on NULL */
        *all[i] = NULL;
    }
}

int store_stmt_run(sqlite3_stmt *stmt)
{
    int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* SQLITE_STATIC: the entry outlives the step that reads the text, and every parameter is bound
 * again before the next step, so SQLite never needs a copy. A missing string is stored as "". */
static void bind_text(sqlite3_stmt *stmt, int i, const char *s)
{
    sqlite3_bind_text(stmt, i, s ? s : "", -1, SQLITE_STATIC);
}

static int insert_event(sqlite3_stmt *stmt, const struct journal_event *ev)
{
    sqlite3_bind_int64(stmt, 1, (sqlite3_int64)ev->seq);
    sqlite3_bind_int64(stmt, 2, ev->time_ms);
    bind_text(stmt, 3, ev->kind);
    bind_text(stmt, 4, ev->ns);
    bind_text(stmt, 5, ev->name);
    bind_text(stmt, 6, ev->job_uid);
    bind_text(stmt, 7, ev->from_phase);
    bind_text(stmt, 8, ev->to_phase);
    bind_text(stmt, 9, ev->reason);
    bind_text(stmt, 10, ev->message);
    bind_text(stmt, 11, ev->uid);
    return store_stmt_run(stmt);
}

/* The job an entry changes: its own job_uid, else the event's (the core may fill either). */
static const char *entry_job_uid(const struct journal_entry *e)
{
    return e->job_uid && *e->job_uid ? e->job_uid : e->ev.job_uid;
}

static int insert_job(sqlite3_stmt *stmt, const struct journal_entry *e)
{
    bind_text(stmt, 1, entry_job_uid(e));
    bind_text(stmt, 2, e->ns);
    bind_text(stmt, 3, e->name);
    sqlite3_bind_int64(stmt, 4, e->created_ms);
    bind_text(stmt, 5, e->spec_json);
    bind_text(stmt, 6, e->status_json);
    sqlite3_bind_int64(stmt, 7, (sqlite3_int64)e->ev.seq);
    if (e->source_json)
        bind_text(stmt, 8, e->source_json);
    else
        sqlite3_bind_null(stmt, 8);
    return store_stmt_run(stmt);
}

static int update_job_status(sqlite3_stmt *stmt, const struct journal_entry *e)
{
    bind_text(stmt, 1, entry_job_uid(e));
    bind_text(stmt, 2, e->status_json);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)e->ev.seq);
    return store_stmt_run(stmt);
}

static int mark_job_deleted(sqlite3_stmt *stmt, const struct journal_entry *e)
{
    bind_text(stmt, 1, entry_job_uid(e));
    sqlite3_bind_int64(stmt, 2, e->ev.time_ms);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)e->ev.seq);
    return store_stmt_run(stmt);
}

static int insert_attempt(sqlite3_stmt *stmt, const struct journal_attempt *a)
{
    bind_text(stmt, 1, a->job_uid);
    bind_text(stmt, 2, a->pod);
    sqlite3_bind_int(stmt, 3, a->attempt);
    bind_text(stmt, 4, a->task);
    sqlite3_bind_int(stmt, 5, a->index);
    sqlite3_bind_int(stmt, 6, a->job_version);
    bind_text(stmt, 7, a->node);
    sqlite3_bind_int(stmt, 8, a->pid);
    sqlite3_bind_int64(stmt, 9, a->pid_start);
    sqlite3_bind_int64(stmt, 10, a->start_ms);
    bind_text(stmt, 11, a->log_path);
    bind_text(stmt, 12, a->cgroup);
    bind_text(stmt, 13, a->gpus);
    return store_stmt_run(stmt);
}

static int end_attempt(sqlite3_stmt *stmt, const struct journal_attempt *a)
{
    bind_text(stmt, 1, a->job_uid);
    bind_text(stmt, 2, a->pod);
    sqlite3_bind_int(stmt, 3, a->attempt);
    sqlite3_bind_int64(stmt, 4, a->end_ms);
    sqlite3_bind_int(stmt, 5, a->exit_code);
    bind_text(stmt, 6, a->reason);
    bind_text(stmt, 7, a->message);
    bind_text(stmt, 8, a->outcome);
    sqlite3_bind_int64(stmt, 9, a->peak_memory);
    sqlite3_bind_int64(stmt, 10, a->cpu_usec);
    sqlite3_bind_int64(stmt, 11, a->cpu_request_milli);
    sqlite3_bind_int64(stmt, 12, a->memory_request);
    sqlite3_bind_int64(stmt, 13, a->gpu_request);
    if (a->gpu_sampled) {
        sqlite3_bind_double(stmt, 14, a->gpu_util_mean);
        sqlite3_bind_int(stmt, 15, a->gpu_util_peak);
        sqlite3_bind_int64(stmt, 16, a->gpu_memory_peak);
    } else {
        sqlite3_bind_null(stmt, 14);
        sqlite3_bind_null(stmt, 15);
        sqlite3_bind_null(stmt, 16);
    }
    return store_stmt_run(stmt);
}

static int carry_attempt(sqlite3_stmt *stmt, const struct journal_attempt *a)
{
    bind_text(stmt, 1, a->job_uid);
    bind_text(stmt, 2, a->pod);
    sqlite3_bind_int(stmt, 3, a->attempt);
    sqlite3_bind_int(stmt, 4, a->job_version);
    return store_stmt_run(stmt);
}

static int update_job_spec(sqlite3_stmt *stmt, const struct journal_entry *e)
{
    bind_text(stmt, 1, entry_job_uid(e));
    bind_text(stmt, 2, e->spec_json);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)e->ev.seq);
    if (e->status_json)
        bind_text(stmt, 4, e->status_json);
    else
        sqlite3_bind_null(stmt, 4);
    if (e->source_json)
        bind_text(stmt, 5, e->source_json);
    else
        sqlite3_bind_null(stmt, 5);
    return store_stmt_run(stmt);
}

/* The tasks rows of a job from the spec the entry carries: created with the job, replaced on a spec
 * change (a scale, a memory scale). */
static int put_tasks(const struct store_stmts *st, const struct journal_entry *e, bool replace)
{
    if (replace) {
        bind_text(st->tasks_delete, 1, entry_job_uid(e));
        int rc = store_stmt_run(st->tasks_delete);
        if (rc != SQLITE_OK)
            return rc;
    }
    bind_text(st->tasks_insert, 1, entry_job_uid(e));
    bind_text(st->tasks_insert, 2, e->spec_json);
    return store_stmt_run(st->tasks_insert);
}

static int put_node(sqlite3_stmt *stmt, const struct journal_entry *e)
{
    bind_text(stmt, 1, e->node_name);
    bind_text(stmt, 2, e->node_json);
    sqlite3_bind_int64(stmt, 3, e->ev.time_ms);
    return store_stmt_run(stmt);
}

static int insert_command(sqlite3_stmt *stmt, const struct journal_entry *e)
{
    sqlite3_bind_int64(stmt, 1, (sqlite3_int64)e->ev.seq);
    sqlite3_bind_int64(stmt, 2, e->ev.time_ms);
    bind_text(stmt, 3, e->ns);
    bind_text(stmt, 4, e->name);
    bind_text(stmt, 5, entry_job_uid(e));
    bind_text(stmt, 6, e->command_action);
    bind_text(stmt, 7, e->command_reason);
    bind_text(stmt, 8, e->command_json && *e->command_json ? e->command_json : "{}");
    return store_stmt_run(stmt);
}

static int put_queue(sqlite3_stmt *stmt, const struct journal_entry *e)
{
    bind_text(stmt, 1, e->queue_name);
    bind_text(stmt, 2, e->queue_json);
    return store_stmt_run(stmt);
}

/* Queues, priority classes and quotas change at an administrator's pace, a few times a day: their
 * statements are prepared for each use on the writer's connection instead of joining the prepared
 * set that the per-event write path reuses. texts are bound to ?1..?n. */
static int run_prepared_once(const struct store_stmts *st, const char *sql, const char *const *texts, int n)
{
    sqlite3_stmt *stmt;
    int rc = sqlite3_prepare_v2(sqlite3_db_handle(st->event), sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return rc;
    for (int i = 0; i < n; i++)
        bind_text(stmt, i + 1, texts[i]);
    rc = sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int delete_queue(const struct store_stmts *st, const struct journal_entry *e)
{
    const char *texts[] = {e->queue_name};
    return run_prepared_once(st, sql_queue_delete, texts, 1);
}

static int put_object(const struct store_stmts *st, const struct journal_entry *e)
{
    const char *texts[] = {e->object_kind, e->object_ns, e->object_name, e->object_json};
    return run_prepared_once(st, sql_object_put, texts, 4);
}

static int delete_object(const struct store_stmts *st, const struct journal_entry *e)
{
    const char *texts[] = {e->object_kind, e->object_ns, e->object_name};
    return run_prepared_once(st, sql_object_delete, texts, 3);
}

int store_apply_entry(const struct store_stmts *st, const struct journal_entry *e)
{
    int rc = insert_event(st->event, &e->ev);
    if (rc != SQLITE_OK)
        return rc;
    switch (e->op) {
    case JOURNAL_EVENT: return SQLITE_OK;
    case JOURNAL_JOB_CREATE: rc = insert_job(st->job_create, e); return rc == SQLITE_OK ? put_tasks(st, e, false) : rc;
    case JOURNAL_JOB_STATUS: return update_job_status(st->job_status, e);
    case JOURNAL_JOB_DELETE: return mark_job_deleted(st->job_delete, e);
    case JOURNAL_ATTEMPT_START:
        rc = insert_attempt(st->attempt_start, &e->attempt);
        /* an attempt that ended as it began (it could not start) carries its end too */
        if (rc == SQLITE_OK && e->attempt.end_ms != 0)
            rc = end_attempt(st->attempt_end, &e->attempt);
        return rc;
    case JOURNAL_ATTEMPT_END: return end_attempt(st->attempt_end, &e->attempt);
    case JOURNAL_QUEUE_PUT: return put_queue(st->queue_put, e);
    case JOURNAL_QUEUE_DELETE: return delete_queue(st, e);
    case JOURNAL_OBJECT_PUT: return put_object(st, e);
    case JOURNAL_OBJECT_DELETE: return delete_object(st, e);
    case JOURNAL_JOB_SPEC: rc = update_job_spec(st->job_spec, e); return rc == SQLITE_OK ? put_tasks(st, e, true) : rc;
    case JOURNAL_ATTEMPT_CARRY: return carry_attempt(st->attempt_carry, &e->attempt);
    case JOURNAL_NODE_PUT: return put_node(st->node_put, e);
    case JOURNAL_COMMAND: return insert_command(st->command, e);
    }
    return SQLITE_MISUSE; /* an op this build does not know: refuse rather than drop it silently */
}

int store_apply_job_versions(const struct store_stmts *st, const struct journal_list *batch)
{
    struct hmap last = {0}; /* job uid -> its batch's last entry (keys live in the entries) */
    for (const struct journal_entry *e = batch->head; e; e = e->next)
        if (e->ev.job_uid && *e->ev.job_uid && strmap_put(&last, e->ev.job_uid, (void *)e) != 0) {
            hmap_free(&last);
            return SQLITE_NOMEM;
        }
    int rc = SQLITE_OK;
    size_t pos = 0;
    const void *key;
    void *value;
    while (rc == SQLITE_OK && hmap_next(&last, &pos, &key, &value)) {
        const struct journal_entry *e = value;
        sqlite3_bind_text(st->job_version, 1, e->ev.job_uid, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st->job_version, 2, (sqlite3_int64)e->ev.seq);
        rc = store_stmt_run(st->job_version);
    }
    hmap_free(&last);
    return rc;
}
