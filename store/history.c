/* Job history for gateway threads: a read-only connection per reader, the statements every history
 * query shares, and the JobHistory of one job built from one read snapshot. */
#include "store/history_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUSY_TIMEOUT_MS 5000

/* Live job first (at most one), else the most recently created deleted one. */
static const char *const sql_find_job = "SELECT " HISTORY_JOB_COLUMNS
                                        " FROM jobs WHERE namespace = ?1 AND name = ?2"
                                        " ORDER BY deleted_ms IS NULL DESC, created_ms DESC, rowid DESC LIMIT 1";
static const char *const sql_find_job_uid = "SELECT " HISTORY_JOB_COLUMNS
                                            " FROM jobs WHERE namespace = ?1 AND name = ?2 AND uid = ?3";
static const char *const sql_transitions =
    "SELECT seq, time_ms, from_phase, to_phase, reason, message FROM events"
    " WHERE job_uid = ?1 AND kind = 'Job' ORDER BY seq";
static const char *const sql_attempts = "SELECT " HISTORY_ATTEMPT_COLUMNS
                                        " FROM attempts WHERE job_uid = ?1 ORDER BY task, idx, attempt";
static const char
    *const sql_commands = "SELECT seq, time_ms, action, reason FROM commands WHERE job_uid = ?1 ORDER BY seq";
static const char *const sql_tasks = "SELECT name, replicas, min_available FROM tasks WHERE job_uid = ?1 ORDER BY name";

int history_fail_db(struct store_reader *r, struct api_status *st, const char *doing)
{
    return api_fail(st, 500, "InternalError", "%s from database %s failed: %s", doing, r->path, sqlite3_errmsg(r->db));
}

int history_prepare(struct store_reader *r, const char *sql, sqlite3_stmt **out, struct api_status *st)
{
    if (sqlite3_prepare_v2(r->db, sql, -1, out, NULL) == SQLITE_OK)
        return 0;
    return history_fail_db(r, st, "preparing a history query");
}

static int prepare(struct store_reader *r, const char *sql, sqlite3_stmt **out)
{
    return sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL) == SQLITE_OK ? 0 : -1;
}

