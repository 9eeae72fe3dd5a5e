/* The WebSocket gateway's server: a libwebsockets context with its own listener, the one thread that
 * services it (pausing while accept(2) fails), the protocol callback that hands each reason to its
 * file, the hub's wake-up (the store writer only calls lws_cancel_service()), and a stop that says
 * goodbye to every subscriber. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "gateway/watch/hub.h"
#include "gateway/ws/internal.h"
#include "store/history.h"

#define STOP_GRACE_MS 1000           /* how long a stop waits for subscribers to take their close frames */
#define SWEEP_PERIOD_US (250 * 1000) /* how often handshakes are held against their deadline */
#define ACCEPT_BACKOFF_MIN_MS 10     /* while accept(2) fails (EMFILE), the thread pauses this long... */
#define ACCEPT_BACKOFF_MAX_MS 200    /* ...doubling up to this, instead of polling the listener hot */

/* Set by libwebsockets' log line about a failed accept(2): it leaves the listener readable, so its
 * loop would spin on accept while the failure lasts (EMFILE: 5.1 GB of log in a minute). */
static atomic_bool accept_failed;

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    (void)user;
    (void)len;
    struct ws_server *s = lws_context_user(lws_get_context(wsi));
    struct ws_conn *c = lws_get_opaque_user_data(wsi);
    switch (reason) {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION: {
        /* A bounded send buffer: a subscriber that stops reading holds that much of the kernel's
         * memory, and falls behind the hub soon enough to be told so. */
        int fd = (int)(intptr_t)in, size = (int)s->send_buffer;
        if (!ws_peers_admit_socket(s, fd))
            return -1; /* libwebsockets closes it */
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
        return 0;
    }
    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
        if (s)
            ws_peers_track(s, wsi);
        return 0;
    case LWS_CALLBACK_HTTP: return ws_handshake_plain_http(wsi);
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: return ws_handshake_confirm(s, wsi);
    case LWS_CALLBACK_ESTABLISHED:
        if (!c || c->overdue)
            return -1;
        ws_peers_established(c);
        ws_conn_established(c);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE: return c ? ws_conn_writable(c) : 0;
    case LWS_CALLBACK_RECEIVE: return 0; /* subscribers have nothing to say; what they send is dropped */
    case LWS_CALLBACK_CLOSED:
        if (c)
            ws_conn_closed(c);
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        if (c) {
            lws_set_opaque_user_data(wsi, NULL);
            ws_conn_free(c);
        }
        return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (!s)
            return 0;
        if (atomic_load(&s->stopping)) {
            for (struct ws_conn *it = s->conns; it; it = it->next)
                if (!it->close_code)
                    ws_conn_close_later(it, LWS_CLOSE_STATUS_GOINGAWAY, "server shutting down");
        } else {
            ws_conn_scan_news(s);
        }
        return 0;
    default: return 0;
    }
}

