/* What the WebSocket gateway's files share: the server (ws_server.c: the context and its thread),
 * a subscriber's connection (ws_conn.c: cursor and writes), the handshake (ws_handshake.c) and the
 * catch-up from the database (ws_backfill.c). Everything here lives on the WebSocket thread. */
#ifndef CALDERA_WS_INTERNAL_H
#define CALDERA_WS_INTERNAL_H

#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/api_status.h"
#include "gateway/ws.h"
#include "gateway/ws_query.h"

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

struct ws_conn {
    struct ws_conn *prev, *next;  /* the server's subscribers */
    struct ws_server *srv;
    struct lws *wsi;
    struct ws_subscription sub;
    void *principal;
    bool has_principal;
    bool subscribed;              /* established, counted in the gauge and on the list */
    bool wants_write;             /* has (or may have) events to send: a writable callback is asked for */
    bool from_db;                 /* catching up from the database, not yet from the hub */
    /* Every event this subscriber follows with a seq up to cursor has been sent (or queued in
     * libwebsockets, which sends in order). */
    uint64_t cursor;
    /* The database read in progress: items [next, count) still to send, then cursor = backlog_upto. */
    struct ws_backlog_item *backlog;
    int backlog_count, backlog_next;
    uint64_t backlog_upto;
    int close_code;               /* non-zero: close with it at the next writable callback */
    char close_reason[124];       /* at most 123 bytes go in a close frame */
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
    atomic_bool stopped;            /* the thread has left its loop */
    pthread_mutex_t wake_mu;        /* the hub's notify and ws_stop() */
    struct lws_context *wake;       /* what the notify wakes; NULL once stopping */
    atomic_int subscribers;         /* established: while none, a publish wakes nobody (no syscall) */
    /* The WebSocket thread's own: */
    struct ws_conn *conns;
    uint64_t scanned;               /* the hub's items up to here were matched against the subscribers */
    struct store_reader *reader;    /* opened at the first catch-up from the database */
    unsigned char *out;             /* a message with LWS_PRE bytes before it */
    size_t out_cap;
};

/* ws_handshake.c: the protocol's callback for everything before a subscriber is established:
 * non-upgrade HTTP requests, and LWS_CALLBACK_HTTP_CONFIRM_UPGRADE (refusals answered here with a
 * Status). On success the wsi's opaque user data is a new ws_conn. Returns what libwebsockets wants. */
int ws_handshake_confirm(struct ws_server *s, struct lws *wsi);
/* Answers a plain HTTP request on the WebSocket port (400: this port only upgrades). */
int ws_handshake_plain_http(struct lws *wsi);
/* Frees a connection that never was established (or after ws_conn_closed). */
void ws_conn_free(struct ws_conn *c);

/* ws_conn.c */
void ws_conn_established(struct ws_conn *c);
/* Sends what the subscriber has coming, a turn's worth. Returns -1 to close the connection. */
int ws_conn_writable(struct ws_conn *c);
void ws_conn_closed(struct ws_conn *c);
/* On the thread, after the hub published: asks a writable callback of every subscriber with news. */
void ws_conn_scan_news(struct ws_server *s);
/* Asks the connection to close with code and reason at its next writable callback. */
void ws_conn_close_later(struct ws_conn *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ws_backfill.c: reads the connection's next events from the database, after its cursor and at most
 * WS_BACKFILL_SPAN sequence numbers on, never past the hub's head, into its backlog. Returns 0, or -1
 * with a 500 in st. */
int ws_backfill_read(struct ws_conn *c, struct api_status *st);
/* Drops whatever the backlog holds. */
void ws_backfill_clear(struct ws_conn *c);
#endif
