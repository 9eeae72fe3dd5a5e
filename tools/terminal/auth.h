/* Whether a request carries caldera-terminal's token: in Authorization ("token T" or "Bearer T"), in
 * the query (?token=T), or in the cookie the page sets; compared in constant time. */
#ifndef CALDERA_TERMINAL_AUTH_H
#define CALDERA_TERMINAL_AUTH_H

#include <libwebsockets.h>
#include <stddef.h>

#define TERMINAL_COOKIE "caldera-terminal-token"

enum term_auth { TERM_AUTH_NONE, TERM_AUTH_HEADER, TERM_AUTH_QUERY, TERM_AUTH_COOKIE };

/* How the request on wsi proved it holds token, or TERM_AUTH_NONE. */
enum term_auth term_auth_check(struct lws *wsi, const char *token);
/* Whether a cookie-authenticated WebSocket handshake comes from a page of this server: its Origin,
 * when sent, names the host the request was sent to (Host or X-Forwarded-Host). */
int term_auth_same_origin(struct lws *wsi);

#endif
