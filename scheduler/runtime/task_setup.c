/* Preparing an attempt in the parent: everything that may allocate, look up users or print an error
 * happens here, so that the spawned child has nothing left to do but syscalls. */
#include "scheduler/runtime/task_setup.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "scheduler/runtime/spare_files.h"

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

/* One mkdir when the directory exists (every attempt after the job's first), mkdir -p otherwise. */
static int ensure_dir(const char *path)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST)
        return 0;
    return errno == ENOENT ? mkdir_p(path, 0755) : -1;
}

int task_prepare_volumes(const struct attempt_spec *spec, bool chown_to_user, int *binds, int *nbinds, char *why,
                         size_t why_len)
{
    *nbinds = 0;
    for (int i = 0; i < spec->nvolumes; i++) {
        const char *dir = spec->volume_dirs[i];
        struct stat st;
        bool made = stat(dir, &st) != 0;
        if (made && mkdir_p(dir, 0755) != 0) {
            snprintf(why, why_len, "cannot create the volume directory %s for %s: %s", dir, spec->volume_targets[i],
                     strerror(errno));
            return -1;
        }
        if (made && chown_to_user && chown(dir, (uid_t)spec->uid, (gid_t)spec->gid) != 0) {
            snprintf(why, why_len, "cannot give %s to uid %d, gid %d: %s", dir, (int)spec->uid, (int)spec->gid,
                     strerror(errno));
            return -1;
        }
        if (stat(spec->volume_targets[i], &st) == 0 && S_ISDIR(st.st_mode))
            binds[(*nbinds)++] = i;
    }
    return 0;
}

int task_prepare_dirs(const struct attempt_spec *spec, bool chown_to_user, char *why, size_t why_len)
{
    char log_dir[4096];
    snprintf(log_dir, sizeof log_dir, "%s", spec->log_path);
    char *slash = strrchr(log_dir, '/');
    if (slash && slash != log_dir)
        *slash = '\0';
    const char *failed = NULL;
    if (ensure_dir(spec->work_dir) != 0)
        failed = spec->work_dir;
    else if (ensure_dir(log_dir) != 0)
        failed = log_dir;
    if (failed) {
        snprintf(why, why_len, "cannot create the job's directory %s: %s", failed, strerror(errno));
        return -1;
    }
    /* The task writes its work directory (and may reopen its log) as its own user. */
    if (chown_to_user) {
        if (chown(spec->work_dir, (uid_t)spec->uid, (gid_t)spec->gid) != 0)
            failed = spec->work_dir;
        else if (chown(log_dir, (uid_t)spec->uid, (gid_t)spec->gid) != 0)
            failed = log_dir;
        if (failed) {
            snprintf(why, why_len, "cannot give %s to uid %d, gid %d: %s", failed, (int)spec->uid, (int)spec->gid,
                     strerror(errno));
            return -1;
        }
    }
    struct stat st;
    if (strcmp(spec->chdir_to, spec->work_dir) != 0 && (stat(spec->chdir_to, &st) != 0 || !S_ISDIR(st.st_mode))) {
        snprintf(why, why_len, "workingDir %s does not exist on this node", spec->chdir_to);
        return -1;
    }
    return 0;
}

int task_open_log(const struct attempt_spec *spec, bool chown_to_user, char *why, size_t why_len)
{
    spare_take_file(spec->log_path); /* a made file renamed into place, else open creates it */
    int fd = open(spec->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0 && fd < 3) {
        /* The server runs with a standard descriptor closed: keep the log clear of 0-2, which the
         * child is about to overwrite. */
        int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        close(fd);
        fd = high;
    }
    if (fd < 0) {
        snprintf(why, why_len, "cannot open the log %s: %s", spec->log_path, strerror(errno));
        return -1;
    }
    if (chown_to_user && fchown(fd, (uid_t)spec->uid, (gid_t)spec->gid) != 0) {
        snprintf(why, why_len, "cannot give %s to uid %d, gid %d: %s", spec->log_path, (int)spec->uid,
                 (int)spec->gid, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int task_ssh_target(int32_t uid, int32_t gid, char *out, size_t len, char *why, size_t why_len)
{
    uid_t who = uid >= 0 ? (uid_t)uid : geteuid();
    if (who == 0) {
        snprintf(out, len, "/root/.ssh");
    } else {
        struct passwd pw, *found = NULL;
        char buf[4096];
        if (getpwuid_r(who, &pw, buf, sizeof buf, &found) != 0 || !found || !pw.pw_dir || !pw.pw_dir[0]) {
            snprintf(why, why_len, "cannot bind the job's ssh directory: uid %u has no home directory in the passwd "
                                   "database", (unsigned)who);
            return -1;
        }
        snprintf(out, len, "%s/.ssh", pw.pw_dir);
    }
    struct stat st;
    if (stat(out, &st) == 0)
        return 0;
    /* A bind mount needs a target: make the user's ~/.ssh, theirs. */
    if (mkdir_p(out, 0700) != 0 || ((uid >= 0 || gid >= 0) && chown(out, (uid_t)uid, (gid_t)gid) != 0)) {
        snprintf(why, why_len, "cannot create %s for the job's ssh directory: %s", out, strerror(errno));
        return -1;
    }
    return 0;
}
