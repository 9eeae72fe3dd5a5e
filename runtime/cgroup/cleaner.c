/* Removing ended attempts' cgroups off the core thread: rmdir of a v1 cgroup costs the kernel
 * about 100 us per hierarchy, which at a thousand attempts a second is a tenth of the core's time.
 * One cleaner thread takes the names in order, kills what is left in each and removes it. */
#include "runtime/cgroup/cgroup.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"

#define RETRY_MS 1000 /* how often cgroups that would not go are tried again */

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

static void *cleaner_main(void *arg)
{
    (void)arg;
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
        while (batch) {
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
    while ((head || busy) && rc == 0)
        rc = pthread_cond_timedwait(&idle, &mu, &until);
    pthread_mutex_unlock(&mu);
    return rc == 0 ? 0 : -1;
}
