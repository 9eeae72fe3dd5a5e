/* Files and directories opened beneath a directory descriptor with O_NOFOLLOW, then checked with
 * fstat: a name a task could have planted is never followed, written through or chowned. */
#include "common/fs_at.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
#define APPEND_FLAGS (O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

int fd_give(int fd, uid_t uid, gid_t gid, mode_t mode)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    bool owner = (uid != FS_KEEP_ID && st.st_uid != uid) || (gid != (gid_t)FS_KEEP_ID && st.st_gid != gid);
    if (owner && fchown(fd, uid, gid) != 0)
        return -1;
    /* after the chown, which clears set-id bits */
    if (mode != FS_KEEP_MODE && ((st.st_mode & 07777) != mode || owner) && fchmod(fd, mode) != 0)
        return -1;
    return 0;
}

/* openat of a directory, saying ELOOP (not O_DIRECTORY's ENOTDIR) for a symbolic link. */
static int open_dir_nofollow(int dir_fd, const char *name)
{
    int fd = openat(dir_fd, name, DIR_FLAGS);
    struct stat st;
    if (fd < 0 && errno == ENOTDIR) {
        bool link = fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
        errno = link ? ELOOP : ENOTDIR;
    }
    return fd;
}

int dir_open_at(int dir_fd, const char *name, mode_t mode, bool *made)
{
    *made = false;
    int fd = open_dir_nofollow(dir_fd, name);
    if (fd >= 0 || errno != ENOENT)
        return fd;
    if (mkdirat(dir_fd, name, mode) == 0)
        *made = true;
    else if (errno != EEXIST)
        return -1;
    return open_dir_nofollow(dir_fd, name);
}

int dir_open_own_at(int dir_fd, const char *name, mode_t mode)
{
    bool made;
    int fd = dir_open_at(dir_fd, name, mode, &made);
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) { /* not the directory the server made: away with it */
        if (unlinkat(dir_fd, name, 0) != 0)
            return -1;
        fd = dir_open_at(dir_fd, name, mode, &made);
    }
    if (fd >= 0 && fd_give(fd, geteuid(), getegid(), mode) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

int dir_open_own(const char *path, mode_t mode, mode_t parent_mode)
{
    char parent[4096];
    const char *slash = strrchr(path, '/');
    if (!slash || !slash[1] ||
        snprintf(parent, sizeof parent, "%.*s", (int)(slash - path), path) >= (int)sizeof parent) {
        errno = EINVAL;
        return -1;
    }
    if (!parent[0])
        snprintf(parent, sizeof parent, "/");
    int parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent_fd < 0 && errno == ENOENT && mkdir_p(parent, parent_mode) == 0)
        parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent_fd < 0)
        return -1;
    int fd = dir_open_own_at(parent_fd, slash + 1, mode);
    int err = errno;
    close(parent_fd);
    errno = err;
    return fd;
}

/* What the server may append to: its own regular file, one link (a hard link someone made to it, or
 * theirs to another file, has two). */
static bool own_single_file(int fd, struct stat *st)
{
    return fstat(fd, st) == 0 && S_ISREG(st->st_mode) && st->st_nlink == 1 && st->st_uid == geteuid();
}

int file_open_append_at(int dir_fd, const char *name, mode_t mode)
{
    for (int tries = 0;; tries++) {
        int fd = openat(dir_fd, name, APPEND_FLAGS, mode);
        struct stat st;
        if (fd >= 0 && own_single_file(fd, &st)) {
            int flags = fcntl(fd, F_GETFL);
            if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ||
                ((st.st_mode & 07777) != mode && fchmod(fd, mode) != 0)) {
                int err = errno;
                close(fd);
                errno = err;
                return -1;
            }
            return fd;
        }
        /* ELOOP: a symbolic link; ENXIO: a fifo nobody reads; EISDIR: a directory; opened but not
         * the server's single-link file: a hard link, a fifo someone reads, another owner's file */
        int err = fd >= 0 ? EEXIST : errno;
        if (fd >= 0)
            close(fd);
        if (tries > 0 || (err != ELOOP && err != ENXIO && err != EISDIR && err != EEXIST)) {
            errno = err;
            return -1;
        }
        if (unlinkat(dir_fd, name, err == EISDIR ? AT_REMOVEDIR : 0) != 0)
            return -1;
    }
}
