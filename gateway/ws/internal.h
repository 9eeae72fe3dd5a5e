/* What the WebSocket gateway's files share: the server (server.c: the context and its thread),
 * a subscriber's connection (conn.c: cursor and writes), the handshake (handshake.c) and the
 * catch-up from the database (backfill.c). Everything here lives on the WebSocket thread. */
#ifndef CALDERA_WS_INTERNAL_H
#define CALDERA_WS_INTERNAL_H

#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/api_status.h"
#include "common/hashmap.h"
#include "gateway/ws/ws.h"
#include "gateway/ws/query.h"

struct store_reader;

/* How much one writable callback sends before it lets other connections have their turn. */
#define WS_MESSAGES_PER_TURN 64
/* One read of the database covers at most this many sequence numbers, and keeps at most
 * WS_BACKFILL_EVENTS events for the subscriber: the thread never stalls for long, and a connection
 * holds a bounded amount. */
#define WS_BACKFILL_SPAN 4096
#define WS_BACKFILL_EVENTS 256

/* An event read from the database, waiting to be sent. */
struct ws_backlog_item {
    uint64_t seq;
    char *json;
    size_t len;
};

struct ws_peer;

struct ws_conn {
    struct ws_conn *prev, *next; /* the server's handshakes until established, then its subscribers */
    struct ws_server *srv;
    struct lws *wsi;
    struct ws_peer *peer; /* its client address's counts (peers.c) */
    int64_t accepted_ms;  /* monotonic: the handshake's deadline counts from here */
    bool handshaking;     /* on the server's handshake list */
    bool admitted;        /* counted as a subscriber (its upgrade was confirmed) */
    bool overdue;         /* its handshake outlived the deadline: being closed */
    struct ws_subscription sub;
    void *principal;
    bool has_principal;
    bool subscribed;  /* established, counted in the gauge and on the list */
    bool wants_write; /* has (or may have) events to send: a writable callback is asked for */
    bool from_db;     /* catching up from the database, not yet from the hub */
    /* Every event this subscriber follows with a seq up to cursor has been sent (or queued in
     * libwebsockets, which sends in order). */
    uint64_t cursor;
    /* The database read in progress: items [next, count) still to send, then cursor = backlog_upto. */
    struct ws_backlog_item *backlog;
    int backlog_count, backlog_next;
    uint64_t backlog_upto;
    int close_code;         /* non-zero: close with it at the next writable callback */
    char close_reason[124]; /* at most 123 bytes go in a close frame */
};

struct ws_server {
    struct lws_context *context;
    struct hub *hub;
    struct ws_auth auth;
    char *db_path;
    size_t send_buffer;
    char url[128];
    pthread_t thread;
    bool thread_started;
    atomic_bool stopping;
    atomic_bool stopped;      /* the thread has left its loop */
    pthread_mutex_t wake_mu;  /* the hub's notify and ws_stop() */
    struct lws_context *wake; /* what the notify wakes; NULL once stopping */
    atomic_int subscribers;   /* established: while none, a publish wakes nobody (no syscall) */
    int max_subscribers, max_per_client, handshake_timeout_ms;
    /* The WebSocket thread's own: */
    struct ws_conn *conns;
    struct ws_conn *handshaking;  /* accepted, not yet established: the handshake deadline's list */
    struct hmap peers;            /* client address -> struct ws_peer */
    long connections, admitted;   /* sockets accepted and not yet freed; subscribers admitted */
    bool peer_pending;            /* a connection was let in and its wsi is about to be made */
    int pending_fd;               /* its socket */
    char pending_address[48];     /* its client address */
    lws_sorted_usec_list_t sweep; /* the handshake deadline's timer */
    uint64_t scanned;             /* the hub's items up to here were matched against the subscribers */
    struct store_reader *reader;  /* opened at the first catch-up from the database */
    unsigned char *out;           /* a message with LWS_PRE bytes before it */
    size_t out_cap;
};

/* handshake.c: the protocol's callback for everything before a subscriber is established:
 * non-upgrade HTTP requests, and LWS_CALLBACK_HTTP_CONFIRM_UPGRADE (refusals answered here with a
 * Status). On success the wsi's opaque user data is a new ws_conn. Returns what libwebsockets wants. */
int ws_handshake_confirm(struct ws_server *s, struct lws *wsi);
/* Answers a plain HTTP request on the WebSocket port (400: this port only upgrades). */
int ws_handshake_plain_http(struct lws *wsi);
/* Frees a connection that never was established (or after ws_conn_closed). */
void ws_conn_free(struct ws_conn *c);

/* peers.c: the listener's caps, on the WebSocket thread. */
/* LWS_CALLBACK_FILTER_NETWORK_CONNECTION: whether the accepted socket fd may stay (connections in all
 * and from its address, subscribers plus handshakes); false closes it at once. */
bool ws_peers_admit_socket(struct ws_server *s, int fd);
/* LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED: the connection let in just before gets its record (with its address's
 * counts) as the wsi's opaque user data, and the handshake deadline starts. */
void ws_peers_track(struct ws_server *s, struct lws *wsi);
/* At the upgrade: 0 when the connection may subscribe (it is counted), else a 503 (the server's cap) or
 * 429 (its address's) in st, with Retry-After. */
int ws_peers_admit_subscriber(struct ws_conn *c, struct api_status *st);
/* The connection is established: off the handshake list. */
void ws_peers_established(struct ws_conn *c);
/* Forgets the connection's counts (from ws_conn_free). */
void ws_peers_forget(struct ws_conn *c);
/* Closes the handshakes past their deadline; scheduled on the thread's timer. */
void ws_peers_sweep(struct ws_server *s);
void ws_peers_free(struct ws_server *s);

/* conn.c */
void ws_conn_established(struct ws_conn *c);
/* Sends what the subscriber has coming, a turn's worth. Returns -1 to close the connection. */
int ws_conn_writable(struct ws_conn *c);
void ws_conn_closed(struct ws_conn *c);
/* On the thread, after the hub published: asks a writable callback of every subscriber with news. */
void ws_conn_scan_news(struct ws_server *s);
/* Asks the connection to close with code and reason at its next writable callback. */
void ws_conn_close_later(struct ws_conn *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* backfill.c: reads the connection's next events from the database, after its cursor and at most
 * WS_BACKFILL_SPAN sequence numbers on, never past the hub's head, into its backlog. Returns 0, or -1
 * with a 500 in st. */
int ws_backfill_read(struct ws_conn *c, struct api_status *st);
/* Drops whatever the backlog holds. */
void ws_backfill_clear(struct ws_conn *c);
#endif
