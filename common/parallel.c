/* The helper pool behind parallel.h: batches in a queue, each piece taken by the first idle helper or,
 * at the wait, by the batch's own caller; a batch's count of finished pieces wakes the caller. */
#include "common/parallel.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct parallel_batch {
    struct parallel_batch *next; /* queued while pieces are left to take */
    void (*run)(void *ctx, int i);
    void *ctx;
    int n, taken, done;
    pthread_cond_t finished;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static struct parallel_batch *queue_head, *queue_tail;
static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static int helpers = -1; /* -1: not counted yet */

int parallel_cpus(void)
{
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return cpus < 1 ? 1 : cpus;
}

static int count_helpers(void)
{
    int n = parallel_cpus() - 1;
    return n > PARALLEL_MAX_HELPERS ? PARALLEL_MAX_HELPERS : n;
}

int parallel_helpers(void)
{
    pthread_mutex_lock(&lock);
    if (helpers < 0)
        helpers = count_helpers();
    int n = helpers;
    pthread_mutex_unlock(&lock);
    return n;
}

int parallel_parts(size_t size, size_t min_part)
{
    size_t most = min_part ? size / min_part : SIZE_MAX;
    size_t parts = (size_t)parallel_helpers() + 1;
    if (parts > most)
        parts = most;
    return parts < 1 ? 1 : (int)parts;
}

/* Takes the next piece of the first batch that has one; called with the lock held. */
static bool take(struct parallel_batch **b, int *i)
{
    struct parallel_batch *q = queue_head;
    if (!q)
        return false;
    *b = q;
    *i = q->taken++;
    if (q->taken == q->n) { /* nothing left to take: out of the queue */
        queue_head = q->next;
        if (!queue_head)
            queue_tail = NULL;
    }
    return true;
}

/* Runs piece i of b and counts it; called and returns with the lock held. */
static void run_piece(struct parallel_batch *b, int i)
{
    pthread_mutex_unlock(&lock);
    b->run(b->ctx, i);
    pthread_mutex_lock(&lock);
    if (++b->done == b->n)
        pthread_cond_signal(&b->finished);
}

static void *helper_loop(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals are the daemon's main thread's */
    pthread_mutex_lock(&lock);
    for (;;) {
        struct parallel_batch *b;
        int i;
        while (!take(&b, &i))
            pthread_cond_wait(&work, &lock);
        run_piece(b, i);
    }
    return NULL;
}

static void start_helpers(void)
{
    int want = parallel_helpers();
    pthread_attr_t attr;
    if (want == 0 || pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setstacksize(&attr, (size_t)1 << 20);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (int i = 0; i < want; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, helper_loop, NULL) != 0)
            break; /* fewer helpers: the callers run the rest themselves */
    }
    pthread_attr_destroy(&attr);
}

struct parallel_batch *parallel_start(int n, void (*run)(void *ctx, int i), void *ctx)
{
    struct parallel_batch *b = calloc(1, sizeof *b);
    if (!b || n <= 0 || pthread_cond_init(&b->finished, NULL) != 0) {
        free(b);
        return NULL;
    }
    pthread_once(&start_once, start_helpers);
    b->run = run;
    b->ctx = ctx;
    b->n = n;
    pthread_mutex_lock(&lock);
    if (queue_tail)
        queue_tail->next = b;
    else
        queue_head = b;
    queue_tail = b;
    if (n == 1)
        pthread_cond_signal(&work);
    else
        pthread_cond_broadcast(&work);
    pthread_mutex_unlock(&lock);
    return b;
}

/* Takes the batch out of the queue (its pieces left are the caller's); called with the lock held. */
static void unqueue(struct parallel_batch *b)
{
    struct parallel_batch **p = &queue_head, *prev = NULL;
    while (*p && *p != b) {
        prev = *p;
        p = &(*p)->next;
    }
    if (!*p)
        return;
    *p = b->next;
    if (queue_tail == b)
        queue_tail = prev;
}

void parallel_wait(struct parallel_batch *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&lock);
    if (b->taken < b->n)
        unqueue(b);
    while (b->taken < b->n)
        run_piece(b, b->taken++);
    while (b->done < b->n)
        pthread_cond_wait(&b->finished, &lock);
    pthread_mutex_unlock(&lock);
    pthread_cond_destroy(&b->finished);
    free(b);
}
