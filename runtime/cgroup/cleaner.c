/* Removing ended attempts' cgroups off the core thread: rmdir of a v1 cgroup costs the kernel
 * about 100 us per hierarchy, which at a thousand attempts a second is a tenth of the core's time.
 * One cleaner thread takes the names in order, kills what is left in each and removes it. */
#include "runtime/cgroup/cgroup.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"

#define RETRY_MS 1000 /* how often cgroups that would not go are tried again */
/* Removals wait while cgroups are being made (a burst of starts): the kernel makes and removes
 * cgroups under one mutex, so each rmdir here would hold up a start. They go once starts pause for
 * this long ($CALDERA_CLEANER_DEFER_MS, 0: never wait), a flush asks, or DEFER_MAX wait. */
#define DEFER_MS 50
#define DEFER_MAX 4096
#define DEFER_STEP_US 10000

struct removal {
    struct removal *next;
    char name[CGROUP_NAME_MAX];
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER; /* the cleaner waits here for names */
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER; /* flushers wait here for an empty queue */
static struct removal *head, *tail;
static bool busy; /* the cleaner is removing names it took */
static bool started;
static int flushers; /* callers waiting in cgroup_cleaner_flush */
static _Atomic int64_t last_create_ms;

void cgroup_note_create(void) { atomic_store_explicit(&last_create_ms, clock_mono_ms(), memory_order_relaxed); }

bool cgroup_made_within(int ms)
{
    return clock_mono_ms() - atomic_load_explicit(&last_create_ms, memory_order_relaxed) < ms;
}

static int defer_ms(void)
{
    const char *env = getenv("CALDERA_CLEANER_DEFER_MS");
    return env && *env ? atoi(env) : DEFER_MS;
}

/* Waits while cgroups were made in the last defer ms, unless `waiting` removals wait or a flush asks. */
static void defer_while_starting(int defer, int waiting)
{
    while (defer > 0 && waiting < DEFER_MAX && cgroup_made_within(defer)) {
        pthread_mutex_lock(&mu);
        bool flush = flushers > 0;
        pthread_mutex_unlock(&mu);
        if (flush)
            return;
        usleep(DEFER_STEP_US);
    }
}

static void *cleaner_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "cgroup-cleaner");
    int defer = defer_ms();
    pthread_mutex_lock(&mu);
    for (;;) {
        while (!head) {
            busy = false;
            pthread_cond_broadcast(&idle);
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += RETRY_MS / 1000;
            if (pthread_cond_timedwait(&work, &mu, &until) != 0 && !head) {
                pthread_mutex_unlock(&mu);
                cgroup_retry_removals();
                pthread_mutex_lock(&mu);
            }
        }
        struct removal *batch = head;
        head = tail = NULL;
        busy = true;
        pthread_mutex_unlock(&mu);
        int waiting = 0;
        for (struct removal *r = batch; r; r = r->next)
            waiting++;
        while (batch) {
            defer_while_starting(defer, waiting--);
            struct removal *next = batch->next;
            cgroup_remove(batch->name);
            free(batch);
            batch = next;
        }
        cgroup_retry_removals();
        pthread_mutex_lock(&mu);
    }
    return NULL;
}

/* Starts the thread on first use; false when it cannot (the caller removes in place). */
static bool ensure_started(void)
{
    if (started)
        return true;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    started = pthread_create(&t, &attr, cleaner_main, NULL) == 0;
    pthread_attr_destroy(&attr);
    if (!started)
        log_warn("cannot start the cgroup cleaner thread: removing cgroups on the core thread");
    return started;
}

void cgroup_remove_async(const char *name)
{
    struct removal *r = malloc(sizeof *r);
    pthread_mutex_lock(&mu);
    bool queued = r && ensure_started();
    if (queued) {
        r->next = NULL;
        snprintf(r->name, sizeof r->name, "%s", name);
        if (tail)
            tail->next = r;
        else
            head = r;
        tail = r;
        busy = true;
        pthread_cond_signal(&work);
    }
    pthread_mutex_unlock(&mu);
    if (!queued) {
        free(r);
        cgroup_remove(name);
    }
}

int cgroup_cleaner_flush(int timeout_ms)
{
    struct timespec until = clock_deadline(CLOCK_REALTIME, timeout_ms);
    int rc = 0;
    pthread_mutex_lock(&mu);
    flushers++;
    while ((head || busy) && rc == 0)
        rc = pthread_cond_timedwait(&idle, &mu, &until);
    flushers--;
    pthread_mutex_unlock(&mu);
    return rc == 0 ? 0 : -1;
}
