/* caldera-terminal's HTTP side: the token check of every request, the routes under the base URL (page,
 * static files, api/status) and the admission of WebSocket handshakes to BASE/ws. */
#ifndef CALDERA_TERMINAL_HTTP_H
#define CALDERA_TERMINAL_HTTP_H

#include <libwebsockets.h>

#include "tools/terminal/server.h"

/* A request's answer in progress (libwebsockets' per-connection data). */
struct http_conn {
    const unsigned char *body;
    size_t len, sent;
    char small[512]; /* a body made for this request (api/status) */
};

/* LWS_CALLBACK_HTTP: answers the request; -1 asks libwebsockets to close. */
int term_http_request(struct term_server *srv, struct lws *wsi, struct http_conn *c);
/* LWS_CALLBACK_HTTP_WRITEABLE: sends the next part of the body. */
int term_http_writable(struct lws *wsi, struct http_conn *c);
/* LWS_CALLBACK_HTTP_CONFIRM_UPGRADE: 0 admits the handshake; otherwise the refusal was written and
 * -1 closes. */
int term_http_confirm_upgrade(struct term_server *srv, struct lws *wsi);

#endif
