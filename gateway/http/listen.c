/* The HTTP listener's accept loop, in place of libmicrohttpd's: libmicrohttpd 0.9.75 with a thread per
 * connection polls its listener again at once when accept(2) fails with EMFILE (its listening thread
 * then takes a core), where this loop pauses, 10 ms doubling to 200 ms, and says so once per kind of
 * failure. Accepted sockets go to the daemon (MHD_add_connection), whose per-address and total caps
 * close those past them. */
#include "gateway/http/listen.h"

#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"

#define BACKLOG 4096
#define ACCEPTS_PER_WAKE 64
#define BACKOFF_MIN_MS 10
#define BACKOFF_MAX_MS 200

struct http_listener {
    int fd;
    int stop_fd; /* an eventfd: readable once the loop must end */
    unsigned port;
    struct MHD_Daemon *daemon;
    pthread_t thread;
    bool started;
    atomic_ulong handed; /* sockets the daemon took (MHD_add_connection said yes) */
};

int http_listener_open(const struct sockaddr_in *sa, struct http_listener **out, char *err, size_t errlen)
{
    struct http_listener *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    l->fd = l->stop_fd = -1;
    int one = 1;
    struct sockaddr_in bound;
    socklen_t len = sizeof bound;
    l->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    l->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (l->stop_fd < 0 || l->fd < 0 || setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(l->fd, (const struct sockaddr *)sa, sizeof *sa) != 0 || listen(l->fd, BACKLOG) != 0 ||
        getsockname(l->fd, (struct sockaddr *)&bound, &len) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        http_listener_close(l);
        return -1;
    }
    l->port = ntohs(bound.sin_port);
    *out = l;
    return 0;
}

unsigned http_listener_port(const struct http_listener *l) { return l->port; }

/* Waits ms, or less when the loop must end. Returns false when it must. */
static bool pause_unless_stopped(struct http_listener *l, int ms)
{
    struct pollfd p = {.fd = l->stop_fd, .events = POLLIN};
    return poll(&p, 1, ms) == 0;
}

/* Accepts what is waiting, at most ACCEPTS_PER_WAKE. Returns the pause to take before polling again:
 * 0, or *backoff_ms grown when accept(2) failed for want of descriptors or memory. */
static int accept_waiting(struct http_listener *l, int *backoff_ms)
{
    for (int i = 0; i < ACCEPTS_PER_WAKE; i++) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        int fd = accept4(l->fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd >= 0) {
            *backoff_ms = 0;
            if (MHD_add_connection(l->daemon, fd, (const struct sockaddr *)&ss, len) == MHD_YES)
                atomic_fetch_add(&l->handed, 1);
            /* else it closed fd */
            continue;
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        int failure = errno;
        *backoff_ms = *backoff_ms == 0                   ? BACKOFF_MIN_MS
                      : *backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS
                                                         : *backoff_ms * 2;
        log_limited(LOG_ERROR, strerror(failure), "http: cannot accept a connection: %s; accepting again in %d ms",
                    strerror(failure), *backoff_ms);
        return *backoff_ms;
    }
    return 0;
}

static void *accept_loop(void *arg)
{
    struct http_listener *l = arg;
    int backoff_ms = 0;
    for (;;) {
        struct pollfd p[2] = {{.fd = l->fd, .events = POLLIN}, {.fd = l->stop_fd, .events = POLLIN}};
        if (poll(p, 2, -1) < 0 && errno != EINTR)
            break;
        if (p[1].revents)
            break;
        if (!(p[0].revents & POLLIN))
            continue;
        int pause_ms = accept_waiting(l, &backoff_ms);
        if (pause_ms > 0 && !pause_unless_stopped(l, pause_ms))
            break;
    }
    return NULL;
}

int http_listener_start(struct http_listener *l, struct MHD_Daemon *daemon)
{
    l->daemon = daemon;
    if (pthread_create(&l->thread, NULL, accept_loop, l) != 0)
        return -1;
    l->started = true;
    return 0;
}

unsigned long http_listener_close(struct http_listener *l)
{
    if (!l)
        return 0;
    if (l->started) {
        uint64_t one = 1;
        ssize_t w = write(l->stop_fd, &one, sizeof one);
        (void)w;
        pthread_join(l->thread, NULL);
    }
    if (l->fd >= 0)
        close(l->fd);
    if (l->stop_fd >= 0)
        close(l->stop_fd);
    unsigned long handed = atomic_load(&l->handed);
    free(l);
    return handed;
}
