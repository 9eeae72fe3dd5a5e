/* The WebSocket listener's caps, on its thread: connections counted by client address from accept to
 * free, subscribers beyond --ws-max-subscribers (503) or --ws-max-subscribers-per-client (429) refused
 * before the upgrade, sockets past those caps and the handshakes' allowance closed as accepted, and
 * handshakes that take longer than their deadline closed. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/clock.h"
#include "common/log.h"
#include "gateway/ws/internal.h"

struct ws_peer {
    char address[48];
    int connections; /* sockets, handshaking or subscribed */
    int subscribers; /* admitted */
};

static void peer_address(int fd, char *out, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    snprintf(out, len, "unknown");
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0)
        return;
    if (ss.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, out, (socklen_t)len);
    else if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, out, (socklen_t)len);
}

bool ws_peers_admit_socket(struct ws_server *s, int fd)
{
    char address[sizeof s->pending_address];
    peer_address(fd, address, sizeof address);
    const struct ws_peer *p = strmap_get(&s->peers, address);
    int from_address = p ? p->connections : 0;
    if (s->connections >= s->max_subscribers + WS_HANDSHAKES_EXTRA ||
        from_address >= s->max_per_client + WS_HANDSHAKES_EXTRA_PER_CLIENT) {
        log_limited(LOG_WARN, "websocket: closing a connection at accept",
                    "websocket: closing a connection from %s as it is accepted: %ld connections in all, %d from its "
                    "address (--ws-max-subscribers %d, --ws-max-subscribers-per-client %d, and handshakes)",
                    address, s->connections, from_address, s->max_subscribers, s->max_per_client);
        return false;
    }
    snprintf(s->pending_address, sizeof s->pending_address, "%s", address);
    s->pending_fd = fd;
    s->peer_pending = true;
    return true;
}

void ws_peers_track(struct ws_server *s, struct lws *wsi)
{
    if (!s->peer_pending || lws_get_socket_fd(wsi) != s->pending_fd)
        return; /* not the connection just let in */
    s->peer_pending = false;
    struct ws_conn *c = calloc(1, sizeof *c);
    struct ws_peer *p = strmap_get(&s->peers, s->pending_address);
    if (c && !p && (p = calloc(1, sizeof *p))) {
        snprintf(p->address, sizeof p->address, "%s", s->pending_address);
        if (strmap_put(&s->peers, p->address, p) != 0) {
            free(p);
            p = NULL;
        }
    }
    if (!c || !p) {
        free(c); /* untracked: its upgrade is refused (503) */
        return;
    }
    c->srv = s;
    c->wsi = wsi;
    c->peer = p;
    c->accepted_ms = clock_mono_ms();
    p->connections++;
    s->connections++;
    c->handshaking = true;
    c->next = s->handshaking;
    if (s->handshaking)
        s->handshaking->prev = c;
    s->handshaking = c;
    lws_set_opaque_user_data(wsi, c);
}

int ws_peers_admit_subscriber(struct ws_conn *c, struct api_status *st)
{
    struct ws_server *s = c->srv;
    if (c->peer->subscribers >= s->max_per_client) { /* its own doing first */
        api_fail(st, 429, "TooManyRequests",
                 "%d subscribers from your address %s already, its limit (jobserver --ws-max-subscribers-per-client "
                 "%d): close one first",
                 c->peer->subscribers, c->peer->address, s->max_per_client);
        st->retry_after_s = 5;
    } else if (s->admitted >= s->max_subscribers) {
        api_fail(st, 503, "ServiceUnavailable",
                 "the server has %ld subscribers, its limit (jobserver --ws-max-subscribers %d): retry later",
                 s->admitted, s->max_subscribers);
        st->retry_after_s = 5;
    } else {
        c->admitted = true;
        c->peer->subscribers++;
        s->admitted++;
        return 0;
    }
    log_limited(LOG_WARN, st->code == 503 ? "websocket: refusing, server full" : "websocket: refusing, address full",
                "websocket: refusing a subscriber from %s: %s", c->peer->address, st->message);
    return -1;
}

static void unlink_handshake(struct ws_conn *c)
{
    if (!c->handshaking)
        return;
    if (c->prev)
        c->prev->next = c->next;
    else
        c->srv->handshaking = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    c->handshaking = false;
}

void ws_peers_established(struct ws_conn *c) { unlink_handshake(c); }

void ws_peers_forget(struct ws_conn *c)
{
    struct ws_server *s = c->srv;
    unlink_handshake(c);
    if (!c->peer)
        return;
    s->connections--;
    c->peer->connections--;
    if (c->admitted) {
        s->admitted--;
        c->peer->subscribers--;
    }
    if (c->peer->connections == 0) {
        strmap_remove(&s->peers, c->peer->address);
        free(c->peer);
    }
    c->peer = NULL;
}

void ws_peers_sweep(struct ws_server *s)
{
    int64_t now = clock_mono_ms();
    for (struct ws_conn *c = s->handshaking; c; c = c->next) {
        if (c->overdue || now - c->accepted_ms < s->handshake_timeout_ms)
            continue;
        c->overdue = true;
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        log_limited(LOG_WARN, "websocket: closing a slow handshake",
                    "websocket: closing a connection from %s whose handshake took longer than %d ms (--header-timeout)",
                    c->peer ? c->peer->address : "unknown", s->handshake_timeout_ms);
    }
}

void ws_peers_free(struct ws_server *s)
{
    const void *key;
    void *value;
    for (size_t i = 0; hmap_next(&s->peers, &i, &key, &value);)
        free(value);
    hmap_free(&s->peers);
}
