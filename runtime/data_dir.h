/* The data directory's owners and modes, checked at every start: tasks may pass through it to their
 * own directories and read nothing else; a tree an earlier version left open to tenants is closed. */
#ifndef CALDERA_RUNTIME_DATA_DIR_H
#define CALDERA_RUNTIME_DATA_DIR_H

#include <stddef.h>

/* Before the store opens, making nothing: the database, its -wal, -shm and -journal and admin.token
 * 0600; jobs/, volumes/ and each volumes/<ns> the server's, 0711. Then, unless the data directory
 * already is the server's 0711 (which this sets last, as the mark of a layout already secured): each
 * jobs/<uid> the server's 0711, its logs/ the server's 0700 (an earlier version gave it to the task's
 * user) with every log in it the server's 0600 and any link a task planted there removed, its exits
 * file 0600, its work/ closed to group and others, its volumes/ 0711, spare/ 0700. No name is
 * followed. Returns 0, or -1 with a sentence in why. */
int data_dir_secure(const char *data_dir, char *why, size_t why_len);

#endif
