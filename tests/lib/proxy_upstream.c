/* The proxy's test companion and an in-process gateway (proxy_upstream.h): an upstream that echoes,
 * streams 100 MiB and answers WebSocket upgrades, behind a gateway with a stub resolver. */
#include "tests/lib/proxy_upstream.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/api_status.h"
#include "common/sbuf.h"
#include "gateway/hooks.h"
#include "gateway/routes.h"

unsigned char proxy_upstream_byte(uint64_t i) { return (unsigned char)((i * 2654435761u) >> 13); }

void proxy_ws_accept(const char *key, char out[64])
{
    char text[256];
    snprintf(text, sizeof text, "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", key);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(text, strlen(text), digest, &n, EVP_sha1(), NULL);
    EVP_EncodeBlock((unsigned char *)out, digest, (int)n);
}

struct up_req {
    char *raw_uri;
    struct sbuf body;
    uint64_t counted; /* /count: the body's bytes, not kept */
    bool headers_in;
};

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    (void)conn;
    struct up_req *r = calloc(1, sizeof *r);
    if (r)
        r->raw_uri = strdup(uri);
    return r;
}

static void on_done(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)conn;
    (void)toe;
    struct up_req *r = *con_cls;
    if (r) {
        free(r->raw_uri);
        sbuf_free(&r->body);
        free(r);
    }
    *con_cls = NULL;
}

static enum MHD_Result add_header_line(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    sbuf_printf(cls, "H:%s: %s\n", key, value ? value : "");
    return MHD_YES;
}

static ssize_t big_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct proxy_upstream *u = cls;
    if (pos >= u->big_size)
        return MHD_CONTENT_READER_END_OF_STREAM;
    size_t n = u->big_size - pos < max ? (size_t)(u->big_size - pos) : max;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)proxy_upstream_byte(pos + i);
    return (ssize_t)n;
}

/* The WebSocket: raw bytes echoed until the client closes. */
static void ws_echo(void *cls, struct MHD_Connection *conn, void *con_cls, const char *extra_in, size_t extra_in_size,
                    MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
    (void)cls;
    (void)conn;
    (void)con_cls;
    char buf[4096];
    if (extra_in_size > 0)
        send(sock, extra_in, extra_in_size, MSG_NOSIGNAL);
    for (int idle = 0; idle < 100;) { /* 10 s without traffic ends it */
        struct pollfd p = {.fd = sock, .events = POLLIN};
        if (poll(&p, 1, 100) <= 0) {
            idle++;
            continue;
        }
        ssize_t n = recv(sock, buf, sizeof buf, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            break;
        if (n > 0) {
            idle = 0;
            for (ssize_t off = 0; off < n;) {
                ssize_t w = send(sock, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
                if (w > 0)
                    off += w;
                else if (w < 0 && errno != EAGAIN && errno != EINTR)
                    break;
                else
                    poll(&(struct pollfd){.fd = sock, .events = POLLOUT}, 1, 100);
            }
        }
    }
    MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
    (void)version;
    struct proxy_upstream *u = cls;
    struct up_req *r = *con_cls;
    if (!r)
        return MHD_NO;
    if (!r->headers_in) {
        r->headers_in = true;
        return MHD_YES;
    }
    if (*upload_size) {
        if (strstr(url, "/count"))
            r->counted += *upload_size;
        else
            sbuf_append(&r->body, upload_data, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    struct MHD_Response *resp;
    int code = 200;
    if (strstr(url, "/ws")) {
        const char *key = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-WebSocket-Key");
        char accept[64] = "";
        if (key)
            proxy_ws_accept(key, accept);
        resp = MHD_create_response_for_upgrade(ws_echo, u);
        MHD_add_response_header(resp, "Upgrade", "websocket");
        MHD_add_response_header(resp, "Sec-WebSocket-Accept", accept);
        const char *proto = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-WebSocket-Protocol");
        if (proto)
            MHD_add_response_header(resp, "Sec-WebSocket-Protocol", proto);
        code = MHD_HTTP_SWITCHING_PROTOCOLS;
    } else if (strstr(url, "/big")) {
        resp = MHD_create_response_from_callback(u->big_size, 64 * 1024, big_read, u, NULL);
        MHD_add_response_header(resp, "Content-Type", "application/octet-stream");
    } else if (strstr(url, "/count")) {
        char text[64];
        snprintf(text, sizeof text, "counted=%llu\n", (unsigned long long)r->counted);
        resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_COPY);
    } else if (strstr(url, "/goto")) {
        resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        MHD_add_response_header(resp, "Location", "/elsewhere");
        code = 302;
    } else {
        struct sbuf b = {0};
        const char *q = strchr(r->raw_uri, '?');
        sbuf_printf(&b, "method=%s\npath=%.*s\nquery=%s\n", method,
                    (int)(q ? q - r->raw_uri : (long)strlen(r->raw_uri)), r->raw_uri, q ? q + 1 : "");
        MHD_get_connection_values(conn, MHD_HEADER_KIND, add_header_line, &b);
        sbuf_printf(&b, "bodylen=%zu\nbody=", r->body.len);
        sbuf_append(&b, r->body.data ? r->body.data : "", r->body.len);
        size_t len = b.len;
        resp = MHD_create_response_from_buffer(len, sbuf_take(&b), MHD_RESPMEM_MUST_FREE);
        MHD_add_response_header(resp, "Content-Type", "text/plain");
        MHD_add_response_header(resp, "X-Upstream", "yes");
        MHD_add_response_header(resp, "Set-Cookie", "upstream=1; Path=/");
    }
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned)code, resp);
    MHD_destroy_response(resp);
    return ret;
}

int proxy_upstream_start(struct proxy_upstream *u)
{
    if (!u->big_size)
        u->big_size = 100ull << 20;
    u->daemon = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_ALLOW_UPGRADE, 0, NULL,
        NULL, on_request, u, MHD_OPTION_URI_LOG_CALLBACK, on_uri, u, MHD_OPTION_NOTIFY_COMPLETED, on_done, u,
        MHD_OPTION_SOCK_ADDR, &(struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)},
        MHD_OPTION_END);
    if (!u->daemon)
        return -1;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(u->daemon, MHD_DAEMON_INFO_BIND_PORT);
    u->port = info ? info->port : 0;
    return u->port ? 0 : -1;
}

