/* The census of runtime/census.h: /proc's numeric entries and the caldera/ parent's directories, each
 * read once into a sorted array and asked by binary search. */
#include "runtime/census.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/process.h"

struct process_census {
    bool pids_known, cgroups_known;
    pid_t *pids;
    int npids, pids_cap;
    char **cgroups;
    int ncgroups, cgroups_cap;
};

static int compare_pids(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A process's directory in /proc: a name of digits only. Returns its pid, or 0. */
static pid_t pid_of_entry(const char *name)
{
    long pid = 0;
    for (const char *p = name; *p; p++) {
        if (*p < '0' || *p > '9' || pid > 1L << 30)
            return 0;
        pid = pid * 10 + (*p - '0');
    }
    return (pid_t)pid;
}

/* Returns 0 with every process listed, -1 when /proc cannot be read whole. */
static int scan_pids(struct process_census *c)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    int result = 0;
    struct dirent *de;
    errno = 0;
    while (result == 0 && (de = readdir(d))) {
        pid_t pid = pid_of_entry(de->d_name);
        if (pid <= 0)
            continue;
        if (GROW(c->pids, c->pids_cap, (size_t)c->npids + 1, 1024) != 0)
            result = -1;
        else
            c->pids[c->npids++] = pid;
    }
    if (errno != 0)
        result = -1;
    closedir(d);
    qsort(c->pids, (size_t)c->npids, sizeof *c->pids, compare_pids);
    return result;
}

/* Returns 0 with every attempt cgroup listed (none when there is no caldera/ parent), -1 otherwise. */
static int scan_cgroups(struct process_census *c)
{
    const struct cgroup_layout *L = cgroup_layout();
    if (L->mode == CGROUP_NONE || L->count == 0)
        return 0;
    DIR *d = opendir(L->h[0].parent);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    int result = 0;
    struct dirent *de;
    errno = 0;
    while (result == 0 && (de = readdir(d))) {
        if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
            continue;
        if (GROW(c->cgroups, c->cgroups_cap, (size_t)c->ncgroups + 1, 256) != 0 ||
            !(c->cgroups[c->ncgroups] = strdup(de->d_name)))
            result = -1;
        else
            c->ncgroups++;
    }
    if (errno != 0)
        result = -1;
    closedir(d);
    qsort(c->cgroups, (size_t)c->ncgroups, sizeof *c->cgroups, compare_names);
    return result;
}

struct process_census *process_census_take(void)
{
    process_runtime_init();
    struct process_census *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->pids_known = scan_pids(c) == 0;
    c->cgroups_known = scan_cgroups(c) == 0;
    return c;
}

void process_census_free(struct process_census *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->ncgroups; i++)
        free(c->cgroups[i]);
    free(c->cgroups);
    free(c->pids);
    free(c);
}

bool process_census_may_run(const struct process_census *c, pid_t pid)
{
    if (!c || !c->pids_known)
        return true;
    return bsearch(&pid, c->pids, (size_t)c->npids, sizeof *c->pids, compare_pids) != NULL;
}

bool process_census_may_have_cgroup(const struct process_census *c, const char *name)
{
    if (!c || !c->cgroups_known || strchr(name, '/'))
        return true; /* the scan lists the parent's own entries only */
    return bsearch(&name, c->cgroups, (size_t)c->ncgroups, sizeof *c->cgroups, compare_names) != NULL;
}
