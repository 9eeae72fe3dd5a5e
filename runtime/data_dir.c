/* The data directory's owners and modes at start: the server's files 0600, the directories tasks pass
 * through 0711, and an earlier version's job trees (logs given to the task's user) taken back. */
#include "runtime/data_dir.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs_at.h"
#include "common/log.h"
#include "runtime/task_setup.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
#define SPARE_DIR_MODE 0700

static const char *const private_files[] = {"caldera.db",         "caldera.db-wal", "caldera.db-shm",
                                            "caldera.db-journal", "admin.token",    NULL};

static bool is_dot(const char *name) { return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])); }

/* dir_fd/name, a directory (never a link), given to the server with mode; -1 when it is not there. */
static int take_dir(int dir_fd, const char *name, mode_t mode)
{
    int fd = openat(dir_fd, name, DIR_FLAGS);
    if (fd >= 0 && fd_give(fd, geteuid(), getegid(), mode) != 0) {
        log_warn("data directory: cannot make %s the server's, %o: %s", name, (unsigned)mode, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* dir_fd/name when it is the server's single-link regular file: mode set; anything else in a
 * directory only the server may write (a link a task planted) removed when remove_other. */
static void take_file(int dir_fd, const char *name, mode_t mode, bool remove_other)
{
    struct stat st;
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return;
    if (S_ISREG(st.st_mode) && st.st_nlink == 1) {
        /* the directory is the server's alone by now: the name cannot change under these */
        if (fchownat(dir_fd, name, geteuid(), getegid(), AT_SYMLINK_NOFOLLOW) != 0 ||
            fchmodat(dir_fd, name, mode, 0) != 0)
            log_warn("data directory: cannot make %s the server's, %o: %s", name, (unsigned)mode, strerror(errno));
    } else if (remove_other && unlinkat(dir_fd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0) {
        log_warn("data directory: cannot remove %s, which is no file of the server's: %s", name, strerror(errno));
    }
}

/* Calls each(dir_fd, name) for every entry of dir_fd but . and ..; returns how many. */
static int each_entry(int dir_fd, void (*each)(int, const char *))
{
    int fd = dup(dir_fd), n = 0;
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (!is_dot(e->d_name)) {
            each(dir_fd, e->d_name);
            n++;
        }
    closedir(d);
    return n;
}

static void take_log(int logs_fd, const char *name) { take_file(logs_fd, name, TASK_LOG_MODE, true); }

/* One jobs/<uid>: the server's; its logs the server's alone; its work directory its user's alone. */
static void take_job(int jobs_fd, const char *name)
{
    int job_fd = take_dir(jobs_fd, name, TASK_TRAVERSE_MODE);
    if (job_fd < 0)
        return;
    int logs_fd = take_dir(job_fd, "logs", TASK_PRIVATE_MODE);
    if (logs_fd >= 0) {
        each_entry(logs_fd, take_log);
        close(logs_fd);
    }
    take_file(job_fd, "exits", TASK_LOG_MODE, true);
    int fd = take_dir(job_fd, "volumes", TASK_TRAVERSE_MODE);
    if (fd >= 0)
        close(fd);
    struct stat st;
    fd = openat(job_fd, "work", DIR_FLAGS);
    if (fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 077) && fchmod(fd, st.st_mode & 07700) != 0)
        log_warn("data directory: cannot close jobs/%s/work to others: %s", name, strerror(errno));
    if (fd >= 0)
        close(fd);
    close(job_fd);
}

static void take_namespace_volumes(int volumes_fd, const char *name)
{
    int fd = take_dir(volumes_fd, name, TASK_TRAVERSE_MODE);
    if (fd >= 0)
        close(fd);
}

/* Tasks of other users enter their work directories by path, as themselves: every directory above the
 * data directory must let others pass. Says which one does not. */
static void check_ancestors(const char *data_dir)
{
    char path[4096];
    if (geteuid() != 0 || !realpath(data_dir, path))
        return;
    for (char *slash = strrchr(path, '/'); slash; slash = strrchr(path, '/')) {
        *slash = '\0';
        const char *dir = path[0] ? path : "/";
        struct stat st;
        if (stat(dir, &st) == 0 && !(st.st_mode & S_IXOTH)) {
            log_warn(
                "data directory: %s lets no other user pass (mode %o): tasks that run as another user cannot "
                "enter their work directories",
                dir, (unsigned)(st.st_mode & 07777));
            return;
        }
    }
}

int data_dir_secure(const char *data_dir, char *why, size_t why_len)
{
    int dir_fd = open(data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (dir_fd < 0 || fstat(dir_fd, &st) != 0) {
        snprintf(why, why_len, "cannot open the data directory %s: %s", data_dir, strerror(errno));
        if (dir_fd >= 0)
            close(dir_fd);
        return -1;
    }
    bool secured = (st.st_mode & 07777) == TASK_TRAVERSE_MODE && st.st_uid == geteuid();
    check_ancestors(data_dir);
    for (int i = 0; private_files[i]; i++)
        take_file(dir_fd, private_files[i], 0600, false);
    /* Nothing is made here: a start the store then refuses leaves the directory as it found it. */
    int jobs_fd = take_dir(dir_fd, "jobs", TASK_TRAVERSE_MODE);
    int volumes_fd = take_dir(dir_fd, "volumes", TASK_TRAVERSE_MODE);
    if (volumes_fd >= 0) {
        each_entry(volumes_fd, take_namespace_volumes);
        close(volumes_fd);
    }
    if (!secured) {
        int n = jobs_fd >= 0 ? each_entry(jobs_fd, take_job) : 0;
        int fd = take_dir(dir_fd, "spare", SPARE_DIR_MODE);
        if (fd >= 0)
            close(fd);
        if (n > 0)
            log_info("data directory: %d job director%s made the server's (logs 0600 in a 0700 directory)", n,
                     n == 1 ? "y" : "ies");
    }
    if (jobs_fd >= 0)
        close(jobs_fd);
    /* last: the mark that the layout is secured */
    int rc = 0;
    if (fd_give(dir_fd, geteuid(), getegid(), TASK_TRAVERSE_MODE) != 0) {
        snprintf(why, why_len, "cannot make the data directory %s the job server's, 0711: %s", data_dir,
                 strerror(errno));
        if (geteuid() == 0)
            rc = -1; /* tenants' tasks would run beside an open tree */
        else
            log_warn("%s", why);
    }
    close(dir_fd);
    return rc;
}
