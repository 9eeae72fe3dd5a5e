/* Ending an attempt's cgroup: signalling every process in it, waiting (bounded) for it to empty and
 * removing its directories. One that will not empty in time waits on a short list, retried later. */
#include "runtime/cgroup/cgroup.h"

#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/log.h"

#define REMOVE_WAIT_MS 100 /* SIGKILLed processes die in microseconds unless stuck in the kernel */
#define MAX_PENDING 64
#define PROCS_MAX (1 << 20)

/* Cgroups that would not go yet: the core thread and the cleaner both add to it. */
static pthread_mutex_t pending_mu = PTHREAD_MUTEX_INITIALIZER;
static char pending[MAX_PENDING][CGROUP_NAME_MAX];
static int npending;

static void attempt_dir(const struct cgroup_hierarchy *h, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", h->parent, name);
}

/* Calls visit on dir and on every cgroup below it, children first when post_order. A task running
 * as root may make cgroups of its own inside its attempt's (a nested container runtime): their
 * processes are the attempt's too, and the attempt's directory cannot go before them. */
static void walk_cgroups(char *dir, size_t cap, bool post_order, void (*visit)(const char *dir, void *ctx), void *ctx)
{
    if (!post_order)
        visit(dir, ctx);
    DIR *d = opendir(dir);
    if (d) {
        size_t len = strlen(dir);
        struct dirent *e;
        while ((e = readdir(d)))
            if (e->d_type == DT_DIR && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
                snprintf(dir + len, cap - len, "/%s", e->d_name) < (int)(cap - len)) {
                walk_cgroups(dir, cap, post_order, visit, ctx);
                dir[len] = '\0';
            }
        dir[len] = '\0';
        closedir(d);
    }
    if (post_order)
        visit(dir, ctx);
}

struct signal_job {
    int sig;
    pid_t skip_pgid;
};

static void signal_procs(const char *dir, void *ctx)
{
    const struct signal_job *job = ctx;
    char path[CGROUP_PATH_MAX + 16], *procs = NULL;
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    if (read_file(path, PROCS_MAX, &procs, NULL) != 0)
        return;
    for (char *p = procs; *p;) {
        char *end;
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        if (pid > 0 && !(job->skip_pgid > 0 && getpgid((pid_t)pid) == job->skip_pgid))
            kill((pid_t)pid, job->sig);
        p = end + (*end == '\n');
    }
    free(procs);
}

void cgroup_signal(const char *name, int sig, pid_t skip_pgid)
{
    const struct cgroup_layout *L = cgroup_layout();
    if (L->mode == CGROUP_NONE || !name[0])
        return;
    if (L->mode == CGROUP_V2 && sig == SIGKILL) {
        /* cgroup.kill (Linux 5.14) reaches every process of the subtree at once, so none can fork
         * its way out. */
        char dir[CGROUP_PATH_MAX];
        attempt_dir(&L->h[0], name, dir, sizeof dir);
        if (cgroup_write(dir, "cgroup.kill", "1") == 0)
            return;
    }
    /* Every process is in every hierarchy: one that still has the cgroup lists them all. */
    struct signal_job job = {sig, skip_pgid};
    for (int i = 0; i < L->count; i++) {
        char dir[CGROUP_PATH_MAX];
        attempt_dir(&L->h[i], name, dir, sizeof dir);
        if (access(dir, F_OK) == 0) {
            walk_cgroups(dir, sizeof dir, false, signal_procs, &job);
            return;
        }
    }
}

/* caldera/<job uid>/ and the like, once their last attempt is gone; stops at the first in use. */
static void remove_empty_parents(const struct cgroup_hierarchy *h, const char *name)
{
    char dir[CGROUP_PATH_MAX];
    attempt_dir(h, name, dir, sizeof dir);
    char *caldera_end = dir + strlen(h->parent);
    for (char *slash = strrchr(dir, '/'); slash && slash > caldera_end; slash = strrchr(dir, '/')) {
        *slash = '\0';
        if (rmdir(dir) != 0)
            break;
    }
}

static void remove_cgroup_dir(const char *dir, void *ctx)
{
    (void)ctx;
    rmdir(dir);
}

/* Returns 0 when no directory of the cgroup is left, else the errno of one that is (EBUSY: a
 * process is still inside). */
