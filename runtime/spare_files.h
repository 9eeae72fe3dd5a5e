/* Files and directories made ahead of need: a background thread keeps a stock of empty log files
 * and empty job directories in the data directory (refilled once takes pause for 50 ms, so a burst
 * of starts has the CPU and the directories to itself, or when it falls below a quarter), and starting an attempt renames one into place
 * instead of creating it. A rename costs the file system a directory entry; a creation costs it
 * an inode, which on a busy ext4 can take a millisecond of the core thread's time. */
#ifndef CALDERA_SPARE_FILES_H
#define CALDERA_SPARE_FILES_H

#include <stdbool.h>

/* Starts the stock in dir (created 0700 if missing; spares left there by an earlier run are used):
 * nfiles empty files (0600) and ndirs directories (0711), each holding the subdirectories (0700)
 * listed in subdirs and the empty files (0600) listed in dir_files (NULL-terminated, may be NULL;
 * each with room reserved past its end, as exits_file_reserve() makes it), all the server's: a
 * rename moves them into place as they are. A spare directory an earlier run made with other
 * contents is still used: whoever takes one creates what it misses anyway.
 * Without a call, the takes below always fail. Returns 0 or -1. */
int spare_files_start(const char *dir, int nfiles, int ndirs, const char *const *subdirs, const char *const *dir_files);
/* Stops the refilling thread (the stock stays on disk for the next run). */
void spare_files_stop(void);
/* Renames a spare file to path, which must not exist yet (it is never replaced). Returns 0, or -1
 * when the stock is empty or path exists: the caller then creates it itself. */
int spare_take_file(const char *path);
/* The same beneath a directory descriptor: name in dir_fd, never through a link in the path. */
int spare_take_file_at(int dir_fd, const char *name);
/* The same for a spare directory (with its subdirectories). */
int spare_take_dir(const char *path);

#endif
