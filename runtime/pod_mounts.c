/* Pod volumes before the spawn, in the server: hostPath types as the kubelet's hostPath checker reads
 * them ("" and DirectoryOrCreate make a missing directory 0755, FileOrCreate an empty file 0644; the
 * rest must find their kind), emptyDir directories at jobs/<uid>/pods/<pod>/<volume> (0700, the
 * task's; emptied when a new pod of that name starts, kept across its container's restarts, removed
 * with the job), and a hostPath's missing mount point made one name at a time through fs_at (a symbolic
 * link is refused, never followed). An emptyDir is mounted over a directory that exists. A configMap
 * or secret volume is an emptyDir made anew at each attempt with its files written beneath its
 * descriptor (made exclusively, O_NOFOLLOW), then given to the task's user and bound read-only. */
#include "runtime/pod_mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/fs_at.h"
#include "model/job.h"
#include "runtime/task_setup.h"

#define MOUNT_POINT_MODE 0755

static const char *const type_words[] = {
    [HOST_PATH_DIRECTORY] = "a directory",
    [HOST_PATH_DIRECTORY_OR_CREATE] = "a directory",
    [HOST_PATH_FILE] = "a file",
    [HOST_PATH_FILE_OR_CREATE] = "a file",
    [HOST_PATH_SOCKET] = "a socket file",
    [HOST_PATH_CHAR_DEVICE] = "a character device",
    [HOST_PATH_BLOCK_DEVICE] = "a block device",
};

static bool type_matches(int type, mode_t mode)
{
    switch (type) {
    case HOST_PATH_DIRECTORY:
    case HOST_PATH_DIRECTORY_OR_CREATE: return S_ISDIR(mode);
    case HOST_PATH_FILE:
    case HOST_PATH_FILE_OR_CREATE: return S_ISREG(mode);
    case HOST_PATH_SOCKET: return S_ISSOCK(mode);
    case HOST_PATH_CHAR_DEVICE: return S_ISCHR(mode);
    case HOST_PATH_BLOCK_DEVICE: return S_ISBLK(mode);
    default: return true;
    }
}