static int remove_dirs(const struct cgroup_layout *L, const char *name)
{
    int left = 0;
    for (int i = 0; i < L->count; i++) {
        char dir[CGROUP_PATH_MAX];
        attempt_dir(&L->h[i], name, dir, sizeof dir);
        int err = rmdir(dir) == 0 ? 0 : errno;
        if (err == EBUSY || err == ENOTEMPTY) { /* maybe cgroups of the task's own below it */
            walk_cgroups(dir, sizeof dir, true, remove_cgroup_dir, NULL);
            err = access(dir, F_OK) == 0 ? EBUSY : errno == ENOENT ? 0 : errno;
        }
        if (err == 0)
            remove_empty_parents(&L->h[i], name);
        else if (err != ENOENT)
            left = err;
    }
    return left;
}

static void pause_ms(int ms)
{
    if (ms <= 0) {
        sched_yield();
        return;
    }
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

void cgroup_remove_later(const char *name)
{
    pthread_mutex_lock(&pending_mu);
    bool known = false;
    for (int i = 0; i < npending && !known; i++)
        known = strcmp(pending[i], name) == 0;
    bool full = !known && npending == MAX_PENDING;
    if (!known && !full)
        snprintf(pending[npending++], CGROUP_NAME_MAX, "%s", name);
    pthread_mutex_unlock(&pending_mu);
    if (full)
        log_error("cgroup caldera/%s: still in use and too many cgroups are waiting for removal; left in place", name);
}

void cgroup_remove(const char *name)
{
    const struct cgroup_layout *L = cgroup_layout();
    if (L->mode == CGROUP_NONE || !name[0])
        return;
    int64_t deadline = clock_mono_ms() + REMOVE_WAIT_MS;
    int err;
    for (int pause = 0;; pause = pause ? pause * 2 : 1) {
        /* rmdir fails with EBUSY while a process is inside: trying it is the cheapest check. */
        if ((err = remove_dirs(L, name)) == 0)
            return;
        int64_t left_ms = deadline - clock_mono_ms();
        if (err != EBUSY || left_ms <= 0)
            break;
        cgroup_signal(name, SIGKILL, 0);
        pause_ms(pause < left_ms ? pause : (int)left_ms);
    }
    log_warn("cgroup caldera/%s: cannot remove it yet (%s); retrying later", name, strerror(err));
    cgroup_remove_later(name);
}

void cgroup_retry_removals(void)
{
    pthread_mutex_lock(&pending_mu);
    if (npending == 0) {
        pthread_mutex_unlock(&pending_mu);
        return;
    }
    const struct cgroup_layout *L = cgroup_layout();
    for (int i = 0; i < npending;) {
        if (remove_dirs(L, pending[i]) == 0) {
            memcpy(pending[i], pending[--npending], CGROUP_NAME_MAX);
            continue;
        }
        cgroup_signal(pending[i], SIGKILL, 0);
        i++;
    }
    pthread_mutex_unlock(&pending_mu);
}

int cgroup_name_of_pid(pid_t pid, char *name, size_t len)
{
    const struct cgroup_layout *L = cgroup_layout();
    if (L->mode == CGROUP_NONE)
        return -1;
    char proc[64], buf[4096];
    snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
    if (cgroup_read(proc, "cgroup", buf, sizeof buf) != 0)
        return -1;
    /* v1: "4:memory:/caldera/<name>" for the first hierarchy; v2: "0::/caldera/<name>". */
    char prefix[64];
    snprintf(prefix, sizeof prefix, ":%s:/caldera/", L->mode == CGROUP_V2 ? "" : L->h[0].label);
    size_t plen = strlen(prefix);
    for (const char *line = buf; *line;) {
        const char *colon = strchr(line, ':');
        if (colon && strncmp(colon, prefix, plen) == 0) {
            const char *start = colon + plen;
            size_t n = strcspn(start, "\n");
            /* an OCI attempt's supervisor runs in a child of the attempt's cgroup (runtime/oci_args.h) */
            static const char nested[] = "/oci-supervisor";
            if (n > sizeof nested - 1 && strncmp(start + n - (sizeof nested - 1), nested, sizeof nested - 1) == 0)
                n -= sizeof nested - 1;
            if (n == 0 || n >= len)
                return -1;
            memcpy(name, start, n);
            name[n] = '\0';
            return 0;
        }
        const char *newline = strchr(line, '\n');
        if (!newline)
            break;
        line = newline + 1;
    }
    return -1;
}
