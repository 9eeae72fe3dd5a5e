/* Small file-system helpers: create a directory path, read a whole file, write a file atomically
 * (a temporary beside it, fsync, rename). */
#ifndef CALDERA_FS_H
#define CALDERA_FS_H

#include <stddef.h>
#include <sys/types.h>

/* mkdir -p with exactly the given mode (not less the umask) for created directories; returns 0 or
 * -1 with errno set. */
int mkdir_p(const char *path, mode_t mode);
/* Reads at most max_len bytes; NUL-terminates. Returns 0, or -1 with errno (EFBIG when larger). */
int read_file(const char *path, size_t max_len, char **data, size_t *len);
/* Writes through a temporary file (made with exactly mode), fsyncs and renames; returns 0 or -1
 * with errno set. */
int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode);
/* Removes a directory tree without ever following a symbolic link inside it (names are taken
 * relative to their directory's descriptor, directories opened O_NOFOLLOW) or entering another
 * file system mounted inside it; a path that is a file or a link is removed itself. A top directory
 * of the caller's is first made 0700, so nobody reaches into the tree while it goes. Returns 0, or
 * -1 with errno set (a missing path is success). */
int remove_tree(const char *path);

#endif
