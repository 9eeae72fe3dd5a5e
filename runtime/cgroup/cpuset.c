/* Attempt cpusets: the cpuset controller joins the layout under the static CPU manager policy, a
 * v1 caldera/ parent gets its root's CPUs and memory nodes (children copy them), and an attempt's
 * cpuset.cpus and cpuset.mems are written at creation and when the shared pool changes. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cgroup/cgroup.h"

static atomic_bool use_cpuset;

void cgroup_use_cpuset(void) { atomic_store(&use_cpuset, true); }

unsigned cgroup_wanted(unsigned bits) { return bits | (atomic_load(&use_cpuset) ? CG_CPUSET : 0); }

int cgroup_cpuset_v1_parent(const char *mount, const char *parent)
{
    char value[4096];
    static const char *const files[] = {"cpuset.cpus", "cpuset.mems"};
    for (int i = 0; i < 2; i++) {
        char mine[4096];
        if (cgroup_read(parent, files[i], mine, sizeof mine) == 0 && mine[0] && mine[0] != '\n')
            continue;
        if (cgroup_read(mount, files[i], value, sizeof value) != 0 || cgroup_write(parent, files[i], value) != 0)
            return -1;
    }
    return cgroup_write(parent, "cgroup.clone_children", "1");
}

static const struct cgroup_hierarchy *cpuset_hierarchy(void)
{
    const struct cgroup_layout *L = cgroup_layout();
    for (int i = 0; i < L->count; i++)
        if (L->h[i].controllers & CG_CPUSET)
            return &L->h[i];
    return NULL;
}

bool cgroup_has_cpuset(void) { return cpuset_hierarchy() != NULL; }

int cgroup_set_cpuset(const char *name, const char *cpus, const char *mems)
{
    const struct cgroup_hierarchy *h = cpuset_hierarchy();
    if (!h) {
        errno = ENOTSUP;
        return -1;
    }
    char dir[CGROUP_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/%s", h->parent, name);
    /* Memory nodes first: a v1 cpuset refuses CPUs of no allowed memory node only at attach, and
     * widening mems first never leaves the pair empty. */
    if (mems && cgroup_write(dir, "cpuset.mems", mems) != 0)
        return -1;
    return cpus ? cgroup_write(dir, "cpuset.cpus", cpus) : 0;
}

int cgroup_read_cpuset(const char *name, char *buf, size_t len)
{
    const struct cgroup_hierarchy *h = cpuset_hierarchy();
    if (!h)
        return -1;
    char dir[CGROUP_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/%s", h->parent, name);
    if (cgroup_read(dir, "cpuset.cpus", buf, len) != 0)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}
