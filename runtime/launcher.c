/* The launcher's threads: spawners that take start orders in batches from a queue under a mutex, a
 * reaper with an epoll over the started processes' pidfds, and the result queue they both fill
 * (waking the core through an eventfd only when it was empty). */
#include "runtime/launcher.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/parallel.h"

#define HAND_OVER_AT 16 /* orders kept before they go to the spawners without waiting for a flush */
#define MAX_SPAWNERS 64
#define RELEASE_WAIT_MS 50 /* how long an idle reaper leaves released zombies */
#define REAPER_EVENTS 256
#define HELP_KEPT_MAX 2  /* so few orders kept are started by the caller itself */
#define LEAVE_EXITS_MS 2 /* how long the reaper leaves a lone exit to a helping caller */
#define TAG_WAKE 0       /* the reaper's own epoll: its wake-up, and the epoll of exits */
#define TAG_EXITS 1

struct order {
    struct order *next;
    int slot;
    struct attempt_copy *spec;
};

/* A started process the reaper watches (its epoll data), on the launcher's list of them. */
struct watched {
    struct watched *prev, *next;
    int slot;
    struct process proc;
};

struct launcher {
    pthread_mutex_t mu;
    pthread_cond_t orders_cond;
    struct order *orders, **orders_tail; /* handed over, not yet taken */
    int norders;
    struct launch_result *results, **results_tail;
    struct watched *watched;  /* every process the reaper watches */
    atomic_bool caller_helps; /* launcher_caller_helps: lone exits are left to the caller */
    int *releases, nreleases, releases_cap;
    bool stop;
    int result_fd, reaper_epfd, reaper_wake;
    int reaper_outer; /* the reaper's own epoll: reaper_wake and reaper_epfd (edge-triggered) */
    int nspawners;
    pthread_t spawners[MAX_SPAWNERS], reaper;
    bool reaper_started;
    /* the caller's side, touched by its thread alone until a flush */
    struct order *kept, **kept_tail;
    int nkept;
    int *kept_releases, nkept_releases, kept_releases_cap;
};

int launcher_default_spawners(void)
{
    const char *env = getenv("CALDERA_SPAWNERS");
    if (env && *env) {
        int n = atoi(env);
        return n < 0 ? 0 : n > MAX_SPAWNERS ? MAX_SPAWNERS : n;
    }
    int cpus = parallel_cpus();
    /* at least two: a spawner waits in the kernel (its vfork child until the exec; on cgroup v1 the
     * join may wait out an RCU grace period), and a second one starts tasks meanwhile */
    int n = cpus / 2;
    return n < 2 ? 2 : n > MAX_SPAWNERS ? MAX_SPAWNERS : n;
}

int launcher_fd(const struct launcher *l) { return l->result_fd; }

/* Appends a chain of results (first..last) and wakes the caller when the queue was empty. */
static void post_results(struct launcher *l, struct launch_result *first, struct launch_result **last_next)
{
    if (!first)
        return;
    pthread_mutex_lock(&l->mu);
    bool was_empty = !l->results;
    *l->results_tail = first;
    l->results_tail = last_next;
    pthread_mutex_unlock(&l->mu);
    uint64_t one = 1;
    if (was_empty && write(l->result_fd, &one, sizeof one) < 0)
        log_warn("launcher: eventfd write: %s", strerror(errno));
}

static void wake_reaper(struct launcher *l)
{
    uint64_t one = 1;
    if (write(l->reaper_wake, &one, sizeof one) < 0)
        log_warn("launcher: eventfd write: %s", strerror(errno));
}

