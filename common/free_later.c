/* Freeing big things later: a queue of (drop, thing) and one helper thread, started at the first
 * hand-over, that drops them in batches; a flush waits for what was handed over before it. */
#include "common/free_later.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "common/free_batch.h"
#include "common/grow.h"

static bool (*filter)(const json_t *v);

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static bool started;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER, idle = PTHREAD_COND_INITIALIZER;
struct item {
    void (*drop)(void *thing);
    void *thing;
};
static struct item *queue;
static size_t queued, queue_cap;
static unsigned long handed, dropped; /* references handed over, and dropped by the helper */

static void *drop_loop(void *arg)
{
    (void)arg;
    /* Woken, it does not preempt the thread that woke it (often the core): it runs beside it, or after. */
    struct sched_param normal = {0};
    pthread_setschedparam(pthread_self(), SCHED_BATCH, &normal);
    struct item *spare = NULL; /* the array the queue swaps with while its items are dropped */
    size_t spare_cap = 0;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (queued == 0)
            pthread_cond_wait(&work, &lock);
        struct item *taken = queue;
        size_t taken_cap = queue_cap, n = queued;
        queue = spare;
        queue_cap = spare_cap;
        queued = 0;
        pthread_mutex_unlock(&lock);
        free_batch_begin();
        for (size_t i = 0; i < n; i++)
            taken[i].drop(taken[i].thing);
        free_batch_end();
        spare = taken;
        spare_cap = taken_cap;
        pthread_mutex_lock(&lock);
        dropped += n;
        pthread_cond_broadcast(&idle);
    }
    return NULL;
}

static void start(void)
{
    pthread_t t;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    started = pthread_create(&t, &attr, drop_loop, NULL) == 0;
    pthread_attr_destroy(&attr);
}

bool free_later(void (*drop)(void *thing), void *thing)
{
    pthread_once(&start_once, start);
    if (!started)
        return false;
    pthread_mutex_lock(&lock);
    bool room = GROW(queue, queue_cap, queued + 1, 16) == 0;
    if (room) {
        queue[queued++] = (struct item){drop, thing};
        handed++;
        pthread_cond_signal(&work);
    }
    pthread_mutex_unlock(&lock);
    return room;
}

static void decref(void *v) { json_decref(v); }

void json_decref_later(json_t *v)
{
    if (!v)
        return;
    /* Not the last reference (then nothing is freed), small, or inside a batch of the caller's: now. */
    if (__atomic_load_n(&v->refcount, __ATOMIC_ACQUIRE) == 1 && filter && filter(v) && free_batch_depth == 0 &&
        free_later(decref, v))
        return;
    free_batch_begin();
    json_decref(v);
    free_batch_end();
}

void free_later_flush(void)
{
    pthread_mutex_lock(&lock);
    unsigned long target = handed;
    while (dropped < target)
        pthread_cond_wait(&idle, &lock);
    pthread_mutex_unlock(&lock);
}

void free_later_set_filter(bool (*big)(const json_t *v)) { filter = big; }
