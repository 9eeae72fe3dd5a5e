/* The database schema as an ordered list of migrations: migration i takes PRAGMA user_version from
 * i-1 to i. Internal to the store (db.c and the tests); nothing else needs to know table layouts. */
#ifndef CALDERA_STORE_SCHEMA_H
#define CALDERA_STORE_SCHEMA_H

#include <sqlite3.h>
#include <stddef.h>

/* The newest schema version this build knows (the number of migrations). */
int schema_latest_version(void);

/* Reads PRAGMA user_version. Returns an SQLite result code (SQLITE_OK on success). */
int schema_read_version(sqlite3 *db, int *version);

/* Applies the migrations from the database's current version up to target (at most the latest), each
 * in its own transaction together with its user_version bump, so a failure leaves the database at the
 * last version that fully applied. *applied (may be NULL) counts the migrations run. path only names
 * the database in messages. Returns 0, or -1 with a sentence in err. */
int schema_migrate(sqlite3 *db, const char *path, int target, int *applied, char *err, size_t errlen);

#endif
