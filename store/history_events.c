/* The events table read in sequence order, a bounded range at a time, with each event's job name:
 * for the events API and for streams that resume from before the live hub (a watch or a WebSocket
 * subscriber after a restart or a long disconnect). */
#include "store/history_internal.h"
#include "store/store_internal.h"

#define EVENTS                                                                                             \
    "SELECT e.seq, e.time_ms, e.kind, e.namespace, e.name, e.job_uid, coalesce(j.name, ''), e.from_phase," \
    " e.to_phase, e.reason, e.message, e.uid FROM events e LEFT JOIN jobs j ON j.uid = e.job_uid"          \
    " WHERE e.seq > ?1 AND e.seq <= ?2"
static const char *const sql_events = EVENTS " ORDER BY e.seq";
static const char *const sql_events_in_namespace = EVENTS " AND e.namespace = ?3 ORDER BY e.seq";

static const char *const sql_count = "SELECT COUNT(*) FROM events WHERE seq > ?1 AND seq <= ?2";
static const char
    *const sql_count_in_namespace = "SELECT COUNT(*) FROM events WHERE seq > ?1 AND seq <= ?2 AND namespace = ?3";

int store_events_count(struct store_reader *r, uint64_t after, uint64_t upto, const char *ns, int64_t *count,
                       struct api_status *st)
{
    sqlite3_stmt *q;
    if (history_prepare(r, ns ? sql_count_in_namespace : sql_count, &q, st) != 0)
        return -1;
    sqlite3_bind_int64(q, 1, (sqlite3_int64)after);
    sqlite3_bind_int64(q, 2, (sqlite3_int64)(upto > INT64_MAX ? INT64_MAX : upto));
    if (ns)
        sqlite3_bind_text(q, 3, ns, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    if (rc == SQLITE_ROW)
        *count = sqlite3_column_int64(q, 0);
    int result = rc == SQLITE_ROW ? 0 : history_fail_db(r, st, "counting events");
    sqlite3_finalize(q);
    return result;
}

int store_events_read(struct store_reader *r, uint64_t after, uint64_t upto, const char *ns, long limit,
                      int (*fn)(void *ctx, const struct event_view *ev), void *ctx, uint64_t *last,
                      struct api_status *st)
{
    *last = upto;
    sqlite3_stmt *q;
    if (history_prepare(r, ns ? sql_events_in_namespace : sql_events, &q, st) != 0)
        return -1;
    sqlite3_bind_int64(q, 1, (sqlite3_int64)after);
    sqlite3_bind_int64(q, 2, (sqlite3_int64)(upto > INT64_MAX ? INT64_MAX : upto));
    if (ns)
        sqlite3_bind_text(q, 3, ns, -1, SQLITE_STATIC);
    int rc;
    long given = 0;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        struct event_view ev = {(uint64_t)sqlite3_column_int64(q, 0),
                                sqlite3_column_int64(q, 1),
                                store_column_text(q, 2),
                                store_column_text(q, 3),
                                store_column_text(q, 4),
                                store_column_text(q, 5),
                                store_column_text(q, 6),
                                store_column_text(q, 7),
                                store_column_text(q, 8),
                                store_column_text(q, 9),
                                store_column_text(q, 10),
                                store_column_text(q, 11)};
        if (fn(ctx, &ev) != 0 || (limit > 0 && ++given == limit)) {
            *last = ev.seq;
            rc = SQLITE_DONE;
            break;
        }
    }
    int result = rc == SQLITE_DONE ? 0 : history_fail_db(r, st, "reading events");
    sqlite3_finalize(q);
    return result;
}
