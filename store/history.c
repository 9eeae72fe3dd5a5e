/* Job history for gateway threads: a read-only connection per reader, three cached statements, and
 * the JobHistory JSON built from one read snapshot. A reader is used by one thread at a time. */
#include "store/history.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"

#define BUSY_TIMEOUT_MS 5000

struct store_reader {
    char *path;
    sqlite3 *db;
    sqlite3_stmt *begin, *end, *find_job, *transitions, *attempts;
};

/* Live job first (at most one), else the most recently created deleted one. */
static const char *const sql_find_job =
    "SELECT uid, namespace, name, created_ms, deleted_ms, status_json FROM jobs"
    " WHERE namespace = ?1 AND name = ?2"
    " ORDER BY deleted_ms IS NULL DESC, created_ms DESC, rowid DESC LIMIT 1";
static const char *const sql_transitions =
    "SELECT seq, time_ms, from_phase, to_phase, reason, message FROM events"
    " WHERE job_uid = ?1 AND kind = 'Job' ORDER BY seq";
static const char *const sql_attempts =
    "SELECT pod, task, idx, attempt, job_version, node, pid, start_ms, end_ms, exit_code, reason, message,"
    " log_path, outcome, peak_memory, cpu_usec, cgroup FROM attempts WHERE job_uid = ?1 ORDER BY task, idx, attempt";