/* The hostPath as its type wants it; *is_dir says what it is. */
static int check_host_path(const struct attempt_mount *m, bool *is_dir, char *why, size_t why_len)
{
    struct stat st;
    if (stat(m->source, &st) != 0 && errno == ENOENT) {
        if (m->host_type == HOST_PATH_UNSET || m->host_type == HOST_PATH_DIRECTORY_OR_CREATE) {
            if (mkdir_p(m->source, 0755) != 0) {
                snprintf(why, why_len, "cannot make the hostPath directory %s: %s", m->source, strerror(errno));
                return -1;
            }
        } else if (m->host_type == HOST_PATH_FILE_OR_CREATE) {
            int fd = open(m->source, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (fd < 0) {
                snprintf(why, why_len, "cannot make the hostPath file %s: %s", m->source, strerror(errno));
                return -1;
            }
            close(fd);
        }
    }
    if (stat(m->source, &st) != 0 || !type_matches(m->host_type, st.st_mode)) {
        if (m->host_type == HOST_PATH_UNSET)
            snprintf(why, why_len, "the hostPath %s cannot be used: %s", m->source, strerror(errno));
        else
            snprintf(why, why_len, "hostPath type check failed: %s is not %s", m->source, type_words[m->host_type]);
        return -1;
    }
    *is_dir = S_ISDIR(st.st_mode);
    return 0;
}

/* jobs/<uid>/pods/<pod>/ (the server's, 0711) and the volume's directory in it, the task's. */
static int make_empty_dir(const struct attempt_mount *m, const struct attempt_spec *spec, bool chown_to_user, char *why,
                          size_t why_len)
{
    char pod_dir[4096];
    const char *slash = strrchr(m->source, '/');
    snprintf(pod_dir, sizeof pod_dir, "%.*s", (int)(slash - m->source), m->source);
    int pod_fd = dir_open_own(pod_dir, TASK_TRAVERSE_MODE, TASK_TRAVERSE_MODE);
    if (pod_fd >= 0 && m->fresh && remove_tree(m->source) != 0) { /* a new pod starts with it empty */
        snprintf(why, why_len, "cannot empty the emptyDir directory %s: %s", m->source, strerror(errno));
        close(pod_fd);
        return -1;
    }
    bool made = false;
    int fd = pod_fd < 0 ? -1 : dir_open_at(pod_fd, slash + 1, TASK_PRIVATE_MODE, &made);
    int rc = fd < 0 ? -1 : 0;
    if (fd >= 0 && made && chown_to_user && !m->files_volume) /* a files volume is given once written */
        rc = fd_give(fd, (uid_t)spec->uid, (gid_t)spec->gid, TASK_PRIVATE_MODE);
    if (rc != 0)
        snprintf(why, why_len, "cannot make the emptyDir directory %s: %s", m->source, strerror(errno));
    if (fd >= 0)
        close(fd);
    if (pod_fd >= 0)
        close(pod_fd);
    return rc;
}

/* The target's names into names (NUL-separated); "" and "." are skipped. Returns how many, -1 when
 * they do not fit. */
static int split_names(const char *target, char *names, size_t len)
{
    size_t at = 0;
    int n = 0;
    for (const char *p = target; *p;) {
        while (*p == '/')
            p++;
        size_t l = strcspn(p, "/");
        if (l == 0 || (l == 1 && p[0] == '.')) {
            p += l;
            continue;
        }
        if (at + l + 1 > len)
            return -1;
        memcpy(names + at, p, l);
        names[at + l] = '\0';
        at += l + 1, p += l, n++;
    }
    return n;
}

/* One file of a configMap or secret volume beneath vol_fd: its directories made one name at a time
 * (never through a symbolic link), the file made exclusively, written, then given to the task's user
 * with its mode. */
static int write_volume_file(int vol_fd, const struct attempt_file *file, const struct attempt_spec *spec,
                             bool chown_to_user)
{
    char names[1024];
    int n = split_names(file->path, names, sizeof names);
    if (n <= 0) {
        errno = EINVAL;
        return -1;
    }
    int dir = dup(vol_fd);
    const char *name = names;
    for (int i = 0; i + 1 < n && dir >= 0; i++) {
        bool made = false;
        int next = dir_open_at(dir, name, TASK_PRIVATE_MODE, &made);
        if (next >= 0 && made && chown_to_user &&
            fd_give(next, (uid_t)spec->uid, (gid_t)spec->gid, TASK_PRIVATE_MODE) != 0) {
            close(next);
            next = -1;
        }
        int saved = errno;
        close(dir);
        errno = saved;
        dir = next;
        name += strlen(name) + 1;
    }
    if (dir < 0)
        return -1;
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int saved = errno;
    close(dir);
    if (fd < 0) {
        errno = saved;
        return -1;
    }
    int rc = 0;
    for (size_t at = 0; at < file->len && rc == 0;) {
        ssize_t w = write(fd, file->data + at, file->len - at);
        if (w < 0 && errno != EINTR)
            rc = -1;
        at += w > 0 ? (size_t)w : 0;
    }
    if (rc == 0)
        rc = fd_give(fd, chown_to_user ? (uid_t)spec->uid : FS_KEEP_ID, chown_to_user ? (gid_t)spec->gid : FS_KEEP_ID,
                     (mode_t)file->mode);
    saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* A configMap or secret volume's files, written into its fresh directory (the server's, 0700, while
 * they are written), which then becomes the task's user's. */
static int write_volume_files(const struct attempt_mount *m, const struct attempt_spec *spec, bool chown_to_user,
                              char *why, size_t why_len)
{
    int fd = open(m->source, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = fd < 0 ? -1 : 0;
    const char *failed = "";
    for (int i = 0; rc == 0 && i < m->nfiles; i++)
        if ((rc = write_volume_file(fd, &m->files[i], spec, chown_to_user)) != 0)
            failed = m->files[i].path;
    if (rc == 0 && chown_to_user)
        rc = fd_give(fd, (uid_t)spec->uid, (gid_t)spec->gid, TASK_PRIVATE_MODE);
    if (rc != 0)
        snprintf(why, why_len, "cannot write the volume's file %s%s%s: %s", m->source, *failed ? "/" : "", failed,
                 strerror(errno));
    if (fd >= 0)
        close(fd);
    return rc;
}

/* A hostPath's mount point, made where missing: directories one name at a time (dir_open_at never
 * follows a symbolic link), the last a directory or, for a file, an empty file. */
static int make_mount_point(const char *target, const char *names, int n, bool dir, char *why, size_t why_len)
{
    int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    for (int i = 0; i < n && fd >= 0; i++) {
        int next;
        if (i + 1 < n || dir) {
            bool made;
            next = dir_open_at(fd, names, MOUNT_POINT_MODE, &made);
        } else {
            struct stat st;
            next = fstatat(fd, names, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT ||
                           mknodat(fd, names, S_IFREG | 0644, 0) == 0
                       ? 0
                       : -1;
            next = next == 0 ? dup(fd) : -1;
        }
        int saved = errno;
        close(fd);
        errno = saved;
        fd = next;
        names += strlen(names) + 1;
    }
    if (fd < 0) {
        snprintf(why, why_len, "cannot make the mountPath %s: %s", target,
                 errno == ELOOP || errno == ENOTDIR ? "it passes through a symbolic link or a file: not followed"
                                                    : strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

int pod_mounts_prepare(const struct attempt_spec *spec, bool chown_to_user, bool for_container, struct pod_mounts *out,
                       char *why, size_t why_len)
{
    out->count = 0;
    if (spec->nmounts > ATTEMPT_MOUNTS_MAX) {
        snprintf(why, why_len, "a pod may mount at most %d volumes", ATTEMPT_MOUNTS_MAX);
        return -1;
    }
    for (int i = 0; i < spec->nmounts; i++) {
        const struct attempt_mount *m = &spec->mounts[i];
        struct spawn_mount *sm = &out->mounts[i];
        *sm = (struct spawn_mount){.source = m->source, .source_nofollow = m->empty_dir, .read_only = m->read_only};
        sm->ntarget_names = split_names(m->target, out->names[i], sizeof out->names[i]);
        sm->target_names = out->names[i];
        if (sm->ntarget_names <= 0) {
            snprintf(why, why_len, "the mountPath %s cannot be mounted over", m->target);
            return -1;
        }
        bool is_dir = true;
        if (!m->source) { /* emptyDir medium Memory */
            if (m->tmpfs_size > 0)
                snprintf(out->size[i], sizeof out->size[i], "%lld", (long long)m->tmpfs_size),
                    sm->tmpfs_size = out->size[i];
            if (chown_to_user && spec->uid >= 0)
                snprintf(out->uid[i], sizeof out->uid[i], "%d", (int)spec->uid), sm->tmpfs_uid = out->uid[i];
            if (chown_to_user && spec->gid >= 0)
                snprintf(out->gid[i], sizeof out->gid[i], "%d", (int)spec->gid), sm->tmpfs_gid = out->gid[i];
        } else if (m->empty_dir ? make_empty_dir(m, spec, chown_to_user, why, why_len) != 0 ||
                                      (m->files_volume && write_volume_files(m, spec, chown_to_user, why, why_len) != 0)
                                : check_host_path(m, &is_dir, why, why_len) != 0 ||
                                      (!for_container && make_mount_point(m->target, out->names[i], sm->ntarget_names,
                                                                          is_dir, why, why_len) != 0)) {
            return -1;
        }
        out->count++;
    }
    return 0;
}
