/* Test fixtures for database tests. The read-only connection proves nothing about the store's
 * own connections: it only looks at what they wrote. */
#include "tests/lib/tmpdb.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/fs.h"
#include "store/store.h"

bool tmp_db_make(struct tmp_db *t)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/caldera-db-XXXXXX");
    if (!mkdtemp(t->dir))
        return false;
    snprintf(t->path, sizeof t->path, "%s/caldera.db", t->dir);
    return true;
}

void tmp_db_remove(struct tmp_db *t) { remove_tree(t->dir); }

long long tmp_db_query_int(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *stmt;
    long long v = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK) {
        if (sqlite3_step(stmt) == SQLITE_ROW)
            v = sqlite3_column_int64(stmt, 0);
        sqlite3_finalize(stmt);
    }
    sqlite3_close(db);
    return v;
}

sqlite3 *tmp_db_open_schema(const struct tmp_db *t)
{
    struct store *s;
    char err[512];
    if (store_open(t->path, &s, err, sizeof err) != 0)
        return NULL;
    store_close(s);
    sqlite3 *db = NULL;
    if (sqlite3_open(t->path, &db) != SQLITE_OK) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}
