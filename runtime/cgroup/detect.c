/* Finding the machine's cgroups once: v2 when /sys/fs/cgroup is cgroup2, else the v1 hierarchies
 * of memory, cpu, cpuacct and pids from /proc/self/mounts; creates caldera/ under each. */
#include "runtime/cgroup/cgroup.h"

#include <errno.h>
#include <linux/magic.h>
#include <mntent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define CGROUP_FS "/sys/fs/cgroup"

static struct cgroup_layout layout;
static pthread_once_t layout_once = PTHREAD_ONCE_INIT;

static const struct {
    const char *name;
    unsigned bit;
} known[] = {{"memory", CG_MEMORY}, {"cpu", CG_CPU}, {"cpuacct", CG_CPUACCT}, {"pids", CG_PIDS}, {"cpuset", CG_CPUSET}};
#define NKNOWN (sizeof known / sizeof known[0])

/* The controllers named in a list: mount options "rw,cpu,cpuacct" or cgroup.controllers
 * "cpuset cpu io memory pids". */
static unsigned controllers_in(const char *list, char sep)
{
    unsigned bits = 0;
    while (*list) {
        const char *end = strchr(list, sep);
        size_t n = end ? (size_t)(end - list) : strcspn(list, "\n");
        for (size_t i = 0; i < NKNOWN; i++)
            if (strlen(known[i].name) == n && strncmp(list, known[i].name, n) == 0)
                bits |= known[i].bit;
        if (!end)
            break;
        list = end + 1;
    }
    return bits;
}

static void names_of(unsigned bits, const char *sep, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; i < NKNOWN; i++)
        if (bits & known[i].bit)
            snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? sep : "", known[i].name);
}

/* mkdir alone does not prove it: on a read-only mount an existing caldera/ gives EEXIST. */
static int make_parent(const char *parent, char *detail, size_t len)
{
    char procs[CGROUP_PATH_MAX];
    snprintf(procs, sizeof procs, "%s/cgroup.procs", parent);
    bool made = mkdir(parent, CGROUP_DIR_MODE) == 0;
    if ((!made && errno != EEXIST) || (made && chmod(parent, CGROUP_DIR_MODE) != 0) || access(procs, W_OK) != 0) {
        snprintf(detail, len, "%s: %s", parent, strerror(errno));
        return -1;
    }
    return 0;
}

static void detect_v1(struct cgroup_layout *L)
{
    FILE *mounts = setmntent("/proc/self/mounts", "re");
    if (!mounts) {
        snprintf(L->detail, sizeof L->detail, "/proc/self/mounts: %s", strerror(errno));
        return;
    }
    struct mntent ent;
    char buf[4096];
    unsigned taken = 0;
    while (L->count < CGROUP_MAX_HIERARCHIES && getmntent_r(mounts, &ent, buf, sizeof buf)) {
        if (strcmp(ent.mnt_type, "cgroup") != 0)
            continue;
        unsigned bits = controllers_in(ent.mnt_opts, ',') & cgroup_wanted(CG_MEMORY | CG_CPU | CG_CPUACCT | CG_PIDS);
        if (!bits || (bits & taken)) /* not ours, or a second mount of a hierarchy we have */
            continue;
        struct cgroup_hierarchy *h = &L->h[L->count];
        if (snprintf(h->parent, sizeof h->parent, "%s/caldera", ent.mnt_dir) >= (int)sizeof h->parent ||
            make_parent(h->parent, L->detail, sizeof L->detail) != 0)
            continue;
        /* Children inherit oom_kill_disable: 0 makes the kernel kill on overrun instead of
         * leaving the task hung at its limit. */
        if ((bits & CG_MEMORY) && cgroup_write(h->parent, "memory.oom_control", "0") != 0)
            snprintf(L->detail, sizeof L->detail, "%s/memory.oom_control: %s", h->parent, strerror(errno));
        if ((bits & CG_CPUSET) && cgroup_cpuset_v1_parent(ent.mnt_dir, h->parent) != 0) {
            snprintf(L->detail, sizeof L->detail, "%s/cpuset.cpus: %s", h->parent, strerror(errno));
            continue;
        }
        h->controllers = bits;
        names_of(bits, ",", h->label, sizeof h->label);
        taken |= bits;
        L->count++;
    }
    endmntent(mounts);
    if (L->count > 0)
        L->mode = CGROUP_V1;
}

