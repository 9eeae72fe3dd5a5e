/* The events table read in sequence order for streams that resume from before the live hub (the
 * WebSocket gateway after a restart or a long disconnect), a bounded range of it at a time. */
#include "store/history_internal.h"
#include "store/store_internal.h"

static const char *const sql_events =
    "SELECT e.seq, e.time_ms, e.kind, e.namespace, e.name, e.job_uid, coalesce(j.name, ''), e.from_phase,"
    " e.to_phase, e.reason, e.message FROM events e LEFT JOIN jobs j ON j.uid = e.job_uid"
    " WHERE e.seq > ?1 AND e.seq <= ?2 ORDER BY e.seq";

int store_events_read(struct store_reader *r, uint64_t after, uint64_t upto,
                      int (*fn)(void *ctx, const struct store_event *ev), void *ctx, uint64_t *last,
                      struct api_status *st)
{
    *last = upto;
    sqlite3_stmt *q;
    if (history_prepare(r, sql_events, &q, st) != 0)
        return -1;
    sqlite3_bind_int64(q, 1, (sqlite3_int64)after);
    sqlite3_bind_int64(q, 2, (sqlite3_int64)upto);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        struct store_event ev = {(uint64_t)sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 1),
                                 store_column_text(q, 2), store_column_text(q, 3), store_column_text(q, 4),
                                 store_column_text(q, 5), store_column_text(q, 6), store_column_text(q, 7),
                                 store_column_text(q, 8), store_column_text(q, 9), store_column_text(q, 10)};
        if (fn(ctx, &ev) != 0) {
            *last = ev.seq;
            rc = SQLITE_DONE;
            break;
        }
    }
    int result = rc == SQLITE_DONE ? 0 : history_fail_db(r, st, "reading events");
    sqlite3_finalize(q);
    return result;
}
