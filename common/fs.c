/* Small file-system helpers: create a directory path, read a whole file, write a file atomically,
 * remove a tree. Errors come back as -1 with errno, never as a message printed here. Modes are
 * set exactly, whatever the umask (the server runs with 077). */
#include "common/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"

/* mkdir with mode as given (the umask would take bits off); an existing path is success. */
static int mkdir_exact(const char *path, mode_t mode)
{
    if (mkdir(path, mode) == 0)
        return chmod(path, mode);
    return errno == EEXIST ? 0 : -1;
}

int mkdir_p(const char *path, mode_t mode)
{
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir_exact(buf, mode) != 0)
            return -1;
        *p = '/';
    }
    return mkdir_exact(buf, mode);
}

int read_file(const char *path, size_t max_len, char **data, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > max_len) {
                free(buf);
                close(fd);
                errno = EFBIG;
                return -1;
            }
            if (GROW(buf, cap, cap + 1, 4096) != 0) {
                free(buf);
                close(fd);
                errno = ENOMEM;
                return -1;
            }
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(buf);
            close(fd);
            errno = e;
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n > max_len) {
            free(buf);
            close(fd);
            errno = EFBIG;
            return -1;
        }
    }
    close(fd);
    buf[n] = '\0';
    *data = buf;
    if (len)
        *len = n;
    return 0;
}

int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    unlink(tmp); /* a stale one's mode would stay: the file is made anew, with mode */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    if (fchmod(fd, mode) != 0)
        goto fail;
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            goto fail;
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0)
        goto fail;
    if (close(fd) != 0) {
        fd = -1;
        goto fail;
    }
    if (rename(tmp, path) != 0) {
        fd = -1;
        goto fail;
    }
    return 0;
fail:;
    int e = errno;
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    errno = e;
    return -1;
}

/* Descriptors a removal holds at most: a deeper directory is moved up to the top and removed from
 * there on a later pass, so a tree of any depth goes without a descriptor per level. */
#define REMOVE_DEPTH_MAX 48
#define REMOVE_PASSES_MAX 64 /* a tree someone keeps deepening while it goes stays, with an error */

struct removal {
    int top_fd;     /* the directory being removed */
    dev_t dev;      /* its file system: a mount point met inside is left alone */
    unsigned moved; /* directories moved up to top_fd this pass */
    unsigned long serial;
};

/* Removes what dir_fd holds (and closes it). Every name is taken relative to its directory's
 * descriptor and a directory is opened with O_NOFOLLOW: a symbolic link is removed, never followed,
 * even when someone swaps a directory for one while the removal runs. */
static int empty_dir(struct removal *r, int dir_fd, int depth)
{
    DIR *d = fdopendir(dir_fd);
    if (!d) {
        close(dir_fd);
        return -1;
    }
    int rc = 0, err = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
            continue;
        if (unlinkat(dirfd(d), name, 0) == 0 || errno == ENOENT)
            continue;
        if (errno != EISDIR && errno != EPERM) {
            rc = -1, err = errno;
            continue;
        }
        if (depth >= REMOVE_DEPTH_MAX) {
            char up[64];
            snprintf(up, sizeof up, ".removing-%lu-%d", r->serial++, (int)getpid());
            if (renameat(dirfd(d), name, r->top_fd, up) == 0)
                r->moved++;
            else
                rc = -1, err = errno;
            continue;
        }
        int child = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (child < 0 && (errno == ELOOP || errno == ENOTDIR) && unlinkat(dirfd(d), name, 0) == 0)
            continue; /* swapped for a link or a file meanwhile: that goes, and only that */
        struct stat st;
        if (child < 0 || fstat(child, &st) != 0 || st.st_dev != r->dev) {
            err = child < 0 ? errno : EXDEV;
            if (child >= 0)
                close(child);
            rc = -1;
            continue;
        }
        if (empty_dir(r, child, depth + 1) != 0)
            rc = -1, err = errno;
        if (unlinkat(dirfd(d), name, AT_REMOVEDIR) != 0 && errno != ENOENT)
            rc = -1, err = errno;
    }
    closedir(d);
    errno = err;
    return rc;
}

int remove_tree(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        if (errno != ENOTDIR && errno != ELOOP)
            return -1;
        return unlink(path) == 0 || errno == ENOENT ? 0 : -1; /* a file, or a link: itself, not its target */
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return -1;
    }
    /* Closed to other users first: nobody reaches into it by path while it goes (a task of the same
     * user in another job could otherwise keep adding to it). */
    if (st.st_uid == geteuid() && (st.st_mode & 077) && fchmod(fd, 0700) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    struct removal r = {.top_fd = fd, .dev = st.st_dev};
    int rc = 0;
    for (int passes = 0; rc == 0 && (passes == 0 || r.moved > 0); passes++) {
        r.moved = 0;
        int pass = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        rc = pass < 0 ? -1 : empty_dir(&r, pass, 0);
        if (rc == 0 && r.moved > 0 && passes + 1 >= REMOVE_PASSES_MAX)
            rc = -1, errno = ELOOP;
    }
    int err = errno;
    close(fd);
    if (rc != 0) {
        errno = err;
        return -1;
    }
    return rmdir(path) == 0 || errno == ENOENT ? 0 : -1;
}