static void start_one(const struct order *o, struct launch_result *r, struct watched **w)
{
    *r = (struct launch_result){.slot = o->slot, .pidfd = -1};
    struct process proc;
    if (process_start(&o->spec->spec, &proc, &r->started, r->why, sizeof r->why) != 0) {
        r->kind = LAUNCH_FAILED;
        return;
    }
    r->kind = LAUNCH_STARTED;
    *w = malloc(sizeof **w);
    if (!*w) { /* it cannot be watched, so it cannot stay (as a core out of slots does) */
        process_signal(&proc, SIGKILL);
        process_wait_exit(&proc, 5000);
        struct replica_exit ex;
        process_reap(&proc, &ex);
        r->kind = LAUNCH_FAILED;
        snprintf(r->why, sizeof r->why, "out of memory");
        return;
    }
    **w = (struct watched){.slot = o->slot, .proc = proc};
    r->proc = proc; /* the caller's copy: pid and cgroup to signal; the pidfd and record are the reaper's */
    r->proc.pidfd = -1;
    r->proc.exit_record = NULL;
}

/* Takes up to `most` orders off the queue (the lock held). */
static struct order *take_orders(struct launcher *l, int most)
{
    int n = 0;
    struct order *batch = l->orders, **end = &l->orders;
    for (; *end && n < most; end = &(*end)->next, n++)
        ;
    l->orders = *end;
    if (!l->orders)
        l->orders_tail = &l->orders;
    *end = NULL;
    l->norders -= n;
    return batch;
}

/* Starts a batch of orders on this thread: the results posted, then the processes watched. */
static void run_batch(struct launcher *l, struct order *batch)
{
    struct launch_result *first = NULL, **tail = &first;
    struct watched *watch[HAND_OVER_AT * 4];
    int nwatch = 0;
    while (batch) {
        struct order *o = batch;
        batch = o->next;
        struct launch_result *r = malloc(sizeof *r);
        struct watched *w = NULL;
        if (r) {
            start_one(o, r, &w);
            *tail = r;
            tail = &r->next;
            r->next = NULL;
        } else {
            log_error("launcher: out of memory: an attempt's start is lost");
        }
        attempt_copy_free(o->spec);
        free(o);
        if (w)
            watch[nwatch++] = w;
        if (nwatch == (int)(sizeof watch / sizeof watch[0]) || (!batch && nwatch > 0)) {
            /* started first, then watched: the exit can only follow its start in the queue */
            post_results(l, first, tail);
            first = NULL;
            tail = &first;
            pthread_mutex_lock(&l->mu);
            for (int i = 0; i < nwatch; i++) {
                watch[i]->next = l->watched;
                watch[i]->prev = NULL;
                if (l->watched)
                    l->watched->prev = watch[i];
                l->watched = watch[i];
            }
            pthread_mutex_unlock(&l->mu);
            for (int i = 0; i < nwatch; i++) {
                struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.ptr = watch[i]};
                if (epoll_ctl(l->reaper_epfd, EPOLL_CTL_ADD, watch[i]->proc.pidfd, &ev) != 0)
                    log_error("launcher: epoll_ctl(pidfd %d): %s", watch[i]->proc.pidfd, strerror(errno));
            }
            nwatch = 0;
        }
    }
    post_results(l, first, tail);
}

static void *spawner_main(void *arg)
{
    struct launcher *l = arg;
    pthread_setname_np(pthread_self(), "spawner");
    for (;;) {
        pthread_mutex_lock(&l->mu);
        while (!l->orders && !l->stop)
            pthread_cond_wait(&l->orders_cond, &l->mu);
        if (l->stop && !l->orders) {
            pthread_mutex_unlock(&l->mu);
            return NULL;
        }
        /* a share of what waits, so that every spawner gets some */
        struct order *batch = take_orders(l, (l->norders + l->nspawners - 1) / l->nspawners);
        pthread_mutex_unlock(&l->mu);
        run_batch(l, batch);
    }
}

bool launcher_help(struct launcher *l)
{
    if (l->nkept > 0 && l->nkept <= HELP_KEPT_MAX) { /* a start or two: not worth waking a spawner */
        struct order *one = l->kept;
        l->kept = one->next;
        if (!l->kept)
            l->kept_tail = &l->kept;
        l->nkept--;
        one->next = NULL;
        run_batch(l, one);
        return true;
    }
    launcher_flush(l);
    pthread_mutex_lock(&l->mu);
    struct order *one = take_orders(l, 1);
    pthread_mutex_unlock(&l->mu);
    if (!one)
        return false;
    run_batch(l, one);
    return true;
}

