/* The HTTP listener's connection guard: every connection's socket and deadline, tracked through
 * libmicrohttpd's connection notifications, and a reaper thread that shuts down slow clients. */
#include "gateway/http/conns.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "common/clock.h"
#include "common/log.h"

enum phase { AWAITING_HEADERS, AWAITING_BODY, ANSWERING };

struct http_conn {
    struct http_conn *prev, *next; /* the guard's list, under its lock */
    int fd;
    atomic_llong deadline_ms; /* monotonic; 0: none */
    atomic_int phase;
    bool shut; /* the reaper shut it down already */
};

struct http_conns {
    pthread_mutex_t mu; /* the list, and every fd on it: CLOSED takes it before libmicrohttpd closes */
    pthread_cond_t wake;
    pthread_t reaper;
    bool stopping;
    struct http_conn *head;
    int header_timeout_ms, body_timeout_ms;
    atomic_ulong started; /* STARTED notifications: connections libmicrohttpd's own thread took in */
};

void http_conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                       enum MHD_ConnectionNotificationCode toe)
{
    struct http_conns *g = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        atomic_fetch_add(&g->started, 1);
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct http_conn *c = info ? calloc(1, sizeof *c) : NULL;
        *socket_context = c;
        if (!c)
            return; /* untracked: only libmicrohttpd's idle timeout applies */
        c->fd = info->connect_fd;
        atomic_init(&c->deadline_ms, clock_mono_ms() + g->header_timeout_ms);
        atomic_init(&c->phase, AWAITING_HEADERS);
        pthread_mutex_lock(&g->mu);
        c->next = g->head;
        if (g->head)
            g->head->prev = c;
        g->head = c;
        pthread_mutex_unlock(&g->mu);
        return;
    }
    struct http_conn *c = *socket_context;
    if (!c)
        return;
    pthread_mutex_lock(&g->mu); /* after this, the reaper never touches c->fd again */
    if (c->prev)
        c->prev->next = c->next;
    else
        g->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&g->mu);
    free(c);
    *socket_context = NULL;
}

unsigned long http_conns_started(struct http_conns *g) { return atomic_load(&g->started); }

struct http_conn *http_conn_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

void http_conn_headers_in(struct http_conns *g, struct http_conn *c)
{
    if (!c)
        return;
    atomic_store(&c->phase, AWAITING_BODY);
    atomic_store(&c->deadline_ms, g->body_timeout_ms > 0 ? clock_mono_ms() + g->body_timeout_ms : 0);
}

void http_conn_request_in(struct http_conn *c)
{
    if (!c)
        return;
    atomic_store(&c->phase, ANSWERING);
    atomic_store(&c->deadline_ms, 0);
}

void http_conn_request_done(struct http_conns *g, struct http_conn *c)
{
    if (!c)
        return;
    atomic_store(&c->deadline_ms, clock_mono_ms() + g->header_timeout_ms);
    atomic_store(&c->phase, AWAITING_HEADERS);
}

/* Shuts down every connection past its deadline. Under g->mu. */
static void reap(struct http_conns *g, int64_t now)
{
    for (struct http_conn *c = g->head; c; c = c->next) {
        int64_t deadline = atomic_load(&c->deadline_ms);
        if (c->shut || deadline == 0 || now < deadline)
            continue;
        c->shut = true;
        shutdown(c->fd, SHUT_RDWR); /* libmicrohttpd's thread wakes, sees the end and closes */
        if (atomic_load(&c->phase) == AWAITING_HEADERS)
            log_limited(LOG_WARN, "http: dropping headers",
                        "http: dropping a connection whose request headers took longer than %d ms "
                        "(--header-timeout)",
                        g->header_timeout_ms);
        else
            log_limited(LOG_WARN, "http: dropping body",
                        "http: dropping a connection whose request body took longer than %d ms in all "
                        "(--client-timeout)",
                        g->body_timeout_ms);
    }
}

static void *reaper_main(void *arg)
{
    struct http_conns *g = arg;
    int period_ms = g->header_timeout_ms / 8;
    period_ms = period_ms < 50 ? 50 : period_ms > 500 ? 500 : period_ms;
    pthread_mutex_lock(&g->mu);
    while (!g->stopping) {
        reap(g, clock_mono_ms());
        struct timespec until = clock_deadline(CLOCK_MONOTONIC, period_ms);
        pthread_cond_timedwait(&g->wake, &g->mu, &until);
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

int http_conns_start(int header_timeout_ms, int body_timeout_ms, struct http_conns **out)
{
    struct http_conns *g = calloc(1, sizeof *g);
    if (!g)
        return -1;
    g->header_timeout_ms = header_timeout_ms;
    g->body_timeout_ms = body_timeout_ms;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&g->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&g->mu, NULL);
    if (pthread_create(&g->reaper, NULL, reaper_main, g) != 0) {
        pthread_cond_destroy(&g->wake);
        pthread_mutex_destroy(&g->mu);
        free(g);
        return -1;
    }
    *out = g;
    return 0;
}

void http_conns_stop(struct http_conns *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    g->stopping = true;
    pthread_cond_signal(&g->wake);
    pthread_mutex_unlock(&g->mu);
    pthread_join(g->reaper, NULL);
    while (g->head) { /* none once libmicrohttpd stopped; freed all the same */
        struct http_conn *c = g->head;
        g->head = c->next;
        free(c);
    }
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->mu);
    free(g);
}
