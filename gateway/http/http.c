/* The gateway's HTTP layer on libmicrohttpd: one thread per connection (handlers may block on the
 * core and the store), bodies collected up to the limit, the hooks of the layers above (struct
 * http_hooks) run before a body is read, every error answered as a Status. */
#include "gateway/http/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/metrics.h"
#include "gateway/http/conns.h"
#include "gateway/http/listen.h"
#include "gateway/http/metrics.h"
#include "gateway/http/query_params.h"
#include "gateway/http/status.h"
#include "gateway/http/uri.h"

const char *http_query(const struct http_req *req, const char *key)
{
    return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, key);
}

const char *http_header(const struct http_req *req, const char *name)
{
    return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

struct each_header {
    bool (*each)(void *ctx, const char *name, const char *value);
    void *ctx;
};

static enum MHD_Result each_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    struct each_header *e = cls;
    return e->each(e->ctx, key, value ? value : "") ? MHD_YES : MHD_NO;
}

void http_each_header(const struct http_req *req, bool (*each)(void *ctx, const char *name, const char *value),
                      void *ctx)
{
    struct each_header e = {each, ctx};
    MHD_get_connection_values(req->conn, MHD_HEADER_KIND, each_header, &e);
}

const char *http_bearer_token(const struct http_req *req, size_t *len)
{
    const char *auth = http_header(req, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!auth || strncasecmp(auth, "Bearer ", 7) != 0)
        return NULL;
    const char *token = auth + 7;
    while (*token == ' ')
        token++;
    size_t n = strlen(token);
    while (n > 0 && token[n - 1] == ' ')
        n--;
    *len = n;
    return n > 0 ? token : NULL;
}

int http_client_socket(const struct http_req *req)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

const struct sockaddr *http_client_address(const struct http_req *req)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

void http_set_warning(struct http_req *req, const char *text)
{
    /* A header value is one line; its quotes are escaped when it is sent. */
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < sizeof req->warning; p++)
        req->warning[n++] = *p == '\r' || *p == '\n' ? ' ' : *p; /* quotes are escaped when sent */
    req->warning[n] = '\0';
}

void http_add_warning(struct http_req *req, const char *text)
{
    size_t n = strlen(req->warning);
    if (n > 0 && n + 2 < sizeof req->warning)
        req->warning[n++] = '\n'; /* one Warning header per line */
    else if (n > 0)
        return; /* full: the first warnings are kept */
    for (const char *p = text; *p && n + 1 < sizeof req->warning; p++)
        req->warning[n++] = *p == '\r' || *p == '\n' ? ' ' : *p; /* quotes are escaped when sent */
    req->warning[n] = '\0';
}

/* A warning as the header's quoted text: '"' and '\\' escaped (RFC 7230), as kubectl reads it. */
static void quote_warning(char *out, size_t size, const char *w, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 2 < size; i++) {
        if (w[i] == '"' || w[i] == '\\')
            out[n++] = '\\';
        out[n++] = w[i];
    }
    out[n] = '\0';
}

static void queue(struct http_req *req, int code, struct MHD_Response *resp, const char *content_type)
{
    if (!resp) {
        log_error("cannot build a response for %s %s", req->method, req->path);
        return;
    }
    if (content_type)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    for (const char *w = req->warning; *w;) { /* one header per warning */
        size_t len = strcspn(w, "\n");
        char quoted[2 * sizeof req->warning], value[2 * sizeof req->warning + 16];
        quote_warning(quoted, sizeof quoted, w, len);
        snprintf(value, sizeof value, "299 - \"%s\"", quoted);
        MHD_add_response_header(resp, "Warning", value);
        w += len + (w[len] == '\n');
    }
    if (req->gw->hooks && req->gw->hooks->decorate)
        req->gw->hooks->decorate(req, resp, code);
    if (code == 401) /* RFC 6750: what the client should send */
        MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"caldera\"");
    if (!req->answered) {
        MHD_queue_response(req->conn, (unsigned)code, resp);
        metrics_http_observe(req->method, code, metrics_now_ns() - req->started_ns);
    }
    req->answered = true;
    MHD_destroy_response(resp);
}

