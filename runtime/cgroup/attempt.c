/* An attempt's cgroup: created with its limits in every hierarchy, joined by the child through the
 * cgroup.procs files opened here, and read at the end for OOM kills, peak memory and CPU time. */
#include "runtime/cgroup/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CPU_PERIOD_US 100000
#define CPU_MIN_QUOTA_US 1000      /* the kernel refuses less */
#define CPU_MAX_MILLI 1000000000LL /* a million cores: keeps milli * 100 far from overflow */

/* Relative, no empty, "." or ".." component: it must stay below caldera/. */
static bool valid_name(const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len >= CGROUP_NAME_MAX)
        return false;
    for (const char *c = name; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        c += n;
        if (*c == '/' && !*++c)
            return false;
    }
    return true;
}

static void attempt_dir(const struct cgroup_hierarchy *h, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", h->parent, name);
}

/* The intermediate directories of dir (those below caldera/), v2 with the controllers enabled for
 * their children. */
static int make_intermediates(const struct cgroup_layout *L, const struct cgroup_hierarchy *h, char *dir)
{
    for (char *p = dir + strlen(h->parent) + 1; (p = strchr(p, '/')); *p++ = '/') {
        *p = '\0';
        if (cgroup_make_dir(dir) == 0) {
            if (L->mode == CGROUP_V2 && cgroup_enable_controllers(dir, h->controllers) != 0) {
                int err = errno;
                rmdir(dir);
                *p = '/';
                errno = err;
                return -1;
            }
        } else if (errno != EEXIST) {
            *p = '/';
            return -1;
        }
    }
    return 0;
}

static int make_dirs(const struct cgroup_layout *L, const struct cgroup_hierarchy *h, char *dir)
{
    if (cgroup_make_dir(dir) == 0) /* the usual case: the job's directory exists already */
        return 0;
    if (errno == ENOENT) {
        if (make_intermediates(L, h, dir) != 0)
            return -1;
        return cgroup_make_dir(dir);
    }
    if (errno != EEXIST)
        return -1;
    /* Left by an earlier run under the same name: start clean (EBUSY if something still runs in it). */
    if (rmdir(dir) != 0)
        return -1;
    return cgroup_make_dir(dir);
}

static int set_limits(const struct cgroup_layout *L, const struct cgroup_hierarchy *h, const char *dir,
                      const struct cgroup_limits *lim, const char **what)
{
    char value[64];
    bool v2 = L->mode == CGROUP_V2;
    int64_t memory_limit = lim->memory, cpu_limit_milli = lim->cpu_milli;
    if ((h->controllers & CG_CPUSET) && (lim->cpus || lim->mems)) {
        *what = "set the cpuset of";
        if (lim->mems && cgroup_write(dir, "cpuset.mems", lim->mems) != 0)
            return -1;
        if (lim->cpus && cgroup_write(dir, "cpuset.cpus", lim->cpus) != 0)
            return -1;
    }
    if (lim->pids > 0 && (h->controllers & CG_PIDS)) { /* the same file in v1's pids hierarchy and v2 */
        *what = "set pids.max of";
        snprintf(value, sizeof value, "%lld", (long long)lim->pids);
        if (cgroup_write(dir, "pids.max", value) != 0)
            return -1;
    }
    if (memory_limit > 0 && (h->controllers & CG_MEMORY)) {
        *what = "set the memory limit of";
        snprintf(value, sizeof value, "%lld", (long long)memory_limit);
        if (cgroup_write(dir, v2 ? "memory.max" : "memory.limit_in_bytes", value) != 0)
            return -1;
    }
    if (cpu_limit_milli > 0 && (h->controllers & CG_CPU)) {
        long long milli = cpu_limit_milli < CPU_MAX_MILLI ? cpu_limit_milli : CPU_MAX_MILLI;
        long long quota = milli * CPU_PERIOD_US / 1000;
        if (quota < CPU_MIN_QUOTA_US)
            quota = CPU_MIN_QUOTA_US;
        *what = "set the cpu limit of";
        if (v2) {
            snprintf(value, sizeof value, "%lld %d", quota, CPU_PERIOD_US);
            return cgroup_write(dir, "cpu.max", value);
        }
        snprintf(value, sizeof value, "%lld", quota); /* a new cgroup's cfs_period_us is the kernel's 100000 */
        if (cgroup_write(dir, "cpu.cfs_quota_us", value) != 0)
            return -1;
    }
    return 0;
}

