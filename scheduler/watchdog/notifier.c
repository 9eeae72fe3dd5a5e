/* The notifier's queue and thread. One mutex guards the queue; the thread takes the oldest notice,
 * POSTs it outside the lock (common/http_client.c), and waits on a condition between tries, so a
 * stop wakes it at once. Counters are relaxed atomics, read by /metrics on any thread. */
#include "scheduler/watchdog/notifier.h"

#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/http_client.h"
#include "common/log.h"
#include "common/metrics.h"

#define BACKOFF_MAX_MS 60000
#define STOP_DRAIN_MS 2000

struct pending {
    struct pending *next;
    int webhook;
    char *body;
};

struct webhook_counts {
    _Atomic uint64_t sent, failed, dropped, retries;
    _Atomic int64_t queued;
};

struct notifier {
    const struct watchdog_conf *conf;
    struct webhook_counts *counts; /* one per webhook */
    pthread_t thread;
    pthread_mutex_t lock; /* guards the queue and stopping */
    pthread_cond_t wake;
    struct pending *head, *tail;
    int depth;
    bool stopping;
    int64_t drain_until_ms; /* once stopping: one try each until then */
};

static void count_dropped(struct notifier *n, int w, const char *why)
{
    atomic_fetch_add_explicit(&n->counts[w].dropped, 1, memory_order_relaxed);
    log_warn(
        "watchdog: a notice for webhook %s was dropped: %s (counted in caldera_watchdog_notifications_dropped_total)",
        n->conf->webhooks[w].name, why);
}

int notifier_post(struct notifier *n, int w, char *body)
{
    if (!n || w < 0 || w >= n->conf->nwebhooks) {
        free(body);
        return -1;
    }
    struct pending *p = body ? malloc(sizeof *p) : NULL;
    if (!p) {
        free(body);
        count_dropped(n, w, "out of memory");
        return -1;
    }
    *p = (struct pending){NULL, w, body};
    pthread_mutex_lock(&n->lock);
    bool full = n->depth >= n->conf->queue_size, stopping = n->stopping;
    if (!full && !stopping) {
        if (n->tail)
            n->tail->next = p;
        else
            n->head = p;
        n->tail = p;
        n->depth++;
        atomic_fetch_add_explicit(&n->counts[w].queued, 1, memory_order_relaxed);
        pthread_cond_signal(&n->wake);
    }
    pthread_mutex_unlock(&n->lock);
    if (full || stopping) {
        free(body);
        free(p);
        count_dropped(n, w, stopping ? "the server is stopping" : "the send queue is full");
        return -1;
    }
    return 0;
}

/* One POST; true on a 2xx answer. */
static bool post_once(const struct notifier *n, const struct pending *p, char *err, size_t errlen)
{
    const struct watchdog_webhook *w = &n->conf->webhooks[p->webhook];
    struct http_request req = {.method = "POST",
                               .url = w->url,
                               .body = p->body,
                               .body_len = strlen(p->body),
                               .content_type = "application/json",
                               .timeout_ms = n->conf->timeout_ms};
    struct http_response resp = {0};
    if (http_do(&req, &resp, err, errlen) != 0)
        return false;
    bool ok = resp.code >= 200 && resp.code < 300;
    if (!ok)
        snprintf(err, errlen, "HTTP %ld", resp.code);
    http_response_free(&resp);
    return ok;
}

/* Waits ms, or less when stopping; false when the wait ended because the notifier stops. */
static bool wait_backoff(struct notifier *n, int64_t ms)
{
    struct timespec until = clock_deadline(CLOCK_MONOTONIC, ms);
    pthread_mutex_lock(&n->lock);
    while (!n->stopping && pthread_cond_timedwait(&n->wake, &n->lock, &until) == 0) {
    }
    bool stopping = n->stopping;
    pthread_mutex_unlock(&n->lock);
    return !stopping;
}

/* Sends p: the first try and up to conf->retries more after a doubling back-off (only the first
 * once stopping). */
static void deliver(struct notifier *n, struct pending *p)
{
    struct webhook_counts *c = &n->counts[p->webhook];
    const char *name = n->conf->webhooks[p->webhook].name;
    char err[256] = "";
    int64_t backoff = n->conf->backoff_ms;
    for (int tries = 0;; tries++) {
        if (post_once(n, p, err, sizeof err)) {
            atomic_fetch_add_explicit(&c->sent, 1, memory_order_relaxed);
            return;
        }
        if (tries >= n->conf->retries || !wait_backoff(n, backoff))
            break;
        atomic_fetch_add_explicit(&c->retries, 1, memory_order_relaxed);
        backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
    }
    atomic_fetch_add_explicit(&c->failed, 1, memory_order_relaxed);
    log_warn(
        "watchdog: webhook %s: a notice could not be delivered: %s (counted in "
        "caldera_watchdog_notifications_failed_total)",
        name, err);
}

