/* The libwebsockets context of caldera-terminal: one protocol whose callback hands HTTP, WebSocket and
 * pty events to http.c and session.c, a 100 ms timer that reaps shells, and the stop on a signal. */
#include "common/clock.h"
#include "tools/terminal/server.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tools/terminal/http.h"
#include "tools/terminal/session.h"

#define SWEEP_US (100 * 1000)
#define STOP_GRACE_MS 1000 /* how long a stop waits for the sockets to take their close frames */

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    struct term_server *srv = lws_context_user(lws_get_context(wsi));
    struct session *s = lws_get_opaque_user_data(wsi);
    char err[256];
    switch (reason) {
    case LWS_CALLBACK_HTTP: return user ? term_http_request(srv, wsi, user) : -1;
    case LWS_CALLBACK_HTTP_WRITEABLE: return user ? term_http_writable(wsi, user) : -1;
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: return term_http_confirm_upgrade(srv, wsi);
    case LWS_CALLBACK_ESTABLISHED:
        if (srv->stopping || srv->nsessions >= srv->opt->max_terminals)
            return -1;
        if (session_start(srv, wsi, err, sizeof err) != 0) {
            fprintf(stderr, "caldera-terminal: cannot start a terminal: %s\n", err);
            return -1;
        }
        return 0;
    case LWS_CALLBACK_RECEIVE: return s ? session_ws_receive(s, in, len) : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE: return s ? session_ws_writable(s) : 0;
    case LWS_CALLBACK_CLOSED:
        if (s) {
            lws_set_opaque_user_data(wsi, NULL);
            session_ws_closed(s);
        }
        return 0;
    case LWS_CALLBACK_RAW_RX_FILE: return s ? session_pty_readable(s) : 0;
    case LWS_CALLBACK_RAW_WRITEABLE_FILE: return s ? session_pty_writable(s) : 0;
    case LWS_CALLBACK_RAW_CLOSE_FILE:
        if (s) {
            lws_set_opaque_user_data(wsi, NULL);
            session_pty_closed(s);
        }
        return 0;
    default: return 0;
    }
}

static const struct lws_protocols protocols[] = {
    {TERMINAL_PROTOCOL, callback, sizeof(struct http_conn), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void log_line(int level, const char *line)
{
    fprintf(stderr, "caldera-terminal: libwebsockets %s: %s", level & LLL_ERR ? "error" : "warning", line);
}

static void sweep(lws_sorted_usec_list_t *sul)
{
    struct term_server *srv = lws_container_of(sul, struct term_server, sweep);
    sessions_sweep(srv);
    lws_sul_schedule(srv->ctx, 0, &srv->sweep, sweep, SWEEP_US);
}

int term_server_start(struct term_server *s, const struct term_options *o, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->opt = o;
    s->last_activity_ms = clock_wall_ms();
    lws_set_log_level(LLL_ERR | LLL_WARN, log_line);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = o->port;
    info.iface = o->host;
    info.protocols = protocols;
    info.gid = -1;
    info.uid = -1;
    info.user = s;
    info.count_threads = 1;
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6 | LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND;
    s->ctx = lws_create_context(&info);
    s->vh = s->ctx ? lws_get_vhost_by_name(s->ctx, "default") : NULL;
    if (!s->vh) {
        snprintf(err, errlen, "cannot listen on %s:%d", o->host, o->port);
        if (s->ctx)
            lws_context_destroy(s->ctx);
        s->ctx = NULL;
        return -1;
    }
    s->port = lws_get_vhost_listen_port(s->vh);
    lws_sul_schedule(s->ctx, 0, &s->sweep, sweep, SWEEP_US);
    return 0;
}

void term_server_run(struct term_server *s, volatile sig_atomic_t *stop)
{
    while (!*stop)
        if (lws_service(s->ctx, 0) < 0)
            break;
    s->stopping = true;
    sessions_end_all(s);
    int64_t deadline = clock_mono_ms() + STOP_GRACE_MS;
    while (s->connections > 0 && clock_mono_ms() < deadline)
        if (lws_service(s->ctx, 0) < 0)
            break;
    lws_context_destroy(s->ctx);
    s->ctx = NULL;
    sessions_finish(s, STOP_GRACE_MS);
}