static void respond_bytes(struct http_req *req, int code, const char *content_type, char *data, size_t len)
{
    queue(req, code, MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE), content_type);
}

void http_respond_json(struct http_req *req, int code, json_t *body)
{
    size_t flags = query_flag(req, "pretty") ? JSON_INDENT(2) : JSON_COMPACT;
    char *text = body ? json_dumps(body, flags | JSON_ENCODE_ANY) : NULL;
    json_decref(body);
    if (!text) {
        struct api_status st = {0};
        api_fail(&st, 500, "InternalError", "cannot encode the answer");
        http_respond_status(req, &st);
        return;
    }
    respond_bytes(req, code, "application/json", text, strlen(text));
}

void http_respond_status(struct http_req *req, const struct api_status *st)
{
    struct api_status said = *st; /* what the Retry-After header says, the Status says too */
    said.retry_after_s = retry_after_seconds(st->code, req->retry_after_s);
    char *text = json_dumps_status(&said);
    if (!text) {
        static const char failed[] =
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
            "\"Failure\",\"message\":\"the answer could not be encoded\",\"reason\":"
            "\"InternalError\",\"code\":500}";
        queue(req, 500, MHD_create_response_from_buffer(sizeof failed - 1, (void *)failed, MHD_RESPMEM_PERSISTENT),
              "application/json");
        return;
    }
    respond_bytes(req, st->code ? st->code : 500, "application/json", text, strlen(text));
}

void http_respond_text(struct http_req *req, int code, const char *content_type, const char *text)
{
    char *copy = strdup(text);
    if (copy)
        respond_bytes(req, code, content_type, copy, strlen(copy));
}

void http_respond_file(struct http_req *req, const char *path, const char *content_type)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        struct api_status s = {0};
        api_fail(&s, 404, "NotFound", "%s is not there", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
        http_respond_status(req, &s);
        return;
    }
    queue(req, 200, MHD_create_response_from_fd((uint64_t)st.st_size, fd), content_type); /* MHD closes fd */
}

void http_respond_redirect(struct http_req *req, const char *location)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (resp)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, location);
    queue(req, 302, resp, NULL);
}

void http_respond_redirect_with(struct http_req *req, const char *location, const char *name, const char *value)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (resp) {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, location);
        MHD_add_response_header(resp, name, value);
    }
    queue(req, 302, resp, NULL);
}

void http_respond_empty(struct http_req *req, int code)
{
    queue(req, code, MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT), NULL);
}

struct stream {
    http_stream_read read;
    void *ctx;
    void (*free_ctx)(void *ctx);
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct stream *s = cls;
    long n = s->read(s->ctx, buf, max);
    return n == -2 ? MHD_CONTENT_READER_END_WITH_ERROR : n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : (ssize_t)n;
}

static void stream_free(void *cls)
{
    struct stream *s = cls;
    if (s->free_ctx)
        s->free_ctx(s->ctx);
    free(s);
}

/* A response whose body read() writes as the client takes it (size may be MHD_SIZE_UNKNOWN), or NULL
 * after answering 500 (what: what could not start) and freeing ctx. */
static struct MHD_Response *stream_response(struct http_req *req, uint64_t size, size_t block, http_stream_read read,
                                            void *ctx, void (*free_ctx)(void *ctx), const char *what)
{
    struct stream *s = malloc(sizeof *s);
    struct MHD_Response *resp = s ? MHD_create_response_from_callback(size, block, stream_read, s, stream_free) : NULL;
    if (!resp) {
        free(s);
        if (free_ctx)
            free_ctx(ctx);
        struct api_status st = {0};
        api_fail(&st, 500, "InternalError", "out of memory starting the %s", what);
        http_respond_status(req, &st);
        return NULL;
    }
    *s = (struct stream){read, ctx, free_ctx};
    return resp;
}

