/* WebSocket upgrades: the companion is asked first (its own socket, the client's upgrade request with
 * the proxy's headers), its 101 relayed to the client through libmicrohttpd's upgrade, then the bytes
 * copied both ways through two bounded buffers until either side closes or the server stops. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/sbuf.h"
#include "gateway/http/http.h"
#include "gateway/proxy/call.h"
#include "gateway/proxy/touch.h"

#define CONNECT_TIMEOUT_MS 5000
#define HEAD_TIMEOUT_MS 10000
#define HEAD_MAX (16 * 1024)
#define TUNNEL_BUF (64 * 1024)
#define POLL_MS 200

static void fail(struct http_req *req, int code, const char *reason, const char *what, const char *why)
{
    struct api_status st = {0};
    api_fail(&st, code, reason, "%s: %s", what, why);
    http_respond_status(req, &st);
}

/* A non-blocking socket connected to 127.0.0.1:port, or -1 with errno. */
static int connect_upstream(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS)
        goto failed;
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    if (poll(&p, 1, CONNECT_TIMEOUT_MS) != 1) {
        errno = ETIMEDOUT;
        goto failed;
    }
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
        errno = err ? err : errno;
        goto failed;
    }
    return fd;
failed:;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

/* Writes all of data to a non-blocking fd, waiting for room up to timeout_ms in all. */
static int send_all(int fd, const char *data, size_t len, int timeout_ms)
{
    int64_t deadline = clock_mono_ms() + timeout_ms;
    while (len > 0) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n > 0) {
            data += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        int64_t left = deadline - clock_mono_ms();
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        if (left <= 0 || poll(&p, 1, (int)left) < 0)
            return -1;
    }
    return 0;
}

static void add_line(void *ctx, const char *line) { sbuf_printf(ctx, "%s\r\n", line); }

static bool copy_client_header(void *ctx, const char *name, const char *value)
{
    struct proxy_call *call = ((void **)ctx)[1];
    struct sbuf *b = ((void **)ctx)[0];
    if (strcasecmp(name, "Cookie") == 0) {
        char rest[8192];
        if (proxy_cookie_without_ours(value, proxy_added_cookie(&call->target), rest, sizeof rest) > 0)
            sbuf_printf(b, "Cookie: %s\r\n", rest);
        return true;
    }
    if (!proxy_request_header_dropped(name, &call->target))
        sbuf_printf(b, "%s: %s\r\n", name, value);
    return true;
}

/* Reads the companion's answer head (up to CRLFCRLF, bounded in size and time) into head; what came
 * after it stays in call->leftover. Returns the head's length, or -1. */
static int read_head(struct proxy_call *call, char *head, size_t cap)
{
    size_t len = 0;
    int64_t deadline = clock_mono_ms() + HEAD_TIMEOUT_MS;
    for (;;) {
        head[len] = '\0';
        char *end = strstr(head, "\r\n\r\n");
        if (end) {
            size_t hlen = (size_t)(end + 4 - head);
            call->leftover_len = len - hlen;
            call->leftover = call->leftover_len ? malloc(call->leftover_len) : NULL;
            if (call->leftover_len && !call->leftover)
                return -1;
            if (call->leftover_len)
                memcpy(call->leftover, head + hlen, call->leftover_len);
            head[hlen] = '\0';
            return (int)hlen;
        }
        if (len + 1 >= cap)
            return -1;
        ssize_t n = recv(call->upstream_fd, head + len, cap - 1 - len, 0);
        if (n > 0) {
            len += (size_t)n;
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            return -1;
        int64_t left = deadline - clock_mono_ms();
        struct pollfd p = {.fd = call->upstream_fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, (int)left) < 0)
            return -1;
    }
}

/* The value of header name in a head, copied into out; false when absent. */
static bool head_value(const char *head, const char *name, char *out, size_t outlen)
{
    size_t n = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line && line[2]; line = strstr(line + 2, "\r\n")) {
        const char *l = line + 2;
        if (strncasecmp(l, name, n) == 0 && l[n] == ':') {
            const char *v = l + n + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            size_t vlen = strcspn(v, "\r\n");
            snprintf(out, outlen, "%.*s", (int)vlen, v);
            return true;
        }
    }
    return false;
}

struct pipe_buf {
    char data[TUNNEL_BUF];
    size_t start, len;
};

/* Reads what fits from fd into b: 1 some or none, 0 the end, -1 an error. */
static int fill(int fd, struct pipe_buf *b)
{
    if (b->start > 0 && b->len == 0)
        b->start = 0;
    size_t room = TUNNEL_BUF - b->start - b->len;
    if (room == 0)
        return 1;
    ssize_t n = recv(fd, b->data + b->start + b->len, room, 0);
    if (n > 0) {
        b->len += (size_t)n;
        return 1;
    }
    if (n == 0)
        return 0;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 1 : -1;
}

/* Writes what it can of b to fd: 1, or -1 on an error. */
static int drain(int fd, struct pipe_buf *b)
{
    if (b->len == 0)
        return 1;
    ssize_t n = send(fd, b->data + b->start, b->len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
        b->start += (size_t)n;
        b->len -= (size_t)n;
        if (b->len == 0)
            b->start = 0;
        return 1;
    }
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 1 : -1;
}

