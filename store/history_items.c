/* Parts of a job's history one at a time: a task (its stored row and its attempts), one attempt of
 * a pod, and where an attempt's log is, also for pods of jobs the core no longer has. */
#include "store/history_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char
    *const sql_task = "SELECT replicas, min_available, template_json FROM tasks WHERE job_uid = ?1 AND name = ?2";
static const char *const sql_task_attempts = "SELECT " HISTORY_ATTEMPT_COLUMNS
                                             " FROM attempts WHERE job_uid = ?1 AND task = ?2 ORDER BY idx, attempt";
static const char *const sql_attempt = "SELECT " HISTORY_ATTEMPT_COLUMNS
                                       " FROM attempts WHERE job_uid = ?1 AND pod = ?2 AND attempt = ?3";
/* The attempts of pod ?2 of the newest job in namespace ?1 that ran a pod of that name, last first. */
static const char *const sql_pod_attempts =
    "SELECT attempt, log_path FROM attempts WHERE pod = ?2 AND job_uid = ("
    " SELECT a.job_uid FROM attempts a JOIN jobs j ON j.uid = a.job_uid WHERE a.pod = ?2 AND j.namespace = ?1"
    " ORDER BY j.created_ms DESC LIMIT 1) ORDER BY attempt DESC";

static json_t *job_ref(sqlite3_stmt *job)
{
    return json_pack("{s:o, s:o}", "name", history_text_json(job, 2), "uid", history_text_json(job, 0));
}

static int not_found(struct api_status *st, const char *resource, const char *name, const char *fmt, const char *what,
                     const char *job)
{
    api_fail(st, 404, "NotFound", fmt, what, job);
    api_set_details(st, resource, "", name);
    return -1;
}

/* Inside a snapshot: the task row and its attempts into a TaskHistory. */
static int build_task(struct store_reader *r, sqlite3_stmt *job, const char *task, json_t **out, struct api_status *st)
{
    const char *uid = (const char *)sqlite3_column_text(job, 0);
    sqlite3_stmt *row = NULL, *attempts = NULL;
    if (history_prepare(r, sql_task, &row, st) != 0 || history_prepare(r, sql_task_attempts, &attempts, st) != 0) {
        sqlite3_finalize(row);
        return -1;
    }
    sqlite3_bind_text(row, 1, uid, -1, SQLITE_STATIC);
    sqlite3_bind_text(row, 2, task, -1, SQLITE_STATIC);
    int rc = sqlite3_step(row), result = 0;
    if (rc == SQLITE_DONE) {
        result = not_found(st, "tasks", task, "task \"%s\" not found in the history of job \"%s\"", task,
                           (const char *)sqlite3_column_text(job, 2));
    } else if (rc != SQLITE_ROW) {
        result = history_fail_db(r, st, "reading the task");
    } else {
        json_t *t = json_pack("{s:s, s:s, s:{s:s, s:o}, s:o, s:I, s:I}", "apiVersion", "caldera.io/v1", "kind",
                              "TaskHistory", "metadata", "name", task, "namespace", history_text_json(job, 1), "job",
                              job_ref(job), "replicas", (json_int_t)sqlite3_column_int64(row, 0), "minAvailable",
                              (json_int_t)sqlite3_column_int64(row, 1));
        json_t *template = json_loads((const char *)sqlite3_column_text(row, 2), 0, NULL);
        json_object_set_new(t, "template", template ? template : json_object());
        json_t *list = json_array();
        json_object_set_new(t, "attempts", list);
        sqlite3_bind_text(attempts, 1, uid, -1, SQLITE_STATIC);
        sqlite3_bind_text(attempts, 2, task, -1, SQLITE_STATIC);
        while ((rc = sqlite3_step(attempts)) == SQLITE_ROW)
            json_array_append_new(list, history_attempt_json(attempts));
        if (rc != SQLITE_DONE) {
            json_decref(t);
            result = history_fail_db(r, st, "reading the task's attempts");
        } else {
            *out = t;
        }
    }
    sqlite3_finalize(row);
    sqlite3_finalize(attempts);
    return result;
}

int store_task_history(struct store_reader *r, const char *ns, const char *name, const char *uid, const char *task,
                       json_t **out, struct api_status *st)
{
    *out = NULL;
    if (history_begin(r, st) != 0)
        return -1;
    sqlite3_stmt *job;
    int result = history_find_job(r, ns, name, uid, &job, st);
    if (result == 0) {
        result = build_task(r, job, task, out, st);
        sqlite3_reset(job);
    }
    history_end(r);
    return result;
}

