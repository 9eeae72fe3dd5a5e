/* Files and directories opened beneath a directory descriptor, never through a symbolic link or a
 * name someone else could have planted: what the server opens on a tenant's behalf. */
#ifndef CALDERA_FS_AT_H
#define CALDERA_FS_AT_H

#include <stdbool.h>
#include <sys/types.h>

/* Leaves an id or the mode as it is in fd_give(). */
#define FS_KEEP_ID ((uid_t)-1)
#define FS_KEEP_MODE ((mode_t)-1)

/* Gives the open file fd to uid:gid with mode (each only where it differs; FS_KEEP_* leave one as it
 * is). Returns 0 or -1 with errno. */
int fd_give(int fd, uid_t uid, gid_t gid, mode_t mode);
/* dir_fd/name as a directory, made with mode when missing (*made says so), opened without following
 * a symbolic link (ELOOP) and refused when something else holds the name (ENOTDIR). Returns a
 * close-on-exec descriptor, or -1 with errno. */
int dir_open_at(int dir_fd, const char *name, mode_t mode, bool *made);
/* dir_fd/name as a directory of the server's: made when missing; a symbolic link or a file in its place
 * is removed first; owned by the server's ids with exactly mode. Returns a descriptor or -1 with errno. */
int dir_open_own_at(int dir_fd, const char *name, mode_t mode);
/* The directory at path (its parents trusted: the server's), as dir_open_own_at, its missing parents
 * made with parent_mode. Returns a descriptor or -1 with errno. */
int dir_open_own(const char *path, mode_t mode, mode_t parent_mode);
/* dir_fd/name opened for appending, O_NOFOLLOW: a regular file of the server's with one link and
 * exactly mode. Anything else under the name (a symbolic link or hard link someone planted, a fifo,
 * a file of another owner, an empty directory) is removed and the file made anew: never opened
 * through, written or chowned. Returns a close-on-exec descriptor, or -1 with errno. */
int file_open_append_at(int dir_fd, const char *name, mode_t mode);

#endif
