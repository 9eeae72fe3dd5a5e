/* Preparing an attempt in the parent: everything that may allocate, look up users or print an error
 * happens here, so that the spawned child has nothing left to do but syscalls. */
#include "runtime/task_setup.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/fs_at.h"
#include "common/strv.h"
#include "runtime/spare_files.h"

static const char *env_lookup(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; envp && envp[i]; i++)
        if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
            return envp[i] + n + 1;
    return NULL;
}

int task_resolve_command(const char *cmd, char *const *envp, char *out, size_t len, char *why, size_t why_len)
{
    if (strchr(cmd, '/')) {
        if (access(cmd, X_OK) != 0) {
            snprintf(why, why_len, "exec: \"%s\": %s", cmd, strerror(errno));
            return -1;
        }
        snprintf(out, len, "%s", cmd);
        return 0;
    }
    const char *path = env_lookup(envp, "PATH");
    for (const char *dir = path; dir && *dir;) {
        const char *end = strchr(dir, ':');
        size_t dlen = end ? (size_t)(end - dir) : strlen(dir);
        snprintf(out, len, "%.*s/%s", (int)dlen, dlen ? dir : ".", cmd);
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        dir = end ? end + 1 : NULL;
    }
    snprintf(why, why_len, "exec: \"%s\": executable file not found in $PATH", cmd);
    return -1;
}

int task_user_env(int32_t uid, const char *work_dir, char ***env)
{
    uid_t who = uid >= 0 ? (uid_t)uid : geteuid();
    struct passwd pw, *found = NULL;
    char buf[4096];
    int rc = strv_setenvf(env, "HOME=%s", work_dir);
    if (getpwuid_r(who, &pw, buf, sizeof buf, &found) != 0 || !found || !pw.pw_name || !pw.pw_name[0])
        return rc;
    if (who != 0 && pw.pw_dir && pw.pw_dir[0] == '/')
        rc |= strv_setenvf(env, "HOME=%s", pw.pw_dir);
    rc |= strv_setenvf(env, "USER=%s", pw.pw_name);
    rc |= strv_setenvf(env, "LOGNAME=%s", pw.pw_name);
    return rc;
}

/* path's last component into name, the rest into dir ("/" for a top-level name). */
static int split_path(const char *path, char *dir, size_t dir_len, const char **name)
{
    const char *slash = strrchr(path, '/');
    if (!slash || !slash[1] || (size_t)(slash - path) >= dir_len)
        return -1;
    snprintf(dir, dir_len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    *name = slash + 1;
    return 0;
}

/* The parent directory of a volume (volumes/<ns>, jobs/<uid>/volumes): the server's, 0711, made
 * with its missing parents. */
static int open_volume_parent(const char *dir, char *why, size_t why_len)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && mkdir_p(dir, TASK_TRAVERSE_MODE) == 0)
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid())
        return fd;
    if (fd >= 0) {
        close(fd);
        errno = EPERM;
    }
    snprintf(why, why_len, "cannot use %s for the job's volumes: %s", dir,
             errno == EPERM ? "not owned by the job server" : strerror(errno));
    return -1;
}

int task_prepare_volumes(const struct attempt_spec *spec, bool chown_to_user, int *binds, int *nbinds, char *why,
                         size_t why_len)
{
    *nbinds = 0;
    for (int i = 0; i < spec->nvolumes; i++) {
        const char *path = spec->volume_dirs[i], *name;
        char parent[4096];
        if (split_path(path, parent, sizeof parent, &name) != 0) {
            snprintf(why, why_len, "the volume directory %s is not a path below the data directory", path);
            return -1;
        }
        int parent_fd = open_volume_parent(parent, why, why_len);
        if (parent_fd < 0)
            return -1;
        /* Never through a symbolic link in the claim's place: neither chowned nor bound. */
        bool made;
        int fd = dir_open_at(parent_fd, name, TASK_PRIVATE_MODE, &made);
        close(parent_fd);
        if (fd < 0) {
            snprintf(why, why_len, "cannot use the volume directory %s for %s: %s", path, spec->volume_targets[i],
                     errno == ELOOP     ? "it is a symbolic link"
                     : errno == ENOTDIR ? "it is not a directory"
                                        : strerror(errno));
            return -1;
        }
        int rc = made ? fd_give(fd, chown_to_user ? (uid_t)spec->uid : FS_KEEP_ID,
                                chown_to_user ? (gid_t)spec->gid : (gid_t)FS_KEEP_ID, TASK_PRIVATE_MODE)
                      : 0;
        close(fd);
        if (rc != 0) {
            snprintf(why, why_len, "cannot give %s to uid %d, gid %d: %s", path, (int)spec->uid, (int)spec->gid,
                     strerror(errno));
            return -1;
        }
        struct stat st;
        if (stat(spec->volume_targets[i], &st) == 0 && S_ISDIR(st.st_mode))
            binds[(*nbinds)++] = i;
    }
    return 0;
}

/* The job's directory, parent of the logs' directory: jobs/<uid>/logs/<pod>.<attempt>.log. */
static int job_dir_of(const struct attempt_spec *spec, char *job_dir, size_t len, const char **logs_name)
{
    char logs_dir[4096];
    const char *log_name;
    if (split_path(spec->log_path, logs_dir, sizeof logs_dir, &log_name) != 0 ||
        split_path(logs_dir, job_dir, len, logs_name) != 0)
        return -1;
    /* the work directory and the exits file sit beside logs/ */
    size_t n = strlen(job_dir);
    if (strncmp(spec->work_dir, job_dir, n) != 0 || spec->work_dir[n] != '/' || strchr(spec->work_dir + n + 1, '/') ||
        (spec->exits_path && (strncmp(spec->exits_path, job_dir, n) != 0 || spec->exits_path[n] != '/' ||
                              strchr(spec->exits_path + n + 1, '/'))))
        return -1;
    return 0;
}

