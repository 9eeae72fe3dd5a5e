/* Changes after a sequence number, from the events, jobs, tasks and commands tables, each query in one
 * read snapshot of a reader's connection, bounded above so that a caller can go on from the live
 * streams at exactly that point. */
#include "store/changes.h"

#include <stdio.h>

#include "store/history_internal.h"

static const char *text(sqlite3_stmt *s, int col)
{
    const unsigned char *t = sqlite3_column_text(s, col);
    return t ? (const char *)t : "";
}

/* Binds after to ?1, upto to ?2, ns (when not NULL) to ?3 and kind (when not NULL) to ?4, and runs
 * row(ctx, stmt) per row in one snapshot. */
static int each_row(struct store_reader *r, const char *sql, uint64_t after, uint64_t upto, const char *ns,
                    const char *kind, int (*row)(void *ctx, sqlite3_stmt *s), void *ctx, struct api_status *st)
{
    sqlite3_stmt *s;
    if (history_prepare(r, sql, &s, st) != 0)
        return -1;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)after);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)(upto > INT64_MAX ? INT64_MAX : upto));
    if (ns)
        sqlite3_bind_text(s, 3, ns, -1, SQLITE_STATIC);
    if (kind)
        sqlite3_bind_text(s, 4, kind, -1, SQLITE_STATIC);
    if (history_begin(r, st) != 0) {
        sqlite3_finalize(s);
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        if (row(ctx, s) != 0)
            break;
    int result = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : history_fail_db(r, st, "reading changes");
    sqlite3_finalize(s);
    history_end(r);
    return result;
}

/* "... WHERE <cond>" with " AND namespace = ?3" when ns is given: two statements, one per case. */
#define WITH_NS(ns, base, ns_column, tail) ((ns) ? base " AND " ns_column " = ?3" tail : base tail)

/* --- the first event after --------------------------------------------------------- */

struct first_event {
    bool *found;
    int64_t *time_ms;
};

static int first_row(void *ctx, sqlite3_stmt *s)
{
    struct first_event *f = ctx;
    *f->found = true;
    *f->time_ms = sqlite3_column_int64(s, 0);
    return -1;
}

int store_first_event_after(struct store_reader *r, uint64_t seq, bool *found, int64_t *time_ms, struct api_status *st)
{
    *found = false;
    struct first_event f = {found, time_ms};
    return each_row(r, "SELECT time_ms FROM events WHERE seq > ?1 AND ?2 >= 0 ORDER BY seq LIMIT 1", seq, 0, NULL, NULL,
                    first_row, &f, st);
}

/* --- what is gone ------------------------------------------------------------------------- */

struct gone_ctx {
    store_gone_fn fn;
    void *ctx;
};

static int gone_row(void *ctx, sqlite3_stmt *s)
{
    struct gone_ctx *g = ctx;
    struct store_gone_row row = {text(s, 0), text(s, 1), text(s, 2), text(s, 3), (uint64_t)sqlite3_column_int64(s, 4)};
    return g->fn(g->ctx, &row);
}

int store_deleted_between(struct store_reader *r, uint64_t after, uint64_t upto, const char *kind, const char *ns,
                          store_gone_fn fn, void *ctx, struct api_status *st)
{
#define DELETED                                                                                                \
    "SELECT e.namespace, e.name, e.job_uid,"                                                                   \
    " coalesce((SELECT json_extract(j.source_json, '$.kind') FROM jobs j WHERE j.uid = e.job_uid), ''), e.seq" \
    " FROM events e WHERE e.seq > ?1 AND e.seq <= ?2 AND e.kind = ?4 AND e.to_phase = ''"
    struct gone_ctx g = {fn, ctx};
    return each_row(r, WITH_NS(ns, DELETED, "e.namespace", " ORDER BY e.seq"), after, upto, ns, kind, gone_row, &g, st);
#undef DELETED
}

/* A (job, task) row: namespace, job name, job uid, task name, replicas, the job's last event. */
static int task_pods_row(void *ctx, sqlite3_stmt *s)
{
    struct gone_ctx *g = ctx;
    long replicas = sqlite3_column_int64(s, 4);
    for (long i = 0; i < replicas; i++) {
        char pod[512];
        snprintf(pod, sizeof pod, "%s-%s-%ld", text(s, 1), text(s, 3), i);
        struct store_gone_row row = {text(s, 0), pod, text(s, 2), "", (uint64_t)sqlite3_column_int64(s, 5)};
        if (g->fn(g->ctx, &row) != 0)
            return -1;
    }
    return 0;
}

int store_pods_of_jobs_changed_between(struct store_reader *r, uint64_t after, uint64_t upto, const char *ns,
                                       store_gone_fn fn, void *ctx, struct api_status *st)
{
#define CHANGED                                                                                     \
    "SELECT j.namespace, j.name, j.uid, t.name, t.replicas, c.last FROM"                            \
    " (SELECT job_uid, max(seq) AS last FROM events WHERE seq > ?1 AND seq <= ?2 AND job_uid != ''" \
    " GROUP BY job_uid) c JOIN jobs j ON j.uid = c.job_uid JOIN tasks t ON t.job_uid = j.uid WHERE 1"
    struct gone_ctx g = {fn, ctx};
    return each_row(r, WITH_NS(ns, CHANGED, "j.namespace", ""), after, upto, ns, NULL, task_pods_row, &g, st);
#undef CHANGED
}

/* --- Commands ----------------------------------------------------------------------------- */

struct commands_ctx {
    int (*fn)(void *ctx, uint64_t seq, const char *json);
    void *ctx;
};

static int command_row(void *ctx, sqlite3_stmt *s)
{
    struct commands_ctx *c = ctx;
    return c->fn(c->ctx, (uint64_t)sqlite3_column_int64(s, 0), text(s, 1));
}

int store_commands_between(struct store_reader *r, uint64_t after, uint64_t upto, const char *ns,
                           int (*fn)(void *ctx, uint64_t seq, const char *json), void *ctx, struct api_status *st)
{
    struct commands_ctx c = {fn, ctx};
    return each_row(
        r, WITH_NS(ns, "SELECT seq, json FROM commands WHERE seq > ?1 AND seq <= ?2", "namespace", " ORDER BY seq"),
        after, upto, ns, NULL, command_row, &c, st);
}
