/* A Kubernetes watch as a test sees it: one streaming GET on its own thread (libcurl), each
 * {"type","object"} line kept in arrival order, waits bounded, the status code and how it ended. */
#ifndef CALDERA_TEST_WATCH_CLIENT_H
#define CALDERA_TEST_WATCH_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "tests/lib/server.h"

struct watch_client;

/* Opens GET <server><path> (the path carries ?watch=true and its parameters); extra_header (may be
 * NULL) such as "Authorization: Bearer x". NULL when it cannot start. */
struct watch_client *watch_open(const struct test_server *s, const char *path, const char *extra_header);
/* Waits until the stream holds at least n events (bare keepalive newlines do not count) or has ended,
 * for at most timeout_ms. Returns how many it holds. */
int watch_wait_count(struct watch_client *w, int n, int timeout_ms);
/* Waits for an event whose type is type (NULL: any) and whose object's metadata.name is name (NULL:
 * any) and, when field/value are given, whose object has value at the dotted field; returns its index
 * or -1 after timeout_ms. Searches from index `from`. */
int watch_wait_for(struct watch_client *w, int from, const char *type, const char *name, const char *field,
                   const char *value, int timeout_ms);
/* Waits until the server ended the stream (at most timeout_ms); true when it did. */
bool watch_wait_end(struct watch_client *w, int timeout_ms);
/* A copy of every event so far (caller decrefs), and the HTTP status (0 while headers are not in). */
json_t *watch_events(struct watch_client *w);
long watch_status(struct watch_client *w);
/* The raw body so far (for non-stream answers such as a 410 Status); caller frees. */
char *watch_body(struct watch_client *w);
/* When event `index` (of watch_events' order) arrived, wall-clock ms; 0 when there is none. */
int64_t watch_received_ms(struct watch_client *w, int index);
/* Stops the stream (if still open) and frees everything. */
void watch_close(struct watch_client *w);

#endif