/* Inside a snapshot: the attempts row of pod/attempt of the job, standing on its row in *row (the
 * caller finalizes it). */
static int find_attempt(struct store_reader *r, sqlite3_stmt *job, const char *pod, int attempt, sqlite3_stmt **row,
                        struct api_status *st)
{
    if (history_prepare(r, sql_attempt, row, st) != 0)
        return -1;
    sqlite3_bind_text(*row, 1, (const char *)sqlite3_column_text(job, 0), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(*row, 2, pod, -1, SQLITE_STATIC);
    sqlite3_bind_int(*row, 3, attempt);
    int rc = sqlite3_step(*row);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc != SQLITE_DONE)
        return history_fail_db(r, st, "reading the attempt");
    char what[320];
    snprintf(what, sizeof what, "attempt %d of pod \"%s\"", attempt, pod);
    return not_found(st, "pods", pod, "%s not found in the history of job \"%s\"", what,
                     (const char *)sqlite3_column_text(job, 2));
}

/* The attempt as JSON (log_path NULL), or its log path (out NULL). */
static int attempt_part(struct store_reader *r, const char *ns, const char *name, const char *uid, const char *pod,
                        int attempt, json_t **out, char **log_path, struct api_status *st)
{
    if (history_begin(r, st) != 0)
        return -1;
    sqlite3_stmt *job = NULL, *row = NULL;
    int result = history_find_job(r, ns, name, uid, &job, st);
    if (result == 0 && (result = find_attempt(r, job, pod, attempt, &row, st)) == 0) {
        if (out) {
            *out = history_attempt_json(row);
            json_object_set_new(*out, "apiVersion", json_string("caldera.io/v1"));
            json_object_set_new(*out, "kind", json_string("PodAttempt"));
            json_object_set_new(*out, "job", job_ref(job));
        } else if (!(*log_path = strdup((const char *)sqlite3_column_text(row, 12)))) {
            result = api_fail(st, 500, "InternalError", "out of memory");
        }
    }
    sqlite3_finalize(row);
    if (job)
        sqlite3_reset(job);
    history_end(r);
    return result;
}

int store_attempt_history(struct store_reader *r, const char *ns, const char *name, const char *uid, const char *pod,
                          int attempt, json_t **out, struct api_status *st)
{
    *out = NULL;
    return attempt_part(r, ns, name, uid, pod, attempt, out, NULL, st);
}

int store_attempt_log(struct store_reader *r, const char *ns, const char *name, const char *uid, const char *pod,
                      int attempt, char **log_path, struct api_status *st)
{
    *log_path = NULL;
    return attempt_part(r, ns, name, uid, pod, attempt, NULL, log_path, st);
}

/* Picks the wanted attempt from the pod's attempts, last first. */
static int pick_pod_attempt(struct store_reader *r, sqlite3_stmt *stmt, const char *pod, int attempt, bool previous,
                            char **log_path, struct api_status *st)
{
    int rc, seen = 0, last = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        int n = sqlite3_column_int(stmt, 0);
        if (seen++ == 0)
            last = n;
        bool wanted = attempt > 0 ? n == attempt : previous ? seen == 2 : seen == 1;
        if (wanted) {
            *log_path = strdup((const char *)sqlite3_column_text(stmt, 1));
            return *log_path ? 0 : api_fail(st, 500, "InternalError", "out of memory");
        }
    }
    if (rc != SQLITE_DONE)
        return history_fail_db(r, st, "reading the pod's attempts");
    if (seen == 0) {
        api_fail(st, 404, "NotFound", "pods \"%s\" not found", pod);
        api_set_details(st, "pods", "", pod);
        return -1;
    }
    return api_fail(st, 400, "BadRequest", "%s of pod \"%s\" not found (its last attempt was %d)",
                    previous ? "a previous attempt" : "that attempt", pod, last);
}

int store_pod_log(struct store_reader *r, const char *ns, const char *pod, int attempt, bool previous, char **log_path,
                  struct api_status *st)
{
    *log_path = NULL;
    sqlite3_stmt *stmt;
    if (history_prepare(r, sql_pod_attempts, &stmt, st) != 0)
        return -1;
    sqlite3_bind_text(stmt, 1, ns, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, pod, -1, SQLITE_STATIC);
    int result = history_begin(r, st);
    if (result == 0) {
        result = pick_pod_attempt(r, stmt, pod, attempt, previous, log_path, st);
        sqlite3_reset(stmt);
        history_end(r);
    }
    sqlite3_finalize(stmt);
    return result;
}
