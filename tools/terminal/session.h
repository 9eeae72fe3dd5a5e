/* One terminal: a WebSocket and the pty of its shell, bytes copied both ways with one bounded buffer
 * each way (the side that is ahead is paused), resize messages, and an end that kills the session. */
#ifndef CALDERA_TERMINAL_SESSION_H
#define CALDERA_TERMINAL_SESSION_H

#include <libwebsockets.h>
#include <stddef.h>

#include "tools/terminal/server.h"

/* Starts a shell for the WebSocket ws (established): its pty is adopted into the context. Returns
 * 0, or -1 with the reason in err (the caller closes ws). */
int session_start(struct term_server *srv, struct lws *ws, char *err, size_t errlen);

/* The WebSocket side's events; a -1 return asks libwebsockets to close ws. */
int session_ws_receive(struct session *s, const void *in, size_t len);
int session_ws_writable(struct session *s);
void session_ws_closed(struct session *s);

/* The pty side's events; a -1 return asks libwebsockets to close the pty. */
int session_pty_readable(struct session *s);
int session_pty_writable(struct session *s);
void session_pty_closed(struct session *s);

/* Reaps exited shells, sends SIGKILL past the grace and frees finished sessions (from the timer). */
void sessions_sweep(struct term_server *srv);
/* Ends every session (SIGHUP, sockets told to close with going-away). */
void sessions_end_all(struct term_server *srv);
/* After the context is gone: SIGKILLs what is left, reaps for at most wait_ms, frees everything. */
void sessions_finish(struct term_server *srv, int wait_ms);

#endif
