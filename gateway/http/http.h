/* The gateway's HTTP layer on libmicrohttpd: a request as handlers see it (method, path
 * parameters, query, body), the ways to answer it, and the server's start and stop. */
#ifndef CALDERA_HTTP_H
#define CALDERA_HTTP_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/api_status.h"
#include "common/sbuf.h"

struct MHD_Connection;
struct http_req;
struct MHD_Daemon;
struct core;
struct store;
struct hub;
struct watch_demand;
struct auth;
struct principal;
struct route;
struct sockaddr;
struct http_conns;
struct http_conn;
struct http_listener;
struct MHD_Response;
struct cors_origins;
struct rate_limiter;
struct proxy_resolver;

#define HTTP_MAX_PARAMS 6
#define HTTP_MAX_PATH 2048 /* longer paths get 414 */
#define HTTP_DEFAULT_HEADER_TIMEOUT_MS 10000
/* Each connection's thread: handlers' parsing is iterative or depth-bounded, so a small stack serves,
 * and thousands of connections reserve little address space. */
#define HTTP_THREAD_STACK (1u << 20)

/* What the layers above HTTP do with a request at its turning points; this layer knows nothing of
 * limits, authentication or routes. A NULL hook is skipped. */
struct http_hooks {
    /* Once the headers are in, before the URI is judged: answers a request refused at once (a CORS
     * preflight, a client over its rate) and returns true; else false. */
    bool (*screen)(struct http_req *req);
    /* Then, for a URI that passes: answers a request that may not go on (401, 403) and returns
     * true; else false (it may set req->who). The body is read only after this. */
    bool (*admit)(struct http_req *req);
    /* Answers a complete request. */
    void (*dispatch)(struct http_req *req);
    /* Adds the headers every answer with this code carries (Retry-After, CORS). */
    void (*decorate)(const struct http_req *req, struct MHD_Response *resp, int code);
    /* Forgets what admit set, when the request completes. */
    void (*release)(struct http_req *req);
};

/* What every handler can reach: the core, the store and the server's settings. */
struct route;

struct gateway {
    struct MHD_Daemon *daemon;
    struct http_listener *listener; /* its accept loop (listen.h) */
    const struct http_hooks *hooks; /* what the layers above do with each request (gateway/hooks.h) */
    const struct route *routes;     /* the route table, NULL-pattern terminated (gateway/routes.h) */
    struct core *core;
    struct store *store;
    struct notifier *notifier;         /* the WatchDog's sender, for /metrics; NULL: none */
    struct hub *hub;                   /* committed changes, for watch streams */
    struct watch_demand *watch_demand; /* object watches count themselves here (the core renders for them) */
    int64_t watch_window_ms;           /* how far back (by the first missed change's time) a watch may resume */
    int64_t watch_bookmark_ms;         /* how often a watch that allows them gets a BOOKMARK */
    const char *ws_url;                /* the WebSocket stream's URL, NULL when it does not listen */
    struct auth *auth;                 /* who asks and what they may do (gateway/auth/auth.h); NULL: nobody is asked */
    const char *db_path;               /* for history readers */
    const char *data_dir;  /* where stored log paths are relative to; named in Status messages about its disk */
    const char *web_dir;   /* the browser UI's files, or NULL */
    size_t body_limit;     /* bytes; larger bodies get 413 */
    int client_timeout_s;  /* idle connections, and bodies slower than this in all, are dropped */
    int header_timeout_ms; /* a request's headers slower than this (from the accept or the previous
                                 request's end) are dropped; 0: HTTP_DEFAULT_HEADER_TIMEOUT_MS */
    int max_connections_per_client;     /* connections from one address at once; 0: no limit */
    struct http_conns *conns;           /* the connections' deadlines (conns.h), while listening */
    struct rate_limiter *rate_limiter;  /* NULL: no rate limit */
    const struct cors_origins *cors;    /* origins browsers may call from; NULL or none: no CORS headers */
    int durable_timeout_ms;             /* how long a request waits for the store before 503 */
    int32_t list_page_max;              /* items in a page of the Job, PodGroup and Pod lists, and their default */
    const char *runtime_warning;        /* NULL, or why tasks run without cgroup limits (shown by /healthz) */
    const struct proxy_resolver *proxy; /* companions' proxy (gateway/proxy/proxy.h); NULL: /proxy/ answers 404 */
    char url[64];                       /* http://127.0.0.1:8080 once listening */
    atomic_bool stopping;               /* http_stop has begun: upgraded connections and long answers end */
    atomic_int upgraded;                /* upgraded connections whose handler runs (http_respond_upgrade) */
    const char *host_path_namespaces;   /* "a,b" or "*": users there may mount hostPath volumes; NULL: none */
};

