/* Tasks of an earlier run of the server: found again by pid and start time and watched through a
 * pidfd, or, when they ended meanwhile, their status read back from the supervisors' exits file. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/log.h"
#include "scheduler/runtime/cgroup.h"
#include "scheduler/runtime/process.h"

#define EXITS_FILE_MAX (64u << 20)

/* The last line of the exits file that starts with prefix ("<pod> <attempt> <pid> "), parsed into
 * ex (an exec failure as exec_errno with exit code 127). Returns true when there is one. */
static bool read_exit_line(const char *path, const char *prefix, struct replica_exit *ex)
{
    char *data = NULL;
    size_t len = 0;
    if (read_file(path, EXITS_FILE_MAX, &data, &len) != 0)
        return false;
    size_t plen = strlen(prefix);
    const char *found = NULL;
    for (const char *line = data; line && *line;) {
        if (strncmp(line, prefix, plen) == 0)
            found = line + plen;
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    char what[16];
    int value;
    long long ms = 0;
    bool ok = found && sscanf(found, "%15s %d %lld", what, &value, &ms) >= 2;
    if (ok) {
        if (strcmp(what, "signal") == 0) {
            ex->signal = value;
            ex->exit_code = 128 + value;
        } else if (strcmp(what, "exit") == 0) {
            ex->exit_code = value;
        } else if (strcmp(what, "exec-error") == 0) {
            ex->exit_code = 127;
            ex->exec_errno = value;
        } else {
            ok = false;
        }
        if (ok && ms > 0)
            ex->end_ms = ms;
    }
    free(data);
    return ok;
}

/* What an ended attempt's cgroup still tells (its OOM kills and usage), then whatever is left in it
 * is killed and the cgroup removed. */
static void collect_cgroup(const char *name, struct replica_exit *ex)
{
    const struct cgroup_layout *L = cgroup_layout();
    if (!name[0] || L->mode == CGROUP_NONE || L->count == 0)
        return;
    /* usually gone already (the attempt ended long ago): one stat instead of a dozen failed opens */
    char dir[CGROUP_PATH_MAX];
    struct stat st;
    snprintf(dir, sizeof dir, "%s/%s", L->h[0].parent, name);
    if (stat(dir, &st) != 0 && errno == ENOENT)
        return;
    struct cgroup_usage usage;
    cgroup_read_usage(name, &usage);
    ex->oom = usage.oom_kills > 0;
    ex->peak_memory = usage.peak_memory;
    ex->cpu_usec = usage.cpu_usec;
    cgroup_signal(name, SIGKILL, 0);
    cgroup_remove_async(name);
}

char *process_exit_record(const char *exits_path, const char *pod, uint32_t attempt, pid_t pid)
{
    char *rec = NULL;
    if (asprintf(&rec, "%s\n%s %u %d ", exits_path ? exits_path : "", pod, attempt, (int)pid) < 0)
        return NULL;
    return rec;
}

/* Reads how an exited process ended from the exits file its record names; unknown when it does not
 * say. Returns true when it does. */
static bool read_record(const char *record, struct replica_exit *ex)
{
    const char *nl = strchr(record, '\n');
    char path[4200];
    snprintf(path, sizeof path, "%.*s", nl ? (int)(nl - record) : 0, record);
    if (nl && path[0] && read_exit_line(path, nl + 1, ex))
        return true;
    ex->unknown = true;
    ex->exit_code = -1;
    return false;
}

void process_read_exec_error(const struct process *p, struct replica_exit *ex)
{
    if (!p->exit_record || ex->exit_code != 127 || ex->signal)
        return;
    struct replica_exit line = {0};
    if (read_record(p->exit_record, &line) && line.exec_errno)
        ex->exec_errno = line.exec_errno;
}

enum process_found process_adopt(const struct process_adoption *a, struct process *out, struct replica_exit *ex)
{
    process_runtime_init();
    *out = (struct process){.pid = -1, .pidfd = -1, .start_ticks = -1, .exit_record = NULL};
    memset(ex, 0, sizeof *ex);
    const char *cgroup = a->cgroup_name ? a->cgroup_name : "";
    if (a->pid > 0 && a->start_ticks > 0 && process_start_ticks(a->pid) == a->start_ticks) {
        int fd = (int)syscall(SYS_pidfd_open, a->pid, 0);
        /* checked again once the pidfd holds the process: the pid cannot be reused under it now */
        if (fd >= 0 && process_start_ticks(a->pid) == a->start_ticks &&
            (out->exit_record = process_exit_record(a->exits_path, a->pod, a->attempt, a->pid))) {
            out->pid = a->pid;
            out->pidfd = fd;
            out->start_ticks = a->start_ticks;
            out->adopted = true;
            if (cgroup_name_of_pid(a->pid, out->cgroup_name, sizeof out->cgroup_name) != 0)
                snprintf(out->cgroup_name, sizeof out->cgroup_name, "%s", cgroup);
            return PROCESS_ADOPTED;
        }
        if (fd >= 0)
            close(fd);
    }
    ex->end_ms = clock_wall_ms();
    char *rec = process_exit_record(a->exits_path, a->pod, a->attempt, a->pid);
    if (rec) {
        read_record(rec, ex);
        free(rec);
    } else {
        ex->unknown = true;
        ex->exit_code = -1;
    }
    collect_cgroup(cgroup, ex);
    return ex->unknown ? PROCESS_LOST : PROCESS_EXITED;
}

bool process_wait_exit(const struct process *p, int timeout_ms)
{
    if (p->pidfd < 0)
        return true;
    struct pollfd pfd = {.fd = p->pidfd, .events = POLLIN};
    int n;
    while ((n = poll(&pfd, 1, timeout_ms)) < 0 && errno == EINTR)
        ;
    return n == 1;
}

int process_reap_adopted(struct process *p, struct replica_exit *ex)
{
    if (!process_wait_exit(p, 0))
        return -1;
    memset(ex, 0, sizeof *ex);
    ex->end_ms = clock_wall_ms();
    read_record(p->exit_record, ex);
    collect_cgroup(p->cgroup_name, ex);
    p->cgroup_name[0] = '\0';
    process_forget(p);
    return 0;
}

void process_forget(struct process *p)
{
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->pidfd = -1;
    free(p->exit_record);
    p->exit_record = NULL;
}

/* Whether name is among the first n of names. */
static bool seen(char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

int process_sweep_orphans(bool (*keep)(void *ctx, const char *cgroup_name), void *ctx)
{
    const struct cgroup_layout *L = cgroup_layout();
    char **swept = NULL;
    int removed = 0, cap = 0;
    /* every hierarchy: a crash may leave an attempt's directory in some and not others */
    for (int h = 0; h < L->count && L->mode != CGROUP_NONE; h++) {
        DIR *d = opendir(L->h[h].parent);
        struct dirent *de;
        while (d && (de = readdir(d))) {
            if (de->d_type != DT_DIR || de->d_name[0] == '.' || seen(swept, removed, de->d_name) ||
                keep(ctx, de->d_name))
                continue;
            log_warn("killing the tasks of cgroup %s: the last run started them but never recorded it",
                     de->d_name);
            cgroup_signal(de->d_name, SIGKILL, 0);
            cgroup_remove_async(de->d_name);
            if (removed == cap) {
                cap = cap ? cap * 2 : 16;
                char **grown = realloc(swept, (size_t)cap * sizeof *grown);
                if (!grown)
                    break;
                swept = grown;
            }
            if (!(swept[removed] = strdup(de->d_name)))
                break;
            removed++;
        }
        if (d)
            closedir(d);
    }
    for (int i = 0; i < removed; i++)
        free(swept[i]);
    free(swept);
    return removed;
}