static void detect_v2(struct cgroup_layout *L, const char *root)
{
    char avail[512];
    struct cgroup_hierarchy *h = &L->h[0];
    if (cgroup_read(root, "cgroup.controllers", avail, sizeof avail) != 0) {
        snprintf(L->detail, sizeof L->detail, "%s/cgroup.controllers: %s", root, strerror(errno));
        return;
    }
    unsigned want = controllers_in(avail, ' ') & cgroup_wanted(CG_MEMORY | CG_CPU | CG_PIDS);
    if (snprintf(h->parent, sizeof h->parent, "%s/caldera", root) >= (int)sizeof h->parent ||
        make_parent(h->parent, L->detail, sizeof L->detail) != 0)
        return;
    /* The root may refuse (a container's root cgroup holding processes); what caldera/ ends up
     * offering its children is what counts. */
    if (cgroup_enable_controllers(root, want) != 0 || cgroup_enable_controllers(h->parent, want) != 0)
        snprintf(L->detail, sizeof L->detail, "enabling controllers under %s: %s", h->parent, strerror(errno));
    char enabled[512];
    h->controllers = cgroup_read(h->parent, "cgroup.subtree_control", enabled, sizeof enabled) == 0
                         ? controllers_in(enabled, ' ') & want
                         : 0;
    h->label[0] = '\0';
    L->count = 1;
    L->mode = CGROUP_V2;
}

static bool is_cgroup2(const char *path)
{
    struct statfs fs;
    return statfs(path, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

/* "/sys/fs/cgroup/<each>/caldera" when the hierarchies sit side by side as usual. */
static void where_v1(const struct cgroup_layout *L, char *out, size_t len)
{
    bool usual = true;
    for (int i = 0; i < L->count; i++)
        usual = usual && strncmp(L->h[i].parent, CGROUP_FS "/", strlen(CGROUP_FS) + 1) == 0;
    if (usual) {
        snprintf(out, len, "%s/*/caldera", CGROUP_FS);
        return;
    }
    out[0] = '\0';
    for (int i = 0; i < L->count; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? ", " : "", L->h[i].parent);
}

static void describe(struct cgroup_layout *L)
{
    unsigned have = 0;
    for (int i = 0; i < L->count; i++)
        have |= L->h[i].controllers;
    if (L->mode == CGROUP_NONE) {
        snprintf(L->warning, sizeof L->warning, "cgroups not writable: tasks run without limits");
        return;
    }
    char names[64], where[300];
    names_of(have, ", ", names, sizeof names);
    if (L->mode == CGROUP_V2)
        snprintf(where, sizeof where, "%s", L->h[0].parent);
    else
        where_v1(L, where, sizeof where);
    snprintf(L->summary, sizeof L->summary, "cgroups: %s (%s) under %s", L->mode == CGROUP_V2 ? "v2" : "v1",
             names[0] ? names : "no controllers", where);
    unsigned missing = (CG_MEMORY | CG_CPU) & ~have;
    if (missing) {
        names_of(missing, ", ", names, sizeof names);
        snprintf(L->warning, sizeof L->warning, "cgroups: no writable %s controller: %s limits are not enforced", names,
                 missing == (CG_MEMORY | CG_CPU) ? "memory and cpu" : names);
    }
}

static void detect(void)
{
    const char *forced = getenv("CALDERA_CGROUP2_ROOT");
    if (forced && *forced) {
        if (is_cgroup2(forced))
            detect_v2(&layout, forced);
        else
            snprintf(layout.detail, sizeof layout.detail, "CALDERA_CGROUP2_ROOT=%s is not a cgroup2 mount", forced);
    } else if (is_cgroup2(CGROUP_FS)) {
        detect_v2(&layout, CGROUP_FS);
    } else {
        /* v1 or hybrid: the controllers we need are bound to v1 hierarchies, so a unified mount
         * beside them (/sys/fs/cgroup/unified) has none of them to offer. */
        detect_v1(&layout);
    }
    describe(&layout);
}

const struct cgroup_layout *cgroup_layout(void)
{
    pthread_once(&layout_once, detect);
    return &layout;
}