/* Puts bytes into a buffer at once (the client's extra bytes, the companion's leftover). */
static void preload(struct pipe_buf *b, const char *data, size_t len)
{
    size_t n = len < TUNNEL_BUF ? len : TUNNEL_BUF;
    memcpy(b->data, data, n);
    b->len = n;
}

/* The upgraded connection: bytes both ways, on the connection's own thread (http_upgraded). */
static void tunnel(void *ctx, int client, const char *extra, size_t extra_len, struct gateway *gw)
{
    struct proxy_call *call = ctx;
    struct proxy_touch touch;
    proxy_touch_init(&touch, call->resolver, call->path.ns, call->path.name);
    struct pipe_buf *up = malloc(sizeof *up), *down = malloc(sizeof *down); /* to the companion, to the client */
    if (!up || !down) {
        free(up);
        free(down);
        return;
    }
    up->start = up->len = down->start = down->len = 0;
    if (extra_len > TUNNEL_BUF || call->leftover_len > TUNNEL_BUF)
        goto done;
    if (extra_len)
        preload(up, extra, extra_len);
    if (call->leftover_len)
        preload(down, call->leftover, call->leftover_len);
    proxy_touch(&touch);
    int upstream = call->upstream_fd;
    bool client_open = true, upstream_open = true;
    while (!http_stopping(gw)) {
        /* A side that closed ends the tunnel once what it sent is delivered. */
        if ((!client_open && up->len == 0) || (!upstream_open && down->len == 0))
            break;
        struct pollfd p[2] = {{.fd = client}, {.fd = upstream}};
        if (client_open && up->len < TUNNEL_BUF)
            p[0].events |= POLLIN;
        if (down->len > 0)
            p[0].events |= POLLOUT;
        if (upstream_open && down->len < TUNNEL_BUF)
            p[1].events |= POLLIN;
        if (up->len > 0)
            p[1].events |= POLLOUT;
        int r = poll(p, 2, POLL_MS);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        size_t before = up->len + down->len;
        if ((p[0].revents & POLLOUT) && drain(client, down) < 0)
            break;
        if ((p[1].revents & POLLOUT) && drain(upstream, up) < 0)
            break;
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            int f = fill(client, up);
            if (f < 0)
                break;
            if (f == 0)
                client_open = false;
        }
        if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            int f = fill(upstream, down);
            if (f < 0)
                break;
            if (f == 0)
                upstream_open = false;
        }
        if (up->len + down->len != before)
            proxy_touch(&touch);
    }
done:
    free(up);
    free(down);
}

void proxy_upgrade(struct http_req *req, struct proxy_call *call)
{
    call->upstream_fd = connect_upstream(call->target.port);
    if (call->upstream_fd < 0) {
        fail(req, 502, "BadGateway", "cannot reach the companion", strerror(errno));
        return;
    }
    char uri[HTTP_MAX_PATH + 4096];
    if (proxy_upstream_uri(&call->path, call->target.strip_prefix, uri, sizeof uri) < 0)
        snprintf(uri, sizeof uri, "/");
    struct sbuf b = {0};
    sbuf_printf(&b, "GET %s HTTP/1.1\r\n", uri);
    void *pair[2] = {&b, call};
    http_each_header(req, copy_client_header, pair);
    proxy_added_headers(req, call, add_line, &b);
    sbuf_puts(&b, "Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
    int sent = b.failed ? -1 : send_all(call->upstream_fd, b.data, b.len, HEAD_TIMEOUT_MS);
    sbuf_free(&b);
    char *head = malloc(HEAD_MAX);
    int hlen = sent == 0 && head ? read_head(call, head, HEAD_MAX) : -1;
    if (hlen < 0) {
        free(head);
        fail(req, 502, "BadGateway", "the companion did not answer the upgrade", "no complete answer");
        return;
    }
    int code = hlen > 12 ? atoi(head + 9) : 0;
    if (code != 101) {
        char line[160];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(head, "\r\n"), head);
        free(head);
        bool relay = code >= 400 && code < 500;
        fail(req, relay ? code : 502,
             code == 403   ? "Forbidden"
             : code == 404 ? "NotFound"
             : relay       ? "BadRequest"
                           : "BadGateway",
             "the companion refused the WebSocket upgrade", line);
        return;
    }
    static const char *const relayed[] = {"Sec-WebSocket-Accept", "Sec-WebSocket-Protocol", "Sec-WebSocket-Extensions"};
    char values[4][512];
    const char *names[4], *vals[4];
    int n = 0;
    names[n] = "Upgrade";
    snprintf(values[n], sizeof values[n], "websocket");
    vals[n] = values[n];
    n++;
    for (size_t i = 0; i < sizeof relayed / sizeof relayed[0]; i++)
        if (head_value(head, relayed[i], values[n], sizeof values[n])) {
            names[n] = relayed[i];
            vals[n] = values[n];
            n++;
        }
    free(head);
    http_respond_upgrade(req, names, vals, n, tunnel, call);
}

void proxy_upgrade_release(struct proxy_call *call)
{
    if (call->upstream_fd >= 0)
        close(call->upstream_fd);
    call->upstream_fd = -1;
    free(call->leftover);
    call->leftover = NULL;
}