struct http_req {
    struct gateway *gw;
    struct MHD_Connection *conn;
    const char *method;
    const char *path;
    int nparams;
    const char *params[HTTP_MAX_PARAMS]; /* the {placeholders} of the matched route, in order */
    /* The route, matched once when the headers are in (router.c: route_match), for authorization
     * and then dispatch. match is an enum route_match; params point into scratch. */
    bool matched;
    int match;
    const struct route *route;
    char scratch[HTTP_MAX_PATH];
    struct principal *who; /* who asks: set before dispatch (NULL on public paths without a token,
                                 or without authentication); released when the request completes */
    struct sbuf body;
    size_t body_bytes; /* of the body so far, collected or not */
    /* Set by admit to take the body as it arrives (on the connection's thread; it may block, which
     * slows the client down) instead of collecting it in body; the limit still applies. */
    void (*body_sink)(struct http_req *req, const char *data, size_t len);
    bool body_too_large;
    bool answered;
    const char *cors_origin;   /* the request's Origin when configured, else NULL */
    bool cors_preflight;       /* answered as a CORS preflight */
    int retry_after_s;         /* 0: Retry-After is 1 on a 429 or 503; else this */
    char warning[512];         /* "": none; else each line sent as `Warning: 299 - "<line>"` */
    int64_t started_ns;        /* monotonic, when its request line was in: for the latency histogram */
    bool headers_in;           /* the access handler has seen the request's headers */
    int uri_refusal;           /* 0, or the code its raw URI is refused with (uri.h) */
    char uri_problem[200];     /* why, when uri_refusal */
    struct http_conn *tracked; /* its connection's deadlines, or NULL */
    char *raw_uri;             /* the request line's URI as sent (path and query, not decoded), or NULL */
    void *ext;                 /* what the layers above keep from admit to dispatch; their release hook frees it */
};

typedef void (*http_handler)(struct http_req *req);

/* A query parameter, or NULL. */
const char *http_query(const struct http_req *req, const char *key);
/* A request header, or NULL. */
const char *http_header(const struct http_req *req, const char *name);
/* The token of `Authorization: Bearer <token>` (its length in *len), or NULL. */
const char *http_bearer_token(const struct http_req *req, size_t *len);
/* Calls each(ctx, name, value) for every request header, in order; stops when it returns false. */
void http_each_header(const struct http_req *req, bool (*each)(void *ctx, const char *name, const char *value),
                      void *ctx);
/* The connection's socket, for a handler that waits on something else to notice the client left
 * (poll it for POLLRDHUP; never read, write or close it), or -1. */
int http_client_socket(const struct http_req *req);
/* The client's address, or NULL. */
const struct sockaddr *http_client_address(const struct http_req *req);

/* Adds a Kubernetes-style warning (`Warning: 299 - "text"`) to the answer still to come. */
void http_set_warning(struct http_req *req, const char *text);
/* Adds one more warning (its own Warning header) after those already set. */
void http_add_warning(struct http_req *req, const char *text);
/* Answers. Each queues exactly one response; the first answer wins. */
void http_respond_json(struct http_req *req, int code, json_t *body); /* steals body */
void http_respond_status(struct http_req *req, const struct api_status *st);
void http_respond_text(struct http_req *req, int code, const char *content_type, const char *text);
/* Answers with a file's bytes (200); 404 Status when it cannot be opened. */
void http_respond_file(struct http_req *req, const char *path, const char *content_type);
void http_respond_redirect(struct http_req *req, const char *location);
/* The same with one more header (a Set-Cookie). */
void http_respond_redirect_with(struct http_req *req, const char *location, const char *name, const char *value);
/* Answers with no body (204 for a CORS preflight). */
void http_respond_empty(struct http_req *req, int code);
/* Answers 200 with a body of unknown length (chunked), made by read(ctx, buf, max) on the
 * connection's own thread: it returns the bytes it put in buf (it may block until it has some),
 * or -1 at the end of the stream. free_ctx(ctx) runs once the connection is done with it. */
typedef long (*http_stream_read)(void *ctx, char *buf, size_t max);
void http_respond_stream(struct http_req *req, const char *content_type, http_stream_read read, void *ctx,
                         void (*free_ctx)(void *ctx));

/* Answers 101 Switching Protocols with headers (names[i]: values[i]; "Upgrade" among them), then
 * runs upgraded(ctx, fd, extra, extra_len, gw) on the connection's own thread with the connection's
 * socket (non-blocking; extra: bytes the client sent after its request, already read). The handler
 * owns the socket's traffic until it returns (it must not close it), and returns soon once
 * http_stopping(gw). ctx is not freed here: it belongs to the request (req->ext), which outlives the
 * handler. */
typedef void (*http_upgraded)(void *ctx, int fd, const char *extra, size_t extra_len, struct gateway *gw);
void http_respond_upgrade(struct http_req *req, const char *const *names, const char *const *values, int n,
                          http_upgraded upgraded, void *ctx);
/* Whether the server is stopping: long answers and upgraded connections end. */
bool http_stopping(const struct gateway *gw);

/* Answers code with headers (names[i]: values[i], repeats allowed) and a body of size bytes
 * (HTTP_SIZE_UNKNOWN: chunked) made by read as http_respond_stream's, which may also return -2: the
 * stream broke, and the connection is closed without ending the body, so the client sees it cut. */
#define HTTP_SIZE_UNKNOWN UINT64_MAX
void http_respond_relay(struct http_req *req, int code, uint64_t size, const char *const *names,
                        const char *const *values, int n, http_stream_read read, void *ctx,
                        void (*free_ctx)(void *ctx));

/* Starts listening on addr ("127.0.0.1:8080"; port 0 picks a free one) with a thread per
 * connection, at most max_connections at once (and gw->max_connections_per_client from one address:
 * more are closed at once), each with gw->header_timeout_ms to send a request's headers and
 * gw->client_timeout_s for its body; gw->url says where. Returns 0 or -1 with a sentence in err. */
int http_start(struct gateway *gw, const char *addr, int max_connections, char *err, size_t errlen);
void http_stop(struct gateway *gw);

#endif