/* Reaps the zombies whose exits the caller has handled. */
static void release_zombies(struct launcher *l)
{
    pthread_mutex_lock(&l->mu);
    int n = l->nreleases;
    int *list = l->releases;
    l->releases = NULL;
    l->nreleases = l->releases_cap = 0;
    pthread_mutex_unlock(&l->mu);
    for (int i = 0; i < n; i++)
        process_release(list[i]);
    free(list);
}

/* Collects the exits among n ready events of the epoll of exits and posts them. */
static void collect_events(struct launcher *l, const struct epoll_event *evs, int n)
{
    struct launch_result *first = NULL, **tail = &first;
    for (int i = 0; i < n; i++) {
        struct watched *w = evs[i].data.ptr;
        struct launch_result *r = calloc(1, sizeof *r);
        if (!r || process_collect(&w->proc, &r->exit) != 0) {
            free(r); /* not yet (or no memory): watched again */
            struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.ptr = w};
            epoll_ctl(l->reaper_epfd, EPOLL_CTL_MOD, w->proc.pidfd, &ev);
            continue;
        }
        r->kind = LAUNCH_EXITED;
        r->slot = w->slot;
        r->pidfd = w->proc.pidfd;
        r->next = NULL;
        *tail = r;
        tail = &r->next;
        pthread_mutex_lock(&l->mu);
        if (w->prev)
            w->prev->next = w->next;
        else
            l->watched = w->next;
        if (w->next)
            w->next->prev = w->prev;
        pthread_mutex_unlock(&l->mu);
        free(w);
    }
    post_results(l, first, tail);
}

/* Collects every exit that waits (the epoll of exits drained: the reaper hears of it edge-triggered). */
static void collect_all(struct launcher *l)
{
    struct epoll_event evs[REAPER_EVENTS];
    int n;
    do {
        n = epoll_wait(l->reaper_epfd, evs, REAPER_EVENTS, 0);
        collect_events(l, evs, n > 0 ? n : 0);
    } while (n == REAPER_EVENTS);
}

/* Waits on its own epoll: its wake-up (releases, the stop) and the epoll of exits. While the caller
 * (the core) waits to collect exits itself (launcher_caller_helps), the reaper leaves them to it for
 * LEAVE_EXITS_MS, then collects what is left: a lone exit is handled without a hand-over between
 * threads, and still collected when the caller got busy. Otherwise it collects them at once. */
static void *reaper_main(void *arg)
{
    struct launcher *l = arg;
    pthread_setname_np(pthread_self(), "reaper");
    int64_t collect_at = -1; /* monotonic ms when exits left to the caller are collected; -1: none */
    for (;;) {
        pthread_mutex_lock(&l->mu);
        bool stop = l->stop, pending = l->nreleases > 0;
        pthread_mutex_unlock(&l->mu);
        if (stop)
            break;
        int timeout = pending ? RELEASE_WAIT_MS : -1;
        if (collect_at >= 0) {
            int64_t left = collect_at - clock_mono_ms();
            int wait = left > 0 ? (int)left : 0;
            timeout = timeout < 0 || wait < timeout ? wait : timeout;
        }
        struct epoll_event evs[2];
        int n = epoll_wait(l->reaper_outer, evs, 2, timeout);
        if (n < 0 && errno != EINTR) {
            log_error("launcher: epoll_wait: %s", strerror(errno));
            break;
        }
        bool exits = false;
        for (int i = 0; i < n; i++) {
            uint64_t v;
            if (evs[i].data.u64 == TAG_EXITS)
                exits = true;
            else if (read(l->reaper_wake, &v, sizeof v) < 0 && errno != EAGAIN)
                log_warn("launcher: eventfd read: %s", strerror(errno));
        }
        bool left = atomic_load_explicit(&l->caller_helps, memory_order_relaxed); /* now, not before the wait */
        if (exits && left && collect_at < 0)
            collect_at = clock_mono_ms() + LEAVE_EXITS_MS;
        if ((exits && !left) || (collect_at >= 0 && clock_mono_ms() >= collect_at)) {
            collect_at = -1;
            collect_all(l);
        }
        release_zombies(l);
    }
    release_zombies(l);
    return NULL;
}

