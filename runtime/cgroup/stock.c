/* A stock of empty cgroups made while starts pause: on v1 an attempt renames one to its own name in
 * every hierarchy (a rename costs the kernel a fraction of the mkdir that builds a cgroup's files). */
#include "runtime/cgroup/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"

#define STOCK_PREFIX ".stock-" /* hidden: the orphan sweep (process_sweep_orphans) passes them by */
#define REFILL_NICE 10
#define PAUSE_MS 50 /* a refill waits until no cgroup was made for this long (a burst of starts) */
#define PAUSE_STEP_US 10000
#define RETRY_MS 1000 /* after a mkdir failed */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t low = PTHREAD_COND_INITIALIZER; /* the refill waits here for demand or a stop */
static unsigned long *stock;                          /* sequence numbers of made cgroups, a stack */
static int count, cap, demand;                        /* demand: attempts made so far, up to cap */
static unsigned long next_seq;
static bool running, stopping;
static pthread_t refill_thread;
static int server_pid; /* names the stock: servers sharing the hierarchies keep apart */

static void stock_dir(const struct cgroup_hierarchy *h, unsigned long seq, char *out, size_t len)
{
    snprintf(out, len, "%s/" STOCK_PREFIX "%d-%lu", h->parent, server_pid, seq);
}

static void remove_entry(const struct cgroup_layout *L, unsigned long seq, int hierarchies)
{
    for (int i = 0; i < hierarchies; i++) {
        char dir[CGROUP_PATH_MAX];
        stock_dir(&L->h[i], seq, dir, sizeof dir);
        rmdir(dir);
    }
}

/* One cgroup in every hierarchy. Returns 0, or -1 (nothing left behind). */
static int make_entry(const struct cgroup_layout *L, unsigned long seq)
{
    for (int i = 0; i < L->count; i++) {
        char dir[CGROUP_PATH_MAX];
        stock_dir(&L->h[i], seq, dir, sizeof dir);
        if (cgroup_make_dir(dir) != 0) {
            int err = errno;
            remove_entry(L, seq, i + 1);
            errno = err;
            return -1;
        }
    }
    return 0;
}

/* Stock left by servers that are gone (killed before they could remove theirs). */
static void remove_leftovers(const struct cgroup_layout *L)
{
    for (int i = 0; i < L->count; i++) {
        DIR *d = opendir(L->h[i].parent);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            int pid;
            if (e->d_type != DT_DIR || sscanf(e->d_name, STOCK_PREFIX "%d-", &pid) != 1 || pid <= 0)
                continue;
            if (kill(pid, 0) == 0 || errno != ESRCH) /* its server still runs */
                continue;
            char dir[CGROUP_PATH_MAX];
            snprintf(dir, sizeof dir, "%s/%s", L->h[i].parent, e->d_name);
            rmdir(dir);
        }
        if (d)
            closedir(d);
    }
}

static void pause_while_starting(void)
{
    while (cgroup_made_within(PAUSE_MS)) {
        pthread_mutex_lock(&mu);
        bool stop = stopping;
        pthread_mutex_unlock(&mu);
        if (stop)
            return;
        usleep(PAUSE_STEP_US);
    }
}

static void *refill_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "cgroup-stock");
    setpriority(PRIO_PROCESS, 0, REFILL_NICE); /* this thread only (Linux) */
    const struct cgroup_layout *L = cgroup_layout();
    remove_leftovers(L);
    pthread_mutex_lock(&mu);
    while (!stopping) {
        if (count >= demand) {
            pthread_cond_wait(&low, &mu);
            continue;
        }
        unsigned long seq = next_seq++;
        pthread_mutex_unlock(&mu);
        pause_while_starting();
        int rc = make_entry(L, seq);
        if (rc != 0)
            log_debug("cannot make a spare cgroup: %s", strerror(errno));
        pthread_mutex_lock(&mu);
        if (rc == 0 && !stopping)
            stock[count++] = seq;
        else if (rc == 0)
            remove_entry(L, seq, L->count);
        else {
            struct timespec until = clock_deadline(CLOCK_REALTIME, RETRY_MS);
            pthread_cond_timedwait(&low, &mu, &until);
        }
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

/* v1 only: v2 refuses to rename a cgroup, and there an attempt is born in its one directory anyway. */
int cgroup_stock_start(int most)
{
    const struct cgroup_layout *L = cgroup_layout();
    const char *env = getenv("CALDERA_CGROUP_STOCK"); /* overrides most; 0: no stock */
    if (env && *env)
        most = atoi(env);
    if (L->mode != CGROUP_V1 || most <= 0)
        return 0;
    pthread_mutex_lock(&mu);
    int rc = 0;
    if (!running) {
        free(stock);
        stock = calloc((size_t)most, sizeof *stock);
        cap = most;
        count = demand = 0;
        server_pid = (int)getpid();
        stopping = false;
        running = stock && pthread_create(&refill_thread, NULL, refill_main, NULL) == 0;
        rc = running ? 0 : -1;
    }
    pthread_mutex_unlock(&mu);
    return rc;
}

void cgroup_stock_stop(void)
{
    pthread_mutex_lock(&mu);
    if (!running) {
        pthread_mutex_unlock(&mu);
        return;
    }
    stopping = true;
    pthread_cond_signal(&low);
    pthread_mutex_unlock(&mu);
    pthread_join(refill_thread, NULL);
    const struct cgroup_layout *L = cgroup_layout();
    pthread_mutex_lock(&mu);
    for (int i = 0; i < count; i++)
        remove_entry(L, stock[i], L->count);
    count = 0;
    running = false;
    pthread_mutex_unlock(&mu);
}

void cgroup_stock_note_create(void)
{
    pthread_mutex_lock(&mu);
    if (running && demand < cap) {
        demand++;
        pthread_cond_signal(&low);
    }
    pthread_mutex_unlock(&mu);
}

int cgroup_stock_count(void)
{
    pthread_mutex_lock(&mu);
    int n = count;
    pthread_mutex_unlock(&mu);
    return n;
}

int cgroup_stock_take(const char *name)
{
    if (strchr(name, '/')) /* v1 renames only within one parent */
        return -1;
    pthread_mutex_lock(&mu);
    bool have = running && count > 0;
    unsigned long seq = have ? stock[--count] : 0;
    if (have)
        pthread_cond_signal(&low);
    pthread_mutex_unlock(&mu);
    if (!have)
        return -1;
    const struct cgroup_layout *L = cgroup_layout();
    int renamed = 0;
    for (; renamed < L->count; renamed++) {
        char from[CGROUP_PATH_MAX], to[CGROUP_PATH_MAX];
        stock_dir(&L->h[renamed], seq, from, sizeof from);
        snprintf(to, sizeof to, "%s/%s", L->h[renamed].parent, name);
        if (rename(from, to) != 0)
            break;
    }
    if (renamed == L->count)
        return 0;
    int err = errno;
    /* a name left by an earlier run (EEXIST): the caller's mkdir path deals with it; this one goes */
    for (int i = 0; i < renamed; i++) {
        char from[CGROUP_PATH_MAX], to[CGROUP_PATH_MAX];
        stock_dir(&L->h[i], seq, from, sizeof from);
        snprintf(to, sizeof to, "%s/%s", L->h[i].parent, name);
        rename(to, from);
    }
    remove_entry(L, seq, L->count);
    errno = err;
    return -1;
}
