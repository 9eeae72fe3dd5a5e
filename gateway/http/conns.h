/* The HTTP listener's connection guard: each connection's socket and deadline, tracked through
 * libmicrohttpd's connection notifications, and a reaper thread that shuts down slow clients. */
#ifndef CALDERA_HTTP_CONNS_H
#define CALDERA_HTTP_CONNS_H

#include <microhttpd.h>

struct http_conns;
struct http_conn;

/* Starts the reaper. A connection has header_timeout_ms to deliver a request's headers, counted from
 * its accept or from the end of its previous request (so that is also the longest a keep-alive
 * connection waits idle), and body_timeout_ms to deliver the body once the headers are in (0: no
 * limit). One past its deadline is shut down (shutdown(2), never close: libmicrohttpd owns the
 * descriptor). Returns 0, or -1 when the thread or memory is missing. */
int http_conns_start(int header_timeout_ms, int body_timeout_ms, struct http_conns **out);
/* Stops the reaper and frees it; libmicrohttpd must have stopped first (NULL does nothing). */
void http_conns_stop(struct http_conns *g);

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION: tracks a connection from STARTED to CLOSED, its
 * record in *socket_context. */
void http_conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                       enum MHD_ConnectionNotificationCode toe);

/* How many connections libmicrohttpd has taken in so far (STARTED notifications, on its own thread). */
unsigned long http_conns_started(struct http_conns *g);
/* The record of a request's connection (NULL when it is not tracked). */
struct http_conn *http_conn_of(struct MHD_Connection *conn);
/* The request's headers are in: its body's deadline starts. */
void http_conn_headers_in(struct http_conns *g, struct http_conn *c);
/* The request is whole (the server answers or streams now): no deadline. */
void http_conn_request_in(struct http_conn *c);
/* The request is over: the next one's headers' deadline starts. */
void http_conn_request_done(struct http_conns *g, struct http_conn *c);

#endif