void task_dirs_close(struct task_dirs *d)
{
    if (d->job_fd >= 0)
        close(d->job_fd);
    if (d->logs_fd >= 0)
        close(d->logs_fd);
    d->job_fd = d->logs_fd = -1;
}

int task_prepare_dirs(const struct attempt_spec *spec, bool chown_to_user, struct task_dirs *dirs, char *why,
                      size_t why_len)
{
    dirs->job_fd = dirs->logs_fd = -1;
    char job_dir[4096];
    const char *logs_name;
    if (job_dir_of(spec, job_dir, sizeof job_dir, &logs_name) != 0) {
        snprintf(why, why_len, "the log %s, the work directory %s and the exits file are not in one job directory",
                 spec->log_path, spec->work_dir);
        return -1;
    }
    /* The job's directory and its logs are the server's alone; the task gets descriptors, not names. */
    const char *failed = job_dir;
    if ((dirs->job_fd = dir_open_own(job_dir, TASK_TRAVERSE_MODE, TASK_TRAVERSE_MODE)) >= 0) {
        failed = spec->log_path;
        dirs->logs_fd = dir_open_own_at(dirs->job_fd, logs_name, TASK_PRIVATE_MODE);
    }
    if (dirs->logs_fd < 0) {
        snprintf(why, why_len, "cannot create the job's directory %s: %s", failed, strerror(errno));
        task_dirs_close(dirs);
        return -1;
    }
    /* The work directory is the task's own (its HOME): given to it, never through a link. */
    bool made;
    const char *work_name = spec->work_dir + strlen(job_dir) + 1;
    int work_fd = dir_open_at(dirs->job_fd, work_name, TASK_PRIVATE_MODE, &made);
    int rc = work_fd < 0     ? -1
             : chown_to_user ? fd_give(work_fd, (uid_t)spec->uid, (gid_t)spec->gid, TASK_PRIVATE_MODE)
             : made          ? fd_give(work_fd, FS_KEEP_ID, FS_KEEP_ID, TASK_PRIVATE_MODE)
                             : 0;
    if (work_fd >= 0)
        close(work_fd);
    if (rc != 0) {
        if (work_fd < 0)
            snprintf(why, why_len, "cannot create the job's directory %s: %s", spec->work_dir,
                     errno == ELOOP ? "it is a symbolic link" : strerror(errno));
        else
            snprintf(why, why_len, "cannot give %s to uid %d, gid %d: %s", spec->work_dir, (int)spec->uid,
                     (int)spec->gid, strerror(errno));
        task_dirs_close(dirs);
        return -1;
    }
    return 0;
}

/* A descriptor kept clear of 0-2: the server may run with a standard descriptor closed, and the
 * child is about to overwrite them. */
static int above_stdio(int fd)
{
    if (fd < 0 || fd >= 3)
        return fd;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int err = errno;
    close(fd);
    errno = err;
    return high;
}

int task_open_log(const struct attempt_spec *spec, const struct task_dirs *dirs, char *why, size_t why_len)
{
    const char *name = strrchr(spec->log_path, '/') + 1; /* task_prepare_dirs checked the shape */
    spare_take_file_at(dirs->logs_fd, name);             /* a made file renamed into place, else the open creates it */
    int fd = above_stdio(file_open_append_at(dirs->logs_fd, name, TASK_LOG_MODE));
    if (fd < 0)
        snprintf(why, why_len, "cannot open the log %s: %s", spec->log_path, strerror(errno));
    return fd;
}

int task_open_exits(const struct attempt_spec *spec, const struct task_dirs *dirs)
{
    return above_stdio(file_open_append_at(dirs->job_fd, strrchr(spec->exits_path, '/') + 1, TASK_LOG_MODE));
}

int task_ssh_target(int32_t uid, int32_t gid, char *out, size_t len, char *why, size_t why_len)
{
    uid_t who = uid >= 0 ? (uid_t)uid : geteuid();
    char home[4096];
    if (who == 0) {
        snprintf(home, sizeof home, "/root");
    } else {
        struct passwd pw, *found = NULL;
        char buf[4096];
        if (getpwuid_r(who, &pw, buf, sizeof buf, &found) != 0 || !found || !pw.pw_dir || !pw.pw_dir[0]) {
            snprintf(why, why_len,
                     "cannot bind the job's ssh directory: uid %u has no home directory in the passwd "
                     "database",
                     (unsigned)who);
            return -1;
        }
        snprintf(home, sizeof home, "%s", pw.pw_dir);
    }
    snprintf(out, len, "%s/.ssh", strcmp(home, "/") == 0 ? "" : home);
    /* The home is the user's: ~/.ssh is looked at through its descriptor and never followed, so a
     * link swapped in for it cannot turn the chown below onto another directory. */
    int home_fd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    bool made = false;
    int fd = home_fd < 0 ? -1 : dir_open_at(home_fd, ".ssh", 0700, &made);
    int err = errno;
    if (home_fd >= 0)
        close(home_fd);
    /* A bind mount needs a target: ~/.ssh made now is the user's. */
    int rc = fd < 0 ? -1 : made && (uid >= 0 || gid >= 0) ? fd_give(fd, (uid_t)uid, (gid_t)gid, 0700) : 0;
    if (fd >= 0) {
        err = errno;
        close(fd);
    }
    if (rc != 0) {
        snprintf(why, why_len, "cannot use %s for the job's ssh directory: %s", out,
                 err == ELOOP ? "it is a symbolic link" : strerror(err));
        return -1;
    }
    return 0;
}