void http_respond_stream(struct http_req *req, const char *content_type, http_stream_read read, void *ctx,
                         void (*free_ctx)(void *ctx))
{
    struct MHD_Response *resp = stream_response(req, MHD_SIZE_UNKNOWN, 16384, read, ctx, free_ctx, "stream");
    if (resp)
        queue(req, 200, resp, content_type);
}

struct upgrade {
    http_upgraded upgraded;
    void *ctx;
    struct gateway *gw;
};

bool http_stopping(const struct gateway *gw) { return atomic_load(&gw->stopping); }

/* libmicrohttpd's upgrade handler, on the connection's own thread (thread per connection): the
 * handler runs here, then the connection is closed. */
static void on_upgraded(void *cls, struct MHD_Connection *conn, void *con_cls, const char *extra_in,
                        size_t extra_in_size, MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
    (void)conn;
    (void)con_cls;
    struct upgrade *u = cls;
    atomic_fetch_add(&u->gw->upgraded, 1);
    if (!http_stopping(u->gw))
        u->upgraded(u->ctx, sock, extra_in, extra_in_size, u->gw);
    MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
    atomic_fetch_sub(&u->gw->upgraded, 1);
    free(u);
}

void http_respond_upgrade(struct http_req *req, const char *const *names, const char *const *values, int n,
                          http_upgraded upgraded, void *ctx)
{
    struct upgrade *u = malloc(sizeof *u);
    struct MHD_Response *resp = u ? MHD_create_response_for_upgrade(on_upgraded, u) : NULL;
    if (!resp) {
        free(u);
        struct api_status st = {0};
        api_fail(&st, 500, "InternalError", "cannot answer the upgrade");
        http_respond_status(req, &st);
        return;
    }
    *u = (struct upgrade){upgraded, ctx, req->gw};
    for (int i = 0; i < n; i++)
        MHD_add_response_header(resp, names[i], values[i]);
    queue(req, 101, resp, NULL);
}

void http_respond_relay(struct http_req *req, int code, uint64_t size, const char *const *names,
                        const char *const *values, int n, http_stream_read read, void *ctx, void (*free_ctx)(void *ctx))
{
    struct MHD_Response *resp = stream_response(req, size == HTTP_SIZE_UNKNOWN ? MHD_SIZE_UNKNOWN : size, 128 * 1024,
                                                read, ctx, free_ctx, "answer");
    if (!resp)
        return;
    for (int i = 0; i < n; i++)
        MHD_add_response_header(resp, names[i], values[i]);
    queue(req, code, resp, NULL);
}

/* --- the access handler ------------------------------------------------ */

static struct http_req *new_request(struct gateway *gw, struct MHD_Connection *conn)
{
    struct http_req *req = calloc(1, sizeof *req);
    if (!req)
        return NULL;
    req->gw = gw;
    req->conn = conn;
    req->started_ns = metrics_now_ns();
    return req;
}

/* MHD_OPTION_URI_LOG_CALLBACK: the request line is in, its URI not yet parsed nor decoded. The
 * request starts here, its raw URI checked; what this returns is the access handler's *con_cls. */
static void *on_request_line(void *cls, const char *uri, struct MHD_Connection *conn)
{
    struct http_req *req = new_request(cls, conn);
    if (!req)
        return NULL;
    size_t nparams;
    req->uri_refusal = http_uri_check(uri, &nparams, req->uri_problem, sizeof req->uri_problem);
    if (!req->uri_refusal)
        req->raw_uri = strdup(uri); /* before libmicrohttpd decodes it in place */
    if (req->uri_refusal == 414) {
        /* libmicrohttpd parses the query after this returns, into the connection's fixed memory, and
         * closes without an answer when that runs out; the query is refused, so none of it is parsed:
         * the line is libmicrohttpd's writable read buffer, its arguments found before this call. */
        char *query = strchr((char *)uri, '?');
        if (query)
            query[1] = '\0';
    }
    return req;
}

