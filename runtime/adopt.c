/* Tasks of an earlier run of the server: found again by pid and start time and watched through a
 * pidfd, or, when they ended meanwhile, their status read back from the supervisors' exits file;
 * and the sweep of cgroups no recorded attempt owns. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/grow.h"
#include "common/log.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/oci_runtime.h"
#include "runtime/process.h"

/* What an ended attempt's cgroup still tells (its OOM kills and usage), then whatever is left in it
 * is killed and the cgroup removed. */
static void collect_cgroup(const char *name, const struct process_census *census, struct replica_exit *ex)
{
    const struct cgroup_layout *L = cgroup_layout();
    if (!name[0] || L->mode == CGROUP_NONE || L->count == 0 || !process_census_may_have_cgroup(census, name))
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
    oci_or_cgroup_remove_async(name); /* an OCI attempt's container goes with it */
}

enum process_found process_adopt(const struct process_adoption *a, struct process *out, struct replica_exit *ex)
{
    process_runtime_init();
    *out = (struct process){.pid = -1, .pidfd = -1, .start_ticks = -1, .exit_record = NULL};
    memset(ex, 0, sizeof *ex);
    const char *cgroup = a->cgroup_name ? a->cgroup_name : "";
    if (a->pid > 0 && a->start_ticks > 0 && process_census_may_run(a->census, a->pid) &&
        process_start_ticks(a->pid) == a->start_ticks) {
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
        process_read_exit_record(rec, ex);
        free(rec);
    } else {
        ex->unknown = true;
        ex->exit_code = -1;
    }
    collect_cgroup(cgroup, a->census, ex);
    return ex->unknown ? PROCESS_LOST : PROCESS_EXITED;
}

int process_reap_adopted(struct process *p, struct replica_exit *ex)
{
    if (!process_wait_exit(p, 0))
        return -1;
    memset(ex, 0, sizeof *ex);
    ex->end_ms = clock_wall_ms();
    process_read_exit_record(p->exit_record, ex);
    collect_cgroup(p->cgroup_name, NULL, ex);
    p->cgroup_name[0] = '\0';
    process_forget(p);
    return 0;
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
            log_warn("killing the tasks of cgroup %s: the last run started them but never recorded it", de->d_name);
            cgroup_signal(de->d_name, SIGKILL, 0);
            oci_or_cgroup_remove_async(de->d_name);
            if (GROW(swept, cap, (size_t)removed + 1, 16) != 0)
                break;
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
