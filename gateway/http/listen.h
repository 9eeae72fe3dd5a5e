/* The HTTP listener's accept loop, in place of libmicrohttpd's: each accepted socket is handed to the
 * daemon (MHD_add_connection, which applies its caps), and while accept(2) fails for want of
 * descriptors or memory the loop pauses instead of retrying at once. */
#ifndef CALDERA_HTTP_LISTEN_H
#define CALDERA_HTTP_LISTEN_H

#include <netinet/in.h>
#include <stddef.h>

struct MHD_Daemon;
struct http_listener;

/* Binds and listens on sa (port 0: a free one). Returns 0, or -1 with a sentence in err. */
int http_listener_open(const struct sockaddr_in *sa, struct http_listener **out, char *err, size_t errlen);
/* The port it listens on. */
unsigned http_listener_port(const struct http_listener *l);
/* Starts accepting for daemon (started with MHD_USE_NO_LISTEN_SOCKET). Returns 0, or -1. */
int http_listener_start(struct http_listener *l, struct MHD_Daemon *daemon);
/* Stops accepting (before the daemon stops), closes the socket and frees l (NULL does nothing).
 * Returns how many sockets the daemon took from it (MHD_add_connection said yes). */
unsigned long http_listener_close(struct http_listener *l);

#endif