/* A declared body over the limit up to this size is read and dropped before the 413 goes out: a
 * client that sends its body without waiting (no Expect: 100-continue) then reads the answer, where
 * an answer sent at once and a close would meet its body in flight and reset the connection before
 * it read a word. A larger one is answered at once. The body deadline bounds the reading. */
#define DRAIN_BEFORE_413_MAX (64ull << 20)

/* The Content-Length declared, or 0 when none. */
static unsigned long long declared_length(struct http_req *req)
{
    const char *cl = http_header(req, MHD_HTTP_HEADER_CONTENT_LENGTH);
    return cl ? strtoull(cl, NULL, 10) : 0;
}

/* The 413 a body over --max-body-bytes gets, however it is sent. */
static void fail_too_large(const struct http_req *req, struct api_status *st)
{
    api_fail(st, 413, "RequestEntityTooLarge", "the request body is larger than the limit of %zu bytes",
             req->gw->body_limit);
}

static void respond_too_large(struct http_req *req)
{
    struct api_status st = {0};
    fail_too_large(req, &st);
    http_respond_status(req, &st);
}

/* Writes the whole of s to fd, waiting at most a second for room. */
static void send_all_briefly(int fd, const char *s, size_t len)
{
    for (int waits = 0; len > 0 && waits < 10;) {
        ssize_t n = send(fd, s, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            s += n;
            len -= (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            poll(&p, 1, 100);
            waits++;
        } else {
            return;
        }
    }
}

/* Answers with a Status and closes the connection, for a request whose body libmicrohttpd would go on
 * reading (a body without an end it understands, one past the limit): the answer is written on the
 * connection's own thread, which libmicrohttpd is not writing from, then the handler returns MHD_NO.
 * Returns MHD_NO. */
static enum MHD_Result answer_and_close(struct http_req *req, const struct api_status *st)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    char *body = json_dumps_status(st);
    char *head = NULL;
    const char *phrase = MHD_get_reason_phrase_for((unsigned)st->code);
    int n = body && info ? asprintf(&head,
                                    "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: "
                                    "%zu\r\nConnection: close\r\n\r\n%s",
                                    st->code, phrase ? phrase : "", strlen(body), body)
                         : -1;
    if (n > 0) {
        send_all_briefly(info->connect_fd, head, (size_t)n);
        shutdown(info->connect_fd, SHUT_WR);
        metrics_http_observe(req->method, st->code, metrics_now_ns() - req->started_ns);
    }
    req->answered = true;
    free(head);
    free(body);
    return MHD_NO;
}

/* What libmicrohttpd understands of a body is a Content-Length or `Transfer-Encoding: chunked`; with
 * another coding it would read until the client closes. The issue asks for 400 (RFC 9112 would allow
 * 501 Not Implemented): the client sent what this server cannot read. */
static bool transfer_coding_refused(struct http_req *req, struct api_status *st)
{
    const char *te = http_header(req, MHD_HTTP_HEADER_TRANSFER_ENCODING);
    if (!te || strcasecmp(te, "chunked") == 0)
        return false;
    char said[65]; /* as sent, printable ASCII only: the Status must encode whatever came */
    size_t n = 0;
    for (; te[n] && n + 1 < sizeof said; n++)
        said[n] = te[n] >= 0x20 && te[n] < 0x7f ? te[n] : '?';
    said[n] = '\0';
    api_fail(st, 400, "BadRequest",
             "Transfer-Encoding \"%s\" is not supported: send the body with a "
             "Content-Length or as Transfer-Encoding: chunked alone",
             said);
    return true;
}

/* Whether the request's body has been arriving for longer than the client timeout. */
static bool body_overdue(const struct http_req *req, int64_t now_ns)
{
    int64_t timeout_s = req->gw->client_timeout_s;
    return timeout_s > 0 && now_ns - req->started_ns > timeout_s * 1000000000LL;
}