static void *sender_loop(void *arg)
{
    struct notifier *n = arg;
    for (;;) {
        pthread_mutex_lock(&n->lock);
        while (!n->head && !n->stopping)
            pthread_cond_wait(&n->wake, &n->lock);
        struct pending *p = n->head;
        bool late = n->stopping && clock_mono_ms() >= n->drain_until_ms;
        if (p && !late) {
            n->head = p->next;
            if (!n->head)
                n->tail = NULL;
            n->depth--;
        }
        pthread_mutex_unlock(&n->lock);
        if (!p || late)
            break;
        atomic_fetch_sub_explicit(&n->counts[p->webhook].queued, 1, memory_order_relaxed);
        deliver(n, p);
        free(p->body);
        free(p);
    }
    return NULL;
}

struct notifier *notifier_start(const struct watchdog_conf *conf)
{
    if (!conf || conf->nwebhooks == 0)
        return NULL;
    struct notifier *n = calloc(1, sizeof *n);
    if (n)
        n->counts = calloc((size_t)conf->nwebhooks, sizeof *n->counts);
    if (!n || !n->counts) {
        log_error("watchdog: out of memory starting the notifier");
        free(n);
        return NULL;
    }
    n->conf = conf;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&n->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&n->lock, NULL);
    if (pthread_create(&n->thread, NULL, sender_loop, n) != 0) {
        log_error("watchdog: cannot start the notifier's thread");
        pthread_cond_destroy(&n->wake);
        pthread_mutex_destroy(&n->lock);
        free(n->counts);
        free(n);
        return NULL;
    }
    return n;
}

static void family(struct sbuf *out, const struct notifier *n, const char *name, const char *type, const char *help,
                   size_t offset)
{
    metrics_family(out, name, type, help);
    for (int w = 0; w < n->conf->nwebhooks; w++) {
        const char *field = (const char *)&n->counts[w] + offset;
        long long v = strcmp(type, "gauge") == 0
                          ? (long long)atomic_load_explicit((const _Atomic int64_t *)field, memory_order_relaxed)
                          : (long long)atomic_load_explicit((const _Atomic uint64_t *)field, memory_order_relaxed);
        sbuf_printf(out, "%s{webhook=\"", name);
        metrics_label_value(out, n->conf->webhooks[w].name);
        sbuf_printf(out, "\"} %lld\n", v);
    }
}

void notifier_metrics(struct notifier *n, struct sbuf *out)
{
    if (!n)
        return;
    family(out, n, "caldera_watchdog_notifications_sent_total", "counter",
           "WatchDog notices a webhook accepted (a 2xx answer).", offsetof(struct webhook_counts, sent));
    family(out, n, "caldera_watchdog_notifications_failed_total", "counter",
           "WatchDog notices given up on after every try failed.", offsetof(struct webhook_counts, failed));
    family(out, n, "caldera_watchdog_notifications_retries_total", "counter",
           "Tries of WatchDog notices after a failed one.", offsetof(struct webhook_counts, retries));
    family(out, n, "caldera_watchdog_notifications_dropped_total", "counter",
           "WatchDog notices dropped unsent: the send queue was full, or the server stopped first.",
           offsetof(struct webhook_counts, dropped));
    family(out, n, "caldera_watchdog_notifications_queued", "gauge", "WatchDog notices waiting to be sent.",
           offsetof(struct webhook_counts, queued));
}

void notifier_stop(struct notifier *n)
{
    if (!n)
        return;
    pthread_mutex_lock(&n->lock);
    n->stopping = true;
    n->drain_until_ms = clock_mono_ms() + STOP_DRAIN_MS;
    pthread_cond_signal(&n->wake);
    pthread_mutex_unlock(&n->lock);
    pthread_join(n->thread, NULL);
    while (n->head) {
        struct pending *p = n->head;
        n->head = p->next;
        atomic_fetch_sub_explicit(&n->counts[p->webhook].queued, 1, memory_order_relaxed);
        count_dropped(n, p->webhook, "the server stopped before it was sent");
        free(p->body);
        free(p);
    }
    pthread_cond_destroy(&n->wake);
    pthread_mutex_destroy(&n->lock);
    free(n->counts);
    free(n);
}