void proxy_upstream_stop(struct proxy_upstream *u)
{
    if (u->daemon)
        MHD_stop_daemon(u->daemon);
    u->daemon = NULL;
}

static int stub_resolve(void *ctx, const char *ns, const char *name, struct proxy_target *t, struct api_status *st)
{
    struct proxy_stub *s = ctx;
    memset(t, 0, sizeof *t);
    snprintf(t->phase, sizeof t->phase, "Ready");
    t->port = s->port;
    if (strcmp(name, "nb") == 0 || strcmp(name, "strip") == 0) {
        t->strip_prefix = strcmp(name, "strip") == 0;
        t->nheaders = 2;
        snprintf(t->headers[0], sizeof t->headers[0], "Authorization: token %s", PROXY_STUB_SECRET);
        snprintf(t->headers[1], sizeof t->headers[1], "X-Companion: %s-ns", ns);
        return 0;
    }
    if (strcmp(name, "pending") == 0) {
        snprintf(t->phase, sizeof t->phase, "Pending");
        return 0;
    }
    if (strcmp(name, "dead") == 0) {
        t->port = s->dead_port;
        return 0;
    }
    return api_fail(st, 404, "NotFound", "companions.caldera.io \"%s\" not found", name);
}

static void stub_touched(void *ctx, const char *ns, const char *name, int64_t now_ms)
{
    (void)now_ms;
    struct proxy_stub *s = ctx;
    pthread_mutex_lock(&s->mu);
    s->touched++;
    snprintf(s->touched_ns, sizeof s->touched_ns, "%s", ns);
    snprintf(s->touched_name, sizeof s->touched_name, "%s", name);
    pthread_mutex_unlock(&s->mu);
}

void proxy_stub_init(struct proxy_stub *s, int upstream_port)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    s->port = upstream_port;
    s->resolver = (struct proxy_resolver){stub_resolve, stub_touched, s};
    /* A port nobody listens on: bound, then closed. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
        getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        s->dead_port = ntohs(sa.sin_port);
    if (fd >= 0)
        close(fd);
}

int proxy_stub_touched(struct proxy_stub *s)
{
    pthread_mutex_lock(&s->mu);
    int n = s->touched;
    pthread_mutex_unlock(&s->mu);
    return n;
}

int proxy_gateway_start(struct gateway *gw, struct proxy_stub *s, struct auth *a, const struct cors_origins *cors)
{
    memset(gw, 0, sizeof *gw);
    gw->hooks = &gateway_http_hooks;
    gw->routes = gateway_routes;
    gw->auth = a;
    gw->proxy = &s->resolver;
    gw->cors = cors;
    gw->body_limit = 1u << 20;
    gw->client_timeout_s = 30;
    gw->header_timeout_ms = 10000;
    gw->durable_timeout_ms = 1000;
    char err[256];
    if (http_start(gw, "127.0.0.1:0", 64, err, sizeof err) != 0) {
        fprintf(stderr, "# %s\n", err);
        return -1;
    }
    return 0;
}
