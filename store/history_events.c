/* The events table read in sequence order for streams that resume from before the live hub (the
 * WebSocket gateway after a restart or a long disconnect), a bounded range of it at a time. */
#include "store/history_internal.h"

static const char *const sql_events =
    "SELECT e.seq, e.time_ms, e.kind, e.namespace, e.name, e.job_uid, coalesce(j.name, ''), e.from_phase,"
    " e.to_phase, e.reason, e.message FROM events e LEFT JOIN jobs j ON j.uid = e.job_uid"
    " WHERE e.seq > ?1 AND e.seq <= ?2 ORDER BY e.seq";

static const char *text(sqlite3_stmt *stmt, int col)
{
    const char *s = (const char *)sqlite3_column_text(stmt, col);
    return s ? s : "";
}

int store_events_read(struct store_reader *r, uint64_t after, uint64_t upto,
                      int (*fn)(void *ctx, const struct store_event *ev), void *ctx, uint64_t *last,
                      struct api_status *st)
{
    *last = upto;
    sqlite3_stmt *stmt;
    if (history_prepare(r, sql_events, &stmt, st) != 0)
        return -1;
    sqlite3_bind_int64(stmt, 1, (sqlite3_int64)after);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)upto);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        struct store_event ev = {.seq = (uint64_t)sqlite3_column_int64(stmt, 0),
                                 .time_ms = sqlite3_column_int64(stmt, 1),
                                 .kind = text(stmt, 2), .ns = text(stmt, 3), .name = text(stmt, 4),
                                 .job_uid = text(stmt, 5), .job_name = text(stmt, 6), .from = text(stmt, 7),
                                 .to = text(stmt, 8), .reason = text(stmt, 9), .message = text(stmt, 10)};
        if (fn(ctx, &ev) != 0) {
            *last = ev.seq;
            rc = SQLITE_DONE;
            break;
        }
    }
    int result = rc == SQLITE_DONE ? 0 : history_fail_db(r, st, "reading events");
    sqlite3_finalize(stmt);
    return result;
}
