/* A companion for the proxy's tests and benchmark, on loopback (libmicrohttpd, thread per
 * connection): /echo... answers what it got, /count counts a body without keeping it, /big streams a known pattern, /ws upgrades to a
 * WebSocket that echoes raw bytes. And an in-process gateway in front of it with a stub resolver. */
#ifndef CALDERA_TEST_PROXY_UPSTREAM_H
#define CALDERA_TEST_PROXY_UPSTREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gateway/http/http.h"
#include "gateway/proxy/proxy.h"

struct MHD_Daemon;

struct proxy_upstream {
    struct MHD_Daemon *daemon;
    int port;
    uint64_t big_size; /* /big's length (default 100 MiB) */
};

/* Starts it on a free port. Returns 0 or -1. */
int proxy_upstream_start(struct proxy_upstream *u);
void proxy_upstream_stop(struct proxy_upstream *u);
/* /big's byte at offset i. */
unsigned char proxy_upstream_byte(uint64_t i);
/* The Sec-WebSocket-Accept for a key (RFC 6455). */
void proxy_ws_accept(const char *key, char out[64]);

/* The stub resolver's companions: "nb" (Ready, the upstream, secret headers), "strip" (the same with
 * strip_prefix), "pending" (phase Pending), "dead" (Ready on a port nobody listens on), in every
 * namespace; anything else 404. It counts touched() calls. */
struct proxy_stub {
    struct proxy_resolver resolver;
    int port, dead_port;
    pthread_mutex_t mu;
    int touched;
    char touched_ns[64], touched_name[64];
};
#define PROXY_STUB_SECRET "s3cr3t-of-the-companion-0123456789"
void proxy_stub_init(struct proxy_stub *s, int upstream_port);
int proxy_stub_touched(struct proxy_stub *s);

/* An in-process gateway (the real hooks and routes) with the stub, auth a (NULL: none), body limit
 * 1 MiB, and cors (NULL: none). Returns 0, its URL in gw->url. */
int proxy_gateway_start(struct gateway *gw, struct proxy_stub *s, struct auth *a, const struct cors_origins *cors);

#endif