static int fail_db(struct store_reader *r, struct api_status *st, const char *doing)
{
    return api_fail(st, 500, "InternalError", "%s from database %s failed: %s", doing, r->path,
                    sqlite3_errmsg(r->db));
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
        prepare(r, sql_transitions, &r->transitions) || prepare(r, sql_attempts, &r->attempts)) {
        fail_db(r, st, "preparing the history queries");
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
    sqlite3_finalize(r->begin);
    sqlite3_finalize(r->end);
    sqlite3_finalize(r->find_job);
    sqlite3_finalize(r->transitions);
    sqlite3_finalize(r->attempts);
    sqlite3_close(r->db);
    free(r->path);
    free(r);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

/* A JSON string from column text. Text the core stored is UTF-8; should a stray byte (a process's
 * message, say) not be, it shows as '?' rather than the field going missing. */
static json_t *text_json(sqlite3_stmt *stmt, int col)
{
    const char *s = (const char *)sqlite3_column_text(stmt, col);
    if (!s)
        return json_string("");
    json_t *j = json_string(s);
    if (j)
        return j;
    char *copy = strdup(s);
    if (!copy)
        return NULL;
    for (char *p = copy; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    j = json_string(copy);
    free(copy);
    return j;
}

static json_t *time_json(int64_t ms)
{
    char buf[RFC3339_LEN];
    return json_string(rfc3339_ms(ms, buf));
}

/* An integer column, or JSON null when the column is NULL (an attempt not ended). */
static json_t *int_or_null_json(sqlite3_stmt *stmt, int col)
{
    return sqlite3_column_type(stmt, col) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int64(stmt, col));
}

static json_t *time_or_null_json(sqlite3_stmt *stmt, int col)
{
    return sqlite3_column_type(stmt, col) == SQLITE_NULL ? json_null() : time_json(sqlite3_column_int64(stmt, col));
}

/* status_json's state.phase, or NULL when the status has none. */
static json_t *phase_from_status(const char *status_json)
{
    json_t *status = status_json ? json_loads(status_json, 0, NULL) : NULL;
    json_t *phase = json_object_get(json_object_get(status, "state"), "phase");
    json_t *copy = json_is_string(phase) ? json_string(json_string_value(phase)) : NULL;
    json_decref(status);
    return copy;
}

/* metadata and phase from the jobs row the find_job statement stands on. */
static void add_job_fields(json_t *out, sqlite3_stmt *job)
{
    json_t *meta = json_object();
    json_object_set_new(meta, "name", text_json(job, 2));
    json_object_set_new(meta, "namespace", text_json(job, 1));
    json_object_set_new(meta, "uid", text_json(job, 0));
    json_object_set_new(meta, "creationTimestamp", time_json(sqlite3_column_int64(job, 3)));
    if (sqlite3_column_type(job, 4) != SQLITE_NULL)
        json_object_set_new(meta, "deletionTimestamp", time_json(sqlite3_column_int64(job, 4)));
    json_object_set_new(out, "metadata", meta);
    json_t *phase = phase_from_status((const char *)sqlite3_column_text(job, 5));
    if (phase)
        json_object_set_new(out, "phase", phase);
}

static json_t *transition_json(sqlite3_stmt *stmt)
{
    json_t *t = json_object();
    json_object_set_new(t, "seq", json_integer(sqlite3_column_int64(stmt, 0)));
    json_object_set_new(t, "time", time_json(sqlite3_column_int64(stmt, 1)));
    json_object_set_new(t, "from", text_json(stmt, 2));
    json_object_set_new(t, "to", text_json(stmt, 3));
    json_object_set_new(t, "reason", text_json(stmt, 4));
    json_object_set_new(t, "message", text_json(stmt, 5));
    return t;
}

static json_t *attempt_json(sqlite3_stmt *stmt)
{
    json_t *a = json_object();
    json_object_set_new(a, "pod", text_json(stmt, 0));
    json_object_set_new(a, "task", text_json(stmt, 1));
    json_object_set_new(a, "index", json_integer(sqlite3_column_int(stmt, 2)));
    json_object_set_new(a, "attempt", json_integer(sqlite3_column_int(stmt, 3)));
    json_object_set_new(a, "jobVersion", json_integer(sqlite3_column_int(stmt, 4)));
    json_object_set_new(a, "node", text_json(stmt, 5));
    json_object_set_new(a, "pid", json_integer(sqlite3_column_int(stmt, 6)));
    json_object_set_new(a, "startTime", time_json(sqlite3_column_int64(stmt, 7)));
    json_object_set_new(a, "finishTime", time_or_null_json(stmt, 8));
    json_object_set_new(a, "exitCode", int_or_null_json(stmt, 9));
    json_object_set_new(a, "reason", text_json(stmt, 10));
    json_object_set_new(a, "message", text_json(stmt, 11));
    json_object_set_new(a, "logPath", text_json(stmt, 12));
    json_object_set_new(a, "cgroup", text_json(stmt, 16));
    if (*(const char *)sqlite3_column_text(stmt, 13))
        json_object_set_new(a, "outcome", text_json(stmt, 13));
    if (sqlite3_column_int64(stmt, 14) > 0)
        json_object_set_new(a, "peakMemoryBytes", json_integer(sqlite3_column_int64(stmt, 14)));
    if (sqlite3_column_int64(stmt, 15) > 0)
        json_object_set_new(a, "cpuSeconds", json_real((double)sqlite3_column_int64(stmt, 15) / 1e6));
    return a;
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
    return fail_db(r, st, doing);
}

/* ---- the query ------------------------------------------------------------------------------- */

/* Inside the read transaction: find the job, then its transitions and attempts. */
static int build_history(struct store_reader *r, const char *ns, const char *name, json_t **out,
                         struct api_status *st)
{
    sqlite3_stmt *job = r->find_job;
    sqlite3_bind_text(job, 1, ns, -1, SQLITE_STATIC);
    sqlite3_bind_text(job, 2, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(job);
    if (rc != SQLITE_ROW) {
        if (rc != SQLITE_DONE)
            return fail_db(r, st, "reading the job");
        api_fail(st, 404, "NotFound", "jobs.batch.volcano.sh \"%s\" not found", name);
        api_set_details(st, "jobs", "batch.volcano.sh", name);
        return -1;
    }
    json_t *h = json_object();
    if (!h)
        return api_fail(st, 500, "InternalError", "building the history of job %s/%s: out of memory", ns, name);
    json_object_set_new(h, "apiVersion", json_string("caldera.io/v1"));
    json_object_set_new(h, "kind", json_string("JobHistory"));
    add_job_fields(h, job);
    /* the uid text stays valid while find_job stands on its row, which it does until the reset */
    const char *uid = (const char *)sqlite3_column_text(job, 0);
    if (add_rows(r, h, "transitions", r->transitions, uid, transition_json, st) != 0 ||
        add_rows(r, h, "attempts", r->attempts, uid, attempt_json, st) != 0) {
        json_decref(h);
        return -1;
    }
    *out = h;
    return 0;
}

int store_job_history(struct store_reader *r, const char *ns, const char *name, json_t **out, struct api_status *st)
{
    *out = NULL;
    /* One snapshot: a job the writer deletes meanwhile cannot come out half old, half new. */
    if (sqlite3_step(r->begin) != SQLITE_DONE) {
        sqlite3_reset(r->begin);
        return fail_db(r, st, "reading job history");
    }
    sqlite3_reset(r->begin);
    int result = build_history(r, ns, name, out, st);
    sqlite3_reset(r->find_job);
    sqlite3_clear_bindings(r->find_job); /* ns and name belong to the caller */
    sqlite3_step(r->end);
    sqlite3_reset(r->end);
    return result;
}