int launcher_reap_fd(const struct launcher *l) { return l->reaper_epfd; }

void launcher_caller_helps(struct launcher *l, bool helps)
{
    atomic_store_explicit(&l->caller_helps, helps, memory_order_relaxed);
}

void launcher_help_reap(struct launcher *l)
{
    struct epoll_event evs[16];
    int n = epoll_wait(l->reaper_epfd, evs, 16, 0);
    collect_events(l, evs, n > 0 ? n : 0);
}

struct launcher *launcher_new(int spawners)
{
    struct launcher *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->orders_cond, NULL);
    l->orders_tail = &l->orders;
    l->results_tail = &l->results;
    l->kept_tail = &l->kept;
    l->reaper_epfd = l->reaper_wake = l->reaper_outer = -1;
    atomic_init(&l->caller_helps, false);
    l->result_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    l->reaper_wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    l->reaper_epfd = epoll_create1(EPOLL_CLOEXEC);
    l->reaper_outer = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event wake = {.events = EPOLLIN, .data.u64 = TAG_WAKE};
    struct epoll_event exits = {.events = EPOLLIN | EPOLLET, .data.u64 = TAG_EXITS};
    if (l->result_fd < 0 || l->reaper_wake < 0 || l->reaper_epfd < 0 || l->reaper_outer < 0 ||
        epoll_ctl(l->reaper_outer, EPOLL_CTL_ADD, l->reaper_wake, &wake) != 0 ||
        epoll_ctl(l->reaper_outer, EPOLL_CTL_ADD, l->reaper_epfd, &exits) != 0) {
        launcher_free(l);
        return NULL;
    }
    process_runtime_init();
    if (pthread_create(&l->reaper, NULL, reaper_main, l) != 0) {
        launcher_free(l);
        return NULL;
    }
    l->reaper_started = true;
    spawners = spawners < 1 ? 1 : spawners > MAX_SPAWNERS ? MAX_SPAWNERS : spawners;
    for (; l->nspawners < spawners; l->nspawners++)
        if (pthread_create(&l->spawners[l->nspawners], NULL, spawner_main, l) != 0)
            break;
    if (l->nspawners == 0) {
        launcher_free(l);
        return NULL;
    }
    return l;
}

void launcher_queue(struct launcher *l, int slot, struct attempt_copy *spec)
{
    struct order *o = malloc(sizeof *o);
    if (!o) { /* reported as a failed start, in order */
        struct launch_result *r = calloc(1, sizeof *r);
        attempt_copy_free(spec);
        if (!r) {
            log_error("launcher: out of memory: an attempt's start is lost");
            return;
        }
        *r = (struct launch_result){.kind = LAUNCH_FAILED, .slot = slot, .pidfd = -1};
        snprintf(r->why, sizeof r->why, "out of memory");
        post_results(l, r, &r->next);
        return;
    }
    *o = (struct order){.slot = slot, .spec = spec};
    *l->kept_tail = o;
    l->kept_tail = &o->next;
    if (++l->nkept >= HAND_OVER_AT)
        launcher_flush(l);
}

void launcher_release(struct launcher *l, int pidfd)
{
    if (l->nkept_releases == l->kept_releases_cap) {
        int cap = l->kept_releases_cap ? l->kept_releases_cap * 2 : 256;
        int *grown = realloc(l->kept_releases, (size_t)cap * sizeof *grown);
        if (!grown) {
            process_release(pidfd); /* here, then */
            return;
        }
        l->kept_releases = grown;
        l->kept_releases_cap = cap;
    }
    l->kept_releases[l->nkept_releases++] = pidfd;
}

