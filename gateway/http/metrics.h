/* What the gateway measures for GET /metrics outside the core: HTTP request latency by method and
 * status code, and the WebSocket subscriber gauge. Both are lock-free and callable from any thread. */
#ifndef CALDERA_GATEWAY_METRICS_H
#define CALDERA_GATEWAY_METRICS_H

#include <stdint.h>

#include "common/sbuf.h"

/* One answered request: its method (anything but the usual verbs counts as "other"), the status code
 * sent and how long it took from its first byte to its answer. Never the path: its cardinality is
 * unbounded. */
void metrics_http_observe(const char *method, int code, int64_t duration_ns);
/* The WebSocket gateway calls this with +1 when a subscriber joins and -1 when it leaves. */
void metrics_websocket_subscribers_add(int delta);
/* The HTTP latency histogram and the WebSocket gauge as exposition lines. */
void metrics_render_gateway(struct sbuf *out);

#endif
