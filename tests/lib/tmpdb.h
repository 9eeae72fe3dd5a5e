/* Test fixtures for database tests: a fresh temporary directory with a database path in it, one-value
 * queries through a read-only connection of the test's own, and the schema opened for hand-made rows. */
#ifndef CALDERA_TMPDB_H
#define CALDERA_TMPDB_H

#include <sqlite3.h>
#include <stdbool.h>

struct tmp_db {
    char dir[64];
    char path[128]; /* <dir>/caldera.db, not created */
};

bool tmp_db_make(struct tmp_db *t);
void tmp_db_remove(struct tmp_db *t);
/* The first column of the first row of sql, or -1. */
long long tmp_db_query_int(const char *path, const char *sql);
/* Makes t's schema (the store opened and closed) and opens it through SQLite for rows written by
 * hand; the caller closes it. NULL where either failed. */
sqlite3 *tmp_db_open_schema(const struct tmp_db *t);

#endif