void launcher_flush(struct launcher *l)
{
    if (!l->kept && l->nkept_releases == 0)
        return;
    bool wake = false;
    pthread_mutex_lock(&l->mu);
    if (l->kept) {
        *l->orders_tail = l->kept;
        l->orders_tail = l->kept_tail;
        l->norders += l->nkept;
    }
    if (l->nkept_releases > 0) {
        wake = l->nreleases == 0;
        if (l->nreleases == 0) { /* hand the whole array over */
            free(l->releases);
            l->releases = l->kept_releases;
            l->nreleases = l->nkept_releases;
            l->releases_cap = l->kept_releases_cap;
            l->kept_releases = NULL;
            l->kept_releases_cap = 0;
        } else {
            int need = l->nreleases + l->nkept_releases;
            int *grown = need > l->releases_cap ? realloc(l->releases, (size_t)need * sizeof *grown) : l->releases;
            if (grown) {
                memcpy(grown + l->nreleases, l->kept_releases, (size_t)l->nkept_releases * sizeof *grown);
                l->releases = grown;
                l->nreleases = need;
                l->releases_cap = need > l->releases_cap ? need : l->releases_cap;
            } else { /* kept for the next flush */
                pthread_mutex_unlock(&l->mu);
                goto orders_only;
            }
        }
        l->nkept_releases = 0;
    }
    pthread_mutex_unlock(&l->mu);
orders_only:
    if (l->kept)
        pthread_cond_broadcast(&l->orders_cond);
    l->kept = NULL;
    l->kept_tail = &l->kept;
    l->nkept = 0;
    if (wake)
        wake_reaper(l); /* an idle reaper waits without a timeout */
}

struct launch_result *launcher_take(struct launcher *l)
{
    uint64_t v;
    if (read(l->result_fd, &v, sizeof v) < 0 && errno != EAGAIN)
        log_warn("launcher: eventfd read: %s", strerror(errno));
    pthread_mutex_lock(&l->mu);
    struct launch_result *r = l->results;
    l->results = NULL;
    l->results_tail = &l->results;
    pthread_mutex_unlock(&l->mu);
    return r;
}

void launcher_wait(const struct launcher *l, int timeout_ms)
{
    struct pollfd pfd = {.fd = l->result_fd, .events = POLLIN};
    while (poll(&pfd, 1, timeout_ms) < 0 && errno == EINTR)
        ;
}

void launcher_free(struct launcher *l)
{
    if (!l)
        return;
    launcher_flush(l); /* orders kept go to the spawners, which start them before they stop */
    pthread_mutex_lock(&l->mu);
    l->stop = true;
    pthread_cond_broadcast(&l->orders_cond);
    pthread_mutex_unlock(&l->mu);
    for (int i = 0; i < l->nspawners; i++)
        pthread_join(l->spawners[i], NULL);
    if (l->reaper_started) {
        wake_reaper(l);
        pthread_join(l->reaper, NULL);
    }
    for (struct watched *w = l->watched, *next; w; w = next) { /* let go, not ended */
        next = w->next;
        process_forget(&w->proc);
        free(w);
    }
    for (struct launch_result *r = l->results, *next; r; r = next) {
        next = r->next;
        if (r->kind == LAUNCH_EXITED)
            process_release(r->pidfd);
        free(r);
    }
    for (int i = 0; i < l->nkept_releases; i++)
        process_release(l->kept_releases[i]);
    free(l->kept_releases);
    free(l->releases);
    if (l->result_fd >= 0)
        close(l->result_fd);
    if (l->reaper_wake >= 0)
        close(l->reaper_wake);
    if (l->reaper_epfd >= 0)
        close(l->reaper_epfd);
    if (l->reaper_outer >= 0)
        close(l->reaper_outer);
    pthread_cond_destroy(&l->orders_cond);
    pthread_mutex_destroy(&l->mu);
    free(l);
}