/* The first call, once the headers are in. Refusals come at once, before the body: no need to read
 * what will be refused. Returns what the access handler returns. */
static enum MHD_Result on_headers(struct http_req *req, const char *url, const char *method)
{
    struct gateway *gw = req->gw;
    const struct http_hooks *hooks = gw->hooks;
    req->headers_in = true;
    req->method = method;
    req->path = url;
    req->tracked = http_conn_of(req->conn);
    http_conn_headers_in(gw->conns, req->tracked);
    struct api_status st = {0};
    if (transfer_coding_refused(req, &st)) /* first: any answer queued would wait for a body without end */
        return answer_and_close(req, &st);
    if (hooks && hooks->screen && hooks->screen(req)) /* a preflight, a client over its rate */
        return MHD_YES;
    if (req->uri_refusal) {
        api_fail(&st, req->uri_refusal, req->uri_refusal == 414 ? "RequestURITooLong" : "BadRequest", "%s",
                 req->uri_problem);
        http_respond_status(req, &st);
        return MHD_YES;
    }
    if (hooks && hooks->admit && hooks->admit(req)) /* 401 or 403 */
        return MHD_YES;
    unsigned long long declared = declared_length(req);
    if (declared > req->gw->body_limit) {
        req->body_too_large = true; /* its body is dropped as it comes, then answered below */
        if (declared > DRAIN_BEFORE_413_MAX)
            respond_too_large(req);
    }
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
    (void)version;
    struct gateway *gw = cls;
    struct http_req *req = *con_cls;
    if (!req) { /* on_request_line ran out of memory */
        req = new_request(gw, conn);
        if (!req)
            return MHD_NO;
        *con_cls = req;
    }
    if (!req->headers_in)
        return on_headers(req, url, method);
    if (*upload_size > 0) {
        if (body_overdue(req, metrics_now_ns())) {
            log_limited(LOG_WARN, "http: dropping a slow body",
                        "http: dropping a client whose %s %s body took longer than %d s", method, url,
                        gw->client_timeout_s);
            return MHD_NO; /* closes the connection: a trickling client cannot hold a thread */
        }
        req->body_bytes += *upload_size;
        if (!req->body_too_large && req->body_bytes > gw->body_limit) {
            req->body_too_large = true;
            sbuf_free(&req->body);
            if (!req->answered) { /* a chunked body: past the limit, it is refused now, not read on */
                struct api_status st = {0};
                fail_too_large(req, &st);
                return answer_and_close(req, &st);
            }
        }
        if (!req->body_too_large && !req->answered) { /* a refused request's body is read and dropped */
            if (req->body_sink)
                req->body_sink(req, upload_data, *upload_size);
            else
                sbuf_append(&req->body, upload_data, *upload_size);
        }
        *upload_size = 0;
        return MHD_YES;
    }
    http_conn_request_in(req->tracked);
    if (req->answered)
        return MHD_YES;
    if (req->body_too_large) {
        respond_too_large(req);
        return MHD_YES;
    }
    if (gw->hooks && gw->hooks->dispatch)
        gw->hooks->dispatch(req);
    return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    struct gateway *gw = cls;
    struct http_req *req = *con_cls;
    if (req) {
        sbuf_free(&req->body);
        if (gw->hooks && gw->hooks->release)
            gw->hooks->release(req);
        free(req->raw_uri);
        free(req);
        *con_cls = NULL;
    }
    http_conn_request_done(gw->conns, http_conn_of(conn));
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n > 0 && line[n - 1] == '\n')
        line[--n] = '\0';
    log_limited(LOG_WARN, fmt, "http: %s", line); /* one kind per message: a flood says itself once */
}

