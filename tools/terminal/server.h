/* caldera-terminal's server: one libwebsockets context serving the page, the assets, api/status and
 * the terminals' WebSockets on one loopback listener, run by the main thread until a signal. */
#ifndef CALDERA_TERMINAL_SERVER_H
#define CALDERA_TERMINAL_SERVER_H

#include <libwebsockets.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "tools/terminal/options.h"

#define TERMINAL_PROTOCOL "caldera-terminal.v1" /* the WebSocket subprotocol (offering none is fine) */

struct session;

struct term_server {
    const struct term_options *opt;
    struct lws_context *ctx;
    struct lws_vhost *vh;
    int port;                 /* the port listened on */
    struct session *sessions; /* every terminal whose shell or socket is not yet gone */
    int nsessions;
    int connections;              /* terminals whose WebSocket is open */
    int64_t last_activity_ms;     /* wall clock of the last byte either way, open or close */
    lws_sorted_usec_list_t sweep; /* the periodic reap of shells and kill deadlines */
    bool stopping;
};

/* Listens as o asks. Returns 0, or -1 with the reason in err. */
int term_server_start(struct term_server *s, const struct term_options *o, char *err, size_t errlen);
/* Serves until *stop is set (by a signal handler), then closes every terminal (their sessions get
 * SIGHUP, then SIGKILL), waits for the shells and frees everything. */
void term_server_run(struct term_server *s, volatile sig_atomic_t *stop);

#endif
