/* The WebSocket gateway for browsers: a libwebsockets listener of its own, served by one thread, that
 * streams committed events (the hub's, and the database's for a resume from before the hub) to
 * subscribers of a namespace, a job or a pod, each message one event with its sequence number. */
#ifndef CALDERA_WS_H
#define CALDERA_WS_H

#include <stdbool.h>
#include <stddef.h>

struct hub;
struct ws_server;

/* The path subscribers connect to, on the WebSocket listener. */
#define WS_STREAM_PATH "/apis/caldera.io/v1/stream"
/* The subprotocol the server selects; a browser sends it next to its token's (token.h). */
#define WS_PROTOCOL "caldera.events.v1"

/* Who may subscribe to what. Every callback runs on the WebSocket thread, once per handshake: it must
 * be fast and thread-safe. */
struct ws_auth {
    /* token: the bearer token of the request (Authorization: Bearer, or the subprotocol
     * base64url.bearer.authorization.k8s.io.<token>), NULL when it came with none. Returns 0 with
     * *principal set (NULL is a valid principal), or -1 with a sentence in why (401). */
    int (*authenticate)(void *ctx, const char *token, size_t len, bool peer_is_loopback, void **principal, char *why,
                        size_t whylen);
    /* Whether the principal may read the events of namespace ns (NULL: of every namespace and the
     * cluster-scoped objects). false is a 403. */
    bool (*may_read)(void *ctx, void *principal, const char *ns);
    /* Releases what authenticate made (may be NULL). */
    void (*release)(void *ctx, void *principal);
    void *ctx;
};

struct ws_config {
    const char *listen;  /* "HOST:PORT"; port 0 picks a free one */
    struct hub *hub;     /* committed changes; its notify is taken over until ws_stop() */
    const char *db_path; /* the database, read for resumes from before the hub's floor */
    struct ws_auth auth;
    size_t send_buffer;       /* the socket send buffer of each subscriber (SO_SNDBUF); 0: WS_SEND_BUFFER */
    int max_subscribers;      /* at once; more get 503 before the upgrade; 0: WS_DEFAULT_MAX_SUBSCRIBERS */
    int max_per_client;       /* from one address; more get 429 before the upgrade; 0: WS_DEFAULT_MAX_PER_CLIENT */
    int handshake_timeout_ms; /* from the accept to the upgrade; 0: WS_DEFAULT_HANDSHAKE_TIMEOUT_MS */
};

#define WS_DEFAULT_MAX_SUBSCRIBERS 4096
#define WS_DEFAULT_MAX_PER_CLIENT 256
#define WS_DEFAULT_HANDSHAKE_TIMEOUT_MS 10000
/* Connections still in their handshake may hold this many descriptors beyond the subscribers' caps, in
 * all and from one address; connections past that are closed as they are accepted. */
#define WS_HANDSHAKES_EXTRA 64
#define WS_HANDSHAKES_EXTRA_PER_CLIENT 8

/* The descriptors the listener may hold with max_subscribers: subscribers and handshakes. */
static inline long ws_descriptors(int max_subscribers) { return (long)max_subscribers + WS_HANDSHAKES_EXTRA; }

#define WS_SEND_BUFFER (64u << 10)

/* Listens and starts the WebSocket thread. Returns 0 with *out, or -1 with a sentence in err. */
int ws_start(const struct ws_config *cfg, struct ws_server **out, char *err, size_t errlen);
/* "ws://127.0.0.1:8081/apis/caldera.io/v1/stream" once listening. */
const char *ws_url(const struct ws_server *ws);
/* Closes every subscriber (1001, going away), stops the thread and frees everything; the hub must
 * still exist. NULL does nothing. */
void ws_stop(struct ws_server *ws);

/* The HTTP API's tokens and namespaces (auth.c). */
struct auth;
struct ws_auth ws_auth_tokens(struct auth *a);

#endif
