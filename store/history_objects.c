/* Reading the objects table by kind for other parts of the server: the gateway loads its Tokens
 * this way at start-up, on a reader of its own, while the core never holds them. */
#include "store/history_internal.h"
#include "store/store.h"

static const char sql_objects[] =
    "SELECT kind, namespace, name, json FROM objects WHERE kind = ?1 ORDER BY namespace, name";

int store_read_objects(struct store_reader *r, const char *kind,
                       int (*row)(void *ctx, const struct store_object_row *obj, struct api_status *st), void *ctx,
                       struct api_status *st)
{
    sqlite3_stmt *stmt;
    if (history_prepare(r, sql_objects, &stmt, st) != 0)
        return -1;
    sqlite3_bind_text(stmt, 1, kind, -1, SQLITE_STATIC);
    int rc = history_begin(r, st), step = SQLITE_DONE;
    bool begun = rc == 0;
    while (rc == 0 && (step = sqlite3_step(stmt)) == SQLITE_ROW) {
        struct store_object_row obj = {
            (const char *)sqlite3_column_text(stmt, 0), (const char *)sqlite3_column_text(stmt, 1),
            (const char *)sqlite3_column_text(stmt, 2), (const char *)sqlite3_column_text(stmt, 3)};
        rc = row(ctx, &obj, st);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = history_fail_db(r, st, "reading stored objects");
    if (begun)
        history_end(r);
    sqlite3_finalize(stmt);
    return rc;
}
