/* History rows as JSON: column text (never invalid UTF-8), RFC 3339 times, a job's metadata and
 * phase, one attempt. Pure functions of a statement's current row. */
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "store/history_internal.h"

/* A JSON string from column text. Text the core stored is UTF-8; should a stray byte (a process's
 * message, say) not be, it shows as '?' rather than the field going missing. */
json_t *history_text_json(sqlite3_stmt *stmt, int col)
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

json_t *history_time_json(int64_t ms)
{
    char buf[RFC3339_LEN];
    return json_string(rfc3339_ms(ms, buf));
}

/* An integer column, or JSON null when the column is NULL (an attempt not ended). */
static json_t *int_or_null_json(sqlite3_stmt *stmt, int col)
{
    return sqlite3_column_type(stmt, col) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int64(stmt, col));
}

json_t *history_time_or_null_json(sqlite3_stmt *stmt, int col)
{
    return sqlite3_column_type(stmt, col) == SQLITE_NULL ? json_null()
                                                         : history_time_json(sqlite3_column_int64(stmt, col));
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

json_t *history_job_object(const char *kind, sqlite3_stmt *job, int first)
{
    json_t *out = json_object(), *meta = json_object();
    if (!out || !meta) {
        json_decref(out);
        json_decref(meta);
        return NULL;
    }
    json_object_set_new(out, "apiVersion", json_string("caldera.io/v1"));
    json_object_set_new(out, "kind", json_string(kind));
    json_object_set_new(meta, "name", history_text_json(job, first + 2));
    json_object_set_new(meta, "namespace", history_text_json(job, first + 1));
    json_object_set_new(meta, "uid", history_text_json(job, first));
    json_object_set_new(meta, "creationTimestamp", history_time_json(sqlite3_column_int64(job, first + 3)));
    if (sqlite3_column_type(job, first + 4) != SQLITE_NULL)
        json_object_set_new(meta, "deletionTimestamp", history_time_json(sqlite3_column_int64(job, first + 4)));
    json_object_set_new(out, "metadata", meta);
    json_t *phase = phase_from_status((const char *)sqlite3_column_text(job, first + 5));
    if (phase)
        json_object_set_new(out, "phase", phase);
    return out;
}

json_t *history_attempt_json(sqlite3_stmt *stmt)
{
    json_t *a = json_object();
    json_object_set_new(a, "pod", history_text_json(stmt, 0));
    json_object_set_new(a, "task", history_text_json(stmt, 1));
    json_object_set_new(a, "index", json_integer(sqlite3_column_int(stmt, 2)));
    json_object_set_new(a, "attempt", json_integer(sqlite3_column_int(stmt, 3)));
    json_object_set_new(a, "jobVersion", json_integer(sqlite3_column_int(stmt, 4)));
    json_object_set_new(a, "node", history_text_json(stmt, 5));
    json_object_set_new(a, "pid", json_integer(sqlite3_column_int(stmt, 6)));
    json_object_set_new(a, "startTime", history_time_json(sqlite3_column_int64(stmt, 7)));
    json_object_set_new(a, "finishTime", history_time_or_null_json(stmt, 8));
    json_object_set_new(a, "exitCode", int_or_null_json(stmt, 9));
    json_object_set_new(a, "reason", history_text_json(stmt, 10));
    json_object_set_new(a, "message", history_text_json(stmt, 11));
    json_object_set_new(a, "logPath", history_text_json(stmt, 12));
    json_object_set_new(a, "cgroup", history_text_json(stmt, 16));
    if (*(const char *)sqlite3_column_text(stmt, 17))
        json_object_set_new(a, "gpuDevices", history_text_json(stmt, 17));
    if (*(const char *)sqlite3_column_text(stmt, 13))
        json_object_set_new(a, "outcome", history_text_json(stmt, 13));
    if (sqlite3_column_int64(stmt, 14) > 0)
        json_object_set_new(a, "peakMemoryBytes", json_integer(sqlite3_column_int64(stmt, 14)));
    if (sqlite3_column_int64(stmt, 15) > 0)
        json_object_set_new(a, "cpuSeconds", json_real((double)sqlite3_column_int64(stmt, 15) / 1e6));
    if (sqlite3_column_type(stmt, 18) != SQLITE_NULL) { /* its GPUs were sampled (schema 8) */
        json_object_set_new(a, "gpuUtilizationMeanPercent", json_real(sqlite3_column_double(stmt, 18)));
        json_object_set_new(a, "gpuUtilizationPeakPercent", json_integer(sqlite3_column_int(stmt, 19)));
        json_object_set_new(a, "gpuMemoryPeakBytes", json_integer(sqlite3_column_int64(stmt, 20) * 1048576));
    }
    return a;
}