static int parse_addr(const char *addr, struct sockaddr_in *sa, char *err, size_t errlen)
{
    char host[64];
    const char *colon = strrchr(addr, ':');
    if (!colon || (size_t)(colon - addr) >= sizeof host) {
        snprintf(err, errlen, "--listen wants HOST:PORT, got \"%s\"", addr);
        return -1;
    }
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = '\0';
    char *end;
    long port = strtol(colon + 1, &end, 10);
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    if (*end || port < 0 || port > 65535 || inet_pton(AF_INET, host[0] ? host : "0.0.0.0", &sa->sin_addr) != 1) {
        snprintf(err, errlen, "--listen wants an IPv4 HOST:PORT, got \"%s\"", addr);
        return -1;
    }
    return 0;
}

/* Stops what http_start started, in order: no new connection, then the daemon (which closes every
 * connection), then the reaper. */
static void stop_all(struct gateway *gw)
{
    atomic_store(&gw->stopping, true);
    unsigned long handed = http_listener_close(gw->listener);
    gw->listener = NULL;
    /* Sockets handed over just before the listener stopped wait in libmicrohttpd's queue for its own
     * thread, which takes them under its lock. Once it has, stopping serves them too; if it stopped
     * first, 0.9.75 frees what is still queued without that lock, an order ThreadSanitizer cannot see.
     * Bounded (1 s): one refused past its connection limit is never taken in. */
    for (int waited = 0; gw->conns && http_conns_started(gw->conns) < handed && waited < 100; waited++)
        poll(NULL, 0, 10);
    /* Upgraded connections' handlers see the flag within their poll period (bounded: 3 s). */
    for (int waited = 0; atomic_load(&gw->upgraded) > 0 && waited < 300; waited++)
        poll(NULL, 0, 10);
    if (gw->daemon)
        MHD_stop_daemon(gw->daemon);
    gw->daemon = NULL;
    http_conns_stop(gw->conns);
    gw->conns = NULL;
}

int http_start(struct gateway *gw, const char *addr, int max_connections, char *err, size_t errlen)
{
    atomic_store(&gw->stopping, false);
    atomic_store(&gw->upgraded, 0);
    struct sockaddr_in sa;
    char why[256];
    if (parse_addr(addr, &sa, err, errlen) != 0)
        return -1;
    if (http_listener_open(&sa, &gw->listener, why, sizeof why) != 0) {
        snprintf(err, errlen, "cannot listen on %s: %s", addr, why);
        return -1;
    }
    /* The URL before any thread that may answer a request reads it (discovery's serverAddress). */
    char host[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &sa.sin_addr, host, sizeof host);
    snprintf(gw->url, sizeof gw->url, "http://%s:%u", strcmp(host, "0.0.0.0") == 0 ? "127.0.0.1" : host,
             http_listener_port(gw->listener));
    int header_timeout_ms = gw->header_timeout_ms > 0 ? gw->header_timeout_ms : HTTP_DEFAULT_HEADER_TIMEOUT_MS;
    if (http_conns_start(header_timeout_ms, gw->client_timeout_s * 1000, &gw->conns) != 0) {
        snprintf(err, errlen, "cannot start the HTTP connections' reaper thread");
        stop_all(gw);
        return -1;
    }
    /* The listener is ours (listen.c): libmicrohttpd gets each accepted socket. */
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
                     MHD_USE_ERROR_LOG | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC | MHD_ALLOW_UPGRADE;
    gw->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, gw, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, gw, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, gw, MHD_OPTION_URI_LOG_CALLBACK, on_request_line, gw, MHD_OPTION_NOTIFY_CONNECTION,
        http_conns_notify, gw->conns, MHD_OPTION_CONNECTION_LIMIT, (unsigned)max_connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)gw->max_connections_per_client, MHD_OPTION_THREAD_STACK_SIZE,
        (size_t)HTTP_THREAD_STACK, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)gw->client_timeout_s, MHD_OPTION_END);
    if (!gw->daemon || http_listener_start(gw->listener, gw->daemon) != 0) {
        snprintf(err, errlen, "cannot serve on %s: %s", addr, errno ? strerror(errno) : "libmicrohttpd refused");
        stop_all(gw);
        return -1;
    }
    return 0;
}

void http_stop(struct gateway *gw) { stop_all(gw); }