int store_reader_open(const char *path, struct store_reader **out, struct api_status *st)
{
    *out = NULL;
    struct store_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return api_fail(st, 500, "InternalError", "cannot open database %s: out of memory", path);
    }
    int rc = sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        api_fail(st, 500, "InternalError", "cannot open database %s read-only: %s", path,
                 r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc));
        store_reader_close(r);
        return -1;
    }
    /* The writer's checkpoints can hold the WAL lock for a moment: wait instead of failing. */
    sqlite3_busy_timeout(r->db, BUSY_TIMEOUT_MS);
    if (prepare(r, "BEGIN", &r->begin) || prepare(r, "COMMIT", &r->end) || prepare(r, sql_find_job, &r->find_job) ||
        prepare(r, sql_find_job_uid, &r->find_job_uid) || prepare(r, sql_transitions, &r->transitions) ||
        prepare(r, sql_attempts, &r->attempts) || prepare(r, sql_tasks, &r->tasks) ||
        prepare(r, sql_commands, &r->commands)) {
        history_fail_db(r, st, "preparing the history queries");
        store_reader_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

void store_reader_close(struct store_reader *r)
{
    if (!r)
        return;
    sqlite3_stmt *all[] = {r->begin,       r->end,      r->find_job, r->find_job_uid,
                           r->transitions, r->attempts, r->tasks,    r->commands};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        sqlite3_finalize(all[i]);
    sqlite3_close(r->db);
    free(r->path);
    free(r);
}

/* One snapshot: a job the writer deletes meanwhile cannot come out half old, half new. */
int history_begin(struct store_reader *r, struct api_status *st)
{
    int rc = sqlite3_step(r->begin);
    sqlite3_reset(r->begin);
    return rc == SQLITE_DONE ? 0 : history_fail_db(r, st, "reading job history");
}

void history_end(struct store_reader *r)
{
    sqlite3_step(r->end);
    sqlite3_reset(r->end);
}

int history_find_job(struct store_reader *r, const char *ns, const char *name, const char *uid, sqlite3_stmt **job,
                     struct api_status *st)
{
    *job = uid ? r->find_job_uid : r->find_job;
    sqlite3_bind_text(*job, 1, ns, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(*job, 2, name, -1, SQLITE_TRANSIENT);
    if (uid)
        sqlite3_bind_text(*job, 3, uid, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(*job);
    if (rc == SQLITE_ROW)
        return 0;
    sqlite3_reset(*job);
    if (rc != SQLITE_DONE)
        return history_fail_db(r, st, "reading the job");
    if (uid)
        api_fail(st, 404, "NotFound", "jobs.batch.volcano.sh \"%s\" with uid %s not found", name, uid);
    else
        api_fail(st, 404, "NotFound", "jobs.batch.volcano.sh \"%s\" not found", name);
    api_set_details(st, "jobs", "batch.volcano.sh", name);
    return -1;
}

/* ---- a job's history ------------------------------------------------------------------------- */

static json_t *transition_json(sqlite3_stmt *stmt)
{
    json_t *t = json_object();
    json_object_set_new(t, "seq", json_integer(sqlite3_column_int64(stmt, 0)));
    json_object_set_new(t, "time", history_time_json(sqlite3_column_int64(stmt, 1)));
    json_object_set_new(t, "from", history_text_json(stmt, 2));
    json_object_set_new(t, "to", history_text_json(stmt, 3));
    json_object_set_new(t, "reason", history_text_json(stmt, 4));
    json_object_set_new(t, "message", history_text_json(stmt, 5));
    return t;
}

static json_t *command_json(sqlite3_stmt *stmt)
{
    return json_pack("{s:I, s:o, s:o, s:o}", "seq", (json_int_t)sqlite3_column_int64(stmt, 0), "time",
                     history_time_json(sqlite3_column_int64(stmt, 1)), "action", history_text_json(stmt, 2), "reason",
                     history_text_json(stmt, 3));
}

static json_t *task_summary_json(sqlite3_stmt *stmt)
{
    return json_pack("{s:o, s:I, s:I}", "name", history_text_json(stmt, 0), "replicas",
                     (json_int_t)sqlite3_column_int64(stmt, 1), "minAvailable",
                     (json_int_t)sqlite3_column_int64(stmt, 2));
}

/* Runs a per-job statement and appends one JSON object per row to a new array under key. */
static int add_rows(struct store_reader *r, json_t *out, const char *key, sqlite3_stmt *stmt, const char *uid,
                    json_t *(*row_json)(sqlite3_stmt *), struct api_status *st)
{
    json_t *arr = json_array();
    json_object_set_new(out, key, arr);
    sqlite3_bind_text(stmt, 1, uid, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
        json_array_append_new(arr, row_json(stmt));
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt); /* uid points into another statement's row */
    if (rc == SQLITE_DONE)
        return 0;
    char doing[64];
    snprintf(doing, sizeof doing, "reading the job's %s", key);
    return history_fail_db(r, st, doing);
}

/* Inside the read transaction: find the job, then its tasks, transitions, commands and attempts. */
static int build_history(struct store_reader *r, const char *ns, const char *name, const char *uid, json_t **out,
                         struct api_status *st)
{
    sqlite3_stmt *job;
    if (history_find_job(r, ns, name, uid, &job, st) != 0)
        return -1;
    json_t *h = history_job_object("JobHistory", job, 0);
    /* the uid text stays valid while the job statement stands on its row, until its reset */
    const char *job_uid = (const char *)sqlite3_column_text(job, 0);
    int rc = h ? 0 : api_fail(st, 500, "InternalError", "building the history of job %s/%s: out of memory", ns, name);
    if (rc == 0 && (add_rows(r, h, "tasks", r->tasks, job_uid, task_summary_json, st) != 0 ||
                    add_rows(r, h, "transitions", r->transitions, job_uid, transition_json, st) != 0 ||
                    add_rows(r, h, "commands", r->commands, job_uid, command_json, st) != 0 ||
                    add_rows(r, h, "attempts", r->attempts, job_uid, history_attempt_json, st) != 0 ||
                    history_usage_add(r, job_uid, h, st) != 0))
        rc = -1;
    sqlite3_reset(job);
    if (rc != 0) {
        json_decref(h);
        return -1;
    }
    *out = h;
    return 0;
}

int store_job_history(struct store_reader *r, const char *ns, const char *name, const char *uid, json_t **out,
                      struct api_status *st)
{
    *out = NULL;
    if (history_begin(r, st) != 0)
        return -1;
    int result = build_history(r, ns, name, uid, out, st);
    history_end(r);
    return result;
}
