/* Raw TCP for the tests that do what an HTTP library will not: trickle a header, stop a body mid-way,
 * hold thousands of connections, connect from a chosen loopback address. */
#ifndef CALDERA_TEST_RAW_SOCKET_H
#define CALDERA_TEST_RAW_SOCKET_H

#include <stdbool.h>
#include <stddef.h>

/* The port of a URL ("http://127.0.0.1:41234", "ws://127.0.0.1:41235"), or 0. */
int raw_port_of(const char *url);
/* A connection to 127.0.0.1:port, from the address from ("127.0.0.N") when not NULL. Returns the
 * socket (close-on-exec) or -1. */
int raw_connect(const char *from, int port);
/* Sends all of data (no SIGPIPE). Returns false when the peer closed or an error came first. */
bool raw_send_all(int fd, const void *data, size_t len);
/* raw_send_all of a string. */
bool raw_send_text(int fd, const char *text);
/* What the server sent until it closed, within timeout_ms (caller frees; "" when it closed without
 * a word, or reset); NULL when the connection is still open and silent at the deadline. */
char *raw_read_until_closed(int fd, int timeout_ms);

#endif
