/* What the history readers' files share (history.c: the reader and a job's history; history_json.c:
 * rows as JSON; history_list.c: the JobHistoryList; history_items.c: tasks, attempts and logs).
 * Not for other modules. */
#ifndef CALDERA_HISTORY_INTERNAL_H
#define CALDERA_HISTORY_INTERNAL_H

#include <sqlite3.h>

#include "store/history.h"

struct store_reader {
    char *path;
    sqlite3 *db;
    sqlite3_stmt *begin, *end, *find_job, *find_job_uid, *transitions, *attempts, *tasks, *commands;
};

/* The columns history_attempt_json() reads, in its order. */
#define HISTORY_ATTEMPT_COLUMNS                                                                                 \
    "pod, task, idx, attempt, job_version, node, pid, start_ms, end_ms, exit_code, reason, message, log_path, " \
    "outcome, peak_memory, cpu_usec, cgroup, gpus, gpu_util_mean, gpu_util_peak, gpu_memory_peak"
/* The columns history_job_fields() reads, in its order. */
#define HISTORY_JOB_COLUMNS "uid, namespace, name, created_ms, deleted_ms, status_json"

/* A 500 InternalError naming what was being read and SQLite's message. Returns -1. */
int history_fail_db(struct store_reader *r, struct api_status *st, const char *doing);
/* One read snapshot around a query: begin, then end whatever happened. */
int history_begin(struct store_reader *r, struct api_status *st);
void history_end(struct store_reader *r);
/* Prepares sql on the reader's connection (for queries a request runs once). Returns 0 or -1 (500). */
int history_prepare(struct store_reader *r, const char *sql, sqlite3_stmt **out, struct api_status *st);

/* Finds the job ns/name: uid NULL for the newest (the live one, else the latest deleted), else that
 * incarnation. On 0 *job stands on its row (HISTORY_JOB_COLUMNS) until the caller resets it; -1 is
 * a 404 NotFound (or a 500) in st. */
int history_find_job(struct store_reader *r, const char *ns, const char *name, const char *uid, sqlite3_stmt **job,
                     struct api_status *st);

/* history_json.c */
json_t *history_text_json(sqlite3_stmt *stmt, int col);
json_t *history_time_json(int64_t ms);
json_t *history_time_or_null_json(sqlite3_stmt *stmt, int col);
/* apiVersion, kind, metadata (name, namespace, uid, creationTimestamp, deletionTimestamp?) and phase
 * from a row of HISTORY_JOB_COLUMNS starting at column first. */
json_t *history_job_object(const char *kind, sqlite3_stmt *job, int first);
/* One attempt from a row of HISTORY_ATTEMPT_COLUMNS. */
json_t *history_attempt_json(sqlite3_stmt *stmt);

/* history_usage.c: the job's requested against used CPU, memory and GPU over its ended attempts, set
 * as "usage" in out (nothing when no attempt recorded its requests). Returns 0 or -1 (500 in st). */
int history_usage_add(struct store_reader *r, const char *job_uid, json_t *out, struct api_status *st);

#endif