int cgroup_create(const char *name, const struct cgroup_limits *limits, struct cgroup_join *join, char *why,
                  size_t why_len)
{
    const struct cgroup_layout *L = cgroup_layout();
    join->count = 0;
    if (!valid_name(name)) {
        snprintf(why, why_len, "invalid cgroup name \"%s\"", name);
        return -1;
    }
    bool from_stock = cgroup_stock_take(name) == 0; /* made ahead (stock.c), renamed to name */
    for (int i = 0; i < L->count; i++) {
        const struct cgroup_hierarchy *h = &L->h[i];
        char dir[CGROUP_PATH_MAX], procs[CGROUP_PATH_MAX + 16];
        const char *what = "create";
        attempt_dir(h, name, dir, sizeof dir);
        snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
        int fd = -1;
        if ((from_stock || make_dirs(L, h, dir) == 0) && set_limits(L, h, dir, limits, &what) == 0) {
            what = "open cgroup.procs of";
            fd = open(procs, O_WRONLY | O_CLOEXEC);
        }
        if (fd < 0) {
            int err = errno;
            char label[CGROUP_PATH_MAX];
            cgroup_join_label(i, name, label, sizeof label);
            snprintf(why, why_len, "cannot %s cgroup %s: %s", what, label, strerror(err));
            cgroup_join_close(join);
            cgroup_remove(name);
            return -1;
        }
        join->procs_fd[join->count++] = fd;
    }
    cgroup_note_create();
    cgroup_stock_note_create();
    return 0;
}

void cgroup_join_close(struct cgroup_join *join)
{
    for (int i = 0; i < join->count; i++)
        close(join->procs_fd[i]);
    join->count = 0;
}

int cgroup_open_dir(const char *name)
{
    const struct cgroup_layout *L = cgroup_layout();
    if (L->mode != CGROUP_V2 || L->count != 1 || !valid_name(name))
        return -1;
    char dir[CGROUP_PATH_MAX];
    attempt_dir(&L->h[0], name, dir, sizeof dir);
    return open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

void cgroup_join_label(int i, const char *name, char *out, size_t len)
{
    const struct cgroup_layout *L = cgroup_layout();
    if (L->mode == CGROUP_V2 || i < 0 || i >= L->count)
        snprintf(out, len, "/caldera/%s", name);
    else
        snprintf(out, len, "%s:/caldera/%s", L->h[i].label, name);
}

void cgroup_describe(const char *name, char *out, size_t len)
{
    const struct cgroup_layout *L = cgroup_layout();
    out[0] = '\0';
    if (!name[0] || L->mode == CGROUP_NONE)
        return;
    if (L->mode == CGROUP_V2) {
        snprintf(out, len, "0::/caldera/%s", name);
        return;
    }
    for (int i = 0; i < L->count; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? "," : "", L->h[i].label);
    snprintf(out + strlen(out), len - strlen(out), ":/caldera/%s", name);
}

static int64_t at_least_zero(int64_t v) { return v > 0 ? v : 0; }

void cgroup_read_usage(const char *name, struct cgroup_usage *u)
{
    const struct cgroup_layout *L = cgroup_layout();
    bool v2 = L->mode == CGROUP_V2;
    *u = (struct cgroup_usage){0};
    for (int i = 0; i < L->count; i++) {
        const struct cgroup_hierarchy *h = &L->h[i];
        char dir[CGROUP_PATH_MAX];
        attempt_dir(h, name, dir, sizeof dir);
        if (h->controllers & CG_MEMORY) {
            /* v1 memory.oom_control has said "oom_kill N" since Linux 4.13. */
            u->oom_kills = at_least_zero(cgroup_read_key(dir, v2 ? "memory.events" : "memory.oom_control", "oom_kill"));
            u->peak_memory = at_least_zero(cgroup_read_number(dir, v2 ? "memory.peak" : "memory.max_usage_in_bytes"));
        }
        if (v2) /* cpu.stat's usage_usec is there with or without the cpu controller */
            u->cpu_usec = at_least_zero(cgroup_read_key(dir, "cpu.stat", "usage_usec"));
        else if (h->controllers & CG_CPUACCT)
            u->cpu_usec = at_least_zero(cgroup_read_number(dir, "cpuacct.usage")) / 1000;
    }
}

int cgroup_join_existing(const char *name, struct cgroup_join *join, char *why, size_t why_len)
{
    const struct cgroup_layout *L = cgroup_layout();
    join->count = 0;
    if (!valid_name(name)) {
        snprintf(why, why_len, "invalid cgroup name \"%s\"", name);
        return -1;
    }
    for (int i = 0; i < L->count; i++) {
        char dir[CGROUP_PATH_MAX], procs[CGROUP_PATH_MAX + 16];
        attempt_dir(&L->h[i], name, dir, sizeof dir);
        snprintf(procs, sizeof procs, "%s/cgroup.procs", dir);
        int fd = open(procs, O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            char label[CGROUP_PATH_MAX];
            cgroup_join_label(i, name, label, sizeof label);
            snprintf(why, why_len, "cannot open cgroup.procs of cgroup %s: %s", label, strerror(err));
            cgroup_join_close(join);
            return -1;
        }
        join->procs_fd[join->count++] = fd;
    }
    return 0;
}