static const struct lws_protocols protocols[] = {
    {WS_PROTOCOL, callback, 0, 1024, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* libwebsockets' own log lines, warnings and errors only, into ours, each kind at most once per
 * LOG_LIMIT_INTERVAL_MS (a failing accept says so once per attempt). */
static void lws_log(int level, const char *line)
{
    char text[512];
    snprintf(text, sizeof text, "%s", line);
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        text[--n] = '\0';
    if (strstr(text, "accept:"))
        atomic_store(&accept_failed, true);
    log_limited(level & LLL_ERR ? LOG_ERROR : LOG_WARN, text, "websocket: %s", text);
}

/* The thread's timer: handshakes past their deadline are closed. */
static void sweep(lws_sorted_usec_list_t *sul)
{
    struct ws_server *s = lws_container_of(sul, struct ws_server, sweep);
    ws_peers_sweep(s);
    lws_sul_schedule(s->context, 0, &s->sweep, sweep, SWEEP_PERIOD_US);
}

/* After a turn of the loop in which accept(2) failed, a pause growing from ACCEPT_BACKOFF_MIN_MS to
 * ACCEPT_BACKOFF_MAX_MS: the listener stays readable while the process is out of descriptors, and
 * libwebsockets would try again at once. *backoff_ms is 0 while accepts succeed. */
static void back_off_accepting(int *backoff_ms)
{
    if (!atomic_exchange(&accept_failed, false)) {
        *backoff_ms = 0;
        return;
    }
    *backoff_ms = *backoff_ms == 0                          ? ACCEPT_BACKOFF_MIN_MS
                  : *backoff_ms * 2 > ACCEPT_BACKOFF_MAX_MS ? ACCEPT_BACKOFF_MAX_MS
                                                            : *backoff_ms * 2;
    usleep((useconds_t)*backoff_ms * 1000);
}

/* Runs on the store writer's thread after each publish: only wakes the service thread, and only when
 * someone subscribes (a subscriber established after this check reads what came before it anyway). */
static void wake(void *ctx)
{
    struct ws_server *s = ctx;
    if (atomic_load(&s->subscribers) == 0)
        return;
    pthread_mutex_lock(&s->wake_mu);
    if (s->wake)
        lws_cancel_service(s->wake);
    pthread_mutex_unlock(&s->wake_mu);
}

static void *serve(void *arg)
{
    struct ws_server *s = arg;
    int64_t deadline = 0;
    int backoff_ms = 0;
    lws_sul_schedule(s->context, 0, &s->sweep, sweep, SWEEP_PERIOD_US);
    for (;;) {
        if (lws_service(s->context, 0) < 0)
            break;
        back_off_accepting(&backoff_ms);
        if (atomic_load(&s->stopping)) {
            int64_t now = clock_mono_ms();
            if (!deadline)
                deadline = now + STOP_GRACE_MS;
            if (!s->conns || now >= deadline)
                break;
        }
    }
    atomic_store(&s->stopped, true);
    return NULL;
}

static int parse_listen(const char *addr, char *host, size_t hostlen, int *port, char *err, size_t errlen)
{
    const char *colon = strrchr(addr, ':');
    struct in_addr a;
    char *end;
    long p = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!colon || (size_t)(colon - addr) >= hostlen || colon[1] == '\0' || *end || p < 0 || p > 65535) {
        snprintf(err, errlen, "--ws-listen wants an IPv4 HOST:PORT, got \"%s\"", addr);
        return -1;
    }
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = '\0';
    if (!host[0])
        snprintf(host, hostlen, "0.0.0.0");
    if (inet_pton(AF_INET, host, &a) != 1) {
        snprintf(err, errlen, "--ws-listen wants an IPv4 HOST:PORT, got \"%s\"", addr);
        return -1;
    }
    *port = (int)p;
    return 0;
}

static void server_free(struct ws_server *s)
{
    if (s->context)
        lws_context_destroy(s->context); /* closes what is left; their callbacks run here */
    store_reader_close(s->reader);
    ws_peers_free(s);
    pthread_mutex_destroy(&s->wake_mu);
    free(s->out);
    free(s->db_path);
    free(s);
}

int ws_start(const struct ws_config *cfg, struct ws_server **out, char *err, size_t errlen)
{
    char host[64];
    int port;
    *out = NULL;
    if (parse_listen(cfg->listen, host, sizeof host, &port, err, errlen) != 0)
        return -1;
    struct ws_server *s = calloc(1, sizeof *s);
    if (!s || !(s->db_path = strdup(cfg->db_path))) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pthread_mutex_init(&s->wake_mu, NULL);
    s->hub = cfg->hub;
    s->auth = cfg->auth;
    s->send_buffer = cfg->send_buffer ? cfg->send_buffer : WS_SEND_BUFFER;
    s->max_subscribers = cfg->max_subscribers > 0 ? cfg->max_subscribers : WS_DEFAULT_MAX_SUBSCRIBERS;
    s->max_per_client = cfg->max_per_client > 0 ? cfg->max_per_client : WS_DEFAULT_MAX_PER_CLIENT;
    s->handshake_timeout_ms = cfg->handshake_timeout_ms > 0 ? cfg->handshake_timeout_ms
                                                            : WS_DEFAULT_HANDSHAKE_TIMEOUT_MS;
    s->scanned = hub_head(cfg->hub);
    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = port;
    info.iface = strcmp(host, "0.0.0.0") == 0 ? NULL : host;
    info.protocols = protocols;
    info.gid = -1;
    info.uid = -1;
    info.user = s;
    info.count_threads = 1;
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6 | LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND |
                   LWS_SERVER_OPTION_VALIDATE_UTF8;
    s->context = lws_create_context(&info);
    struct lws_vhost *vh = s->context ? lws_get_vhost_by_name(s->context, "default") : NULL;
    if (!vh) {
        snprintf(err, errlen, "cannot listen for WebSocket subscribers on %s (--ws-listen)", cfg->listen);
        server_free(s);
        return -1;
    }
    snprintf(s->url, sizeof s->url, "ws://%s:%d%s", strcmp(host, "0.0.0.0") == 0 ? "127.0.0.1" : host,
             lws_get_vhost_listen_port(vh), WS_STREAM_PATH);
    s->wake = s->context;
    hub_set_notify(s->hub, wake, s);
    if (pthread_create(&s->thread, NULL, serve, s) != 0) {
        hub_set_notify(s->hub, NULL, NULL);
        snprintf(err, errlen, "cannot start the WebSocket thread");
        server_free(s);
        return -1;
    }
    s->thread_started = true;
    *out = s;
    return 0;
}

const char *ws_url(const struct ws_server *s) { return s->url; }

void ws_stop(struct ws_server *s)
{
    if (!s)
        return;
    hub_set_notify(s->hub, NULL, NULL);
    pthread_mutex_lock(&s->wake_mu); /* a notify running now ends before this returns */
    s->wake = NULL;
    pthread_mutex_unlock(&s->wake_mu);
    atomic_store(&s->stopping, true);
    /* Each wake-up lets the thread close subscribers and see whether it is done (it gives up on
     * them STOP_GRACE_MS after the first). */
    while (s->thread_started && !atomic_load(&s->stopped)) {
        lws_cancel_service(s->context);
        usleep(20000);
    }
    if (s->thread_started)
        pthread_join(s->thread, NULL);
    server_free(s);
}
