/* A small RFC 6455 client for tests and benchmarks: blocking handshake with its answer kept, frames
 * parsed from a buffer the caller fills blocking (ws_client_next) or from its own poll loop. */
#include "tests/lib/ws_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/grow.h"

#define MAX_HEAD 8192
#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

static bool grow(struct ws_client *c, size_t more) { return GROW(c->in, c->in_cap, c->in_len + more, 16384) == 0; }

/* Waits for the socket to be readable for at most ms; true when it is. */
static bool readable(int fd, int ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    return poll(&p, 1, ms < 0 ? 0 : ms) > 0;
}

static int parse_url(const char *url, char *host, size_t hostlen, int *port, const char **path)
{
    if (strncmp(url, "ws://", 5) != 0)
        return -1;
    const char *h = url + 5, *colon = strchr(h, ':'), *slash = strchr(h, '/');
    if (!colon || !slash || colon > slash || (size_t)(colon - h) >= hostlen)
        return -1;
    memcpy(host, h, (size_t)(colon - h));
    host[colon - h] = '\0';
    *port = atoi(colon + 1);
    *path = slash;
    return 0;
}

/* The value of header name in the head (NUL-terminated, lines ending \r\n), copied into out. */
static bool head_value(const char *head, const char *name, char *out, size_t len)
{
    size_t n = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line && line[2]; line = strstr(line + 2, "\r\n")) {
        const char *l = line + 2;
        if (strncasecmp(l, name, n) == 0 && l[n] == ':') {
            const char *v = l + n + 1, *end = strstr(v, "\r\n");
            while (*v == ' ')
                v++;
            size_t vlen = end ? (size_t)(end - v) : strlen(v);
            snprintf(out, len, "%.*s", (int)vlen, v);
            return true;
        }
    }
    return false;
}

static void accept_of(const char *key, char *out)
{
    char joined[128];
    unsigned char digest[SHA_DIGEST_LENGTH];
    snprintf(joined, sizeof joined, "%s%s", key, WS_GUID);
    SHA1((const unsigned char *)joined, strlen(joined), digest);
    EVP_EncodeBlock((unsigned char *)out, digest, SHA_DIGEST_LENGTH);
}

static int send_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads the answer's head (and a refusal's body) within the deadline. */
static int read_answer(struct ws_client *c, const char *key, int64_t deadline)
{
    char *end = NULL;
    while (!end) {
        int64_t left = deadline - clock_mono_ms();
        if (left <= 0 || !readable(c->fd, (int)left) || !grow(c, 4096))
            return -1;
        ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len - 1, 0);
        if (n <= 0)
            return -1;
        c->in_len += (size_t)n;
        c->in[c->in_len] = '\0';
        end = strstr((char *)c->in, "\r\n\r\n");
        if (!end && c->in_len > MAX_HEAD)
            return -1;
    }
    size_t head_len = (size_t)(end - (char *)c->in) + 4;
    char *head = strndup((char *)c->in, head_len), value[128];
    if (!head || sscanf(head, "HTTP/1.%*d %d", &c->http_code) != 1) {
        free(head);
        return -1;
    }
    memmove(c->in, c->in + head_len, c->in_len - head_len);
    c->in_len -= head_len;
    int rc = 0;
    if (c->http_code == 101) {
        char want[64];
        accept_of(key, want);
        if (!head_value(head, "Sec-WebSocket-Accept", value, sizeof value) || strcmp(value, want) != 0)
            rc = -1;
        if (head_value(head, "Sec-WebSocket-Protocol", value, sizeof value))
            snprintf(c->protocol, sizeof c->protocol, "%s", value);
    } else {
        size_t body = head_value(head, "Content-Length", value, sizeof value) ? strtoul(value, NULL, 10) : 0;
        while (c->in_len < body && clock_mono_ms() < deadline && readable(c->fd, 100) && grow(c, 4096)) {
            ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
            if (n <= 0)
                break;
            c->in_len += (size_t)n;
        }
        c->http_body = strndup((char *)c->in, c->in_len);
        c->in_len = 0;
        rc = 1;
    }
    free(head);
    return rc;
}

int ws_client_connect(struct ws_client *c, const char *url, const char *query, const struct ws_client_options *o,
                      int timeout_ms)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    char host[64];
    int port;
    const char *path;
    if (parse_url(url, host, sizeof host, &port, &path) != 0)
        return -1;
    int64_t deadline = clock_mono_ms() + timeout_ms;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1 || (c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return -1;
    if (o && o->rcvbuf > 0)
        setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &o->rcvbuf, sizeof o->rcvbuf);
    struct sockaddr_in from = {.sin_family = AF_INET};
    if (o && o->source_address &&
        (inet_pton(AF_INET, o->source_address, &from.sin_addr) != 1 ||
         bind(c->fd, (struct sockaddr *)&from, sizeof from) != 0)) {
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        ws_client_drop(c);
        return -1;
    }
    unsigned char nonce[16];
    char key[32];
    for (int i = 0; i < 16; i++)
        nonce[i] = (unsigned char)rand();
    EVP_EncodeBlock((unsigned char *)key, nonce, 16);
    char request[8192];
    int n = snprintf(request, sizeof request,
                     "GET %s%s%s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s%s%s%s%s%s%s\r\n",
                     path, query ? "?" : "", query ? query : "", host, port, key,
                     o && o->authorization ? "Authorization: " : "", o && o->authorization ? o->authorization : "",
                     o && o->authorization ? "\r\n" : "", o && o->protocols ? "Sec-WebSocket-Protocol: " : "",
                     o && o->protocols ? o->protocols : "", o && o->protocols ? "\r\n" : "",
                     o && o->headers ? o->headers : "");
    if (n >= (int)sizeof request || send_all(c->fd, request, (size_t)n) != 0) {
        ws_client_drop(c);
        return -1;
    }
    int rc = read_answer(c, key, deadline);
    if (rc != 0) {
        close(c->fd);
        c->fd = -1;
    }
    return rc;
}

bool ws_client_feed(struct ws_client *c)
{
    for (;;) {
        if (c->fd < 0 || !grow(c, 65536))
            return false;
        ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
        if (n > 0) {
            c->in_len += (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return true;
        if (n < 0 && errno == EINTR)
            continue;
        return false;
    }
}

/* A frame from the client, masked as RFC 6455 wants. */
static void send_frame(struct ws_client *c, int opcode, const void *payload, size_t len)
{
    unsigned char frame[2 + 4 + 125];
    if (c->fd < 0 || len > 125)
        return;
    frame[0] = (unsigned char)(0x80 | opcode);
    frame[1] = (unsigned char)(0x80 | len);
    unsigned char *mask = frame + 2;
    for (int i = 0; i < 4; i++)
        mask[i] = (unsigned char)rand();
    for (size_t i = 0; i < len; i++)
        frame[6 + i] = ((const unsigned char *)payload)[i] ^ mask[i % 4];
    send_all(c->fd, frame, 6 + len);
}

bool ws_client_take(struct ws_client *c, struct ws_frame *f)
{
    for (;;) {
        memset(f, 0, sizeof *f);
        if (c->in_len < 2)
            return false;
        unsigned char *p = c->in;
        bool fin = p[0] & 0x80, masked = p[1] & 0x80;
        int opcode = p[0] & 0x0f;
        size_t head = 2;
        uint64_t len = p[1] & 0x7f;
        if (len == 126) {
            if (c->in_len < 4)
                return false;
            len = (uint64_t)p[2] << 8 | p[3];
            head = 4;
        } else if (len == 127) {
            if (c->in_len < 10)
                return false;
            len = 0;
            for (int i = 0; i < 8; i++)
                len = len << 8 | p[2 + i];
            head = 10;
        }
        size_t mask_at = head;
        if (masked)
            head += 4;
        if (c->in_len < head + len)
            return false;
        unsigned char *payload = p + head;
        for (uint64_t i = 0; masked && i < len; i++)
            payload[i] ^= p[mask_at + i % 4];
        bool done = false;
        if (opcode == 9) {
            send_frame(c, 10, payload, (size_t)len);
        } else if (opcode == 8) {
            f->kind = WS_CLOSE;
            f->close_code = len >= 2 ? payload[0] << 8 | payload[1] : 1005;
            if (len > 2)
                snprintf(f->close_reason, sizeof f->close_reason, "%.*s", (int)(len - 2), (char *)payload + 2);
            done = true;
        } else if (opcode == 0 || opcode == 1 || opcode == 2) {
            char *grown = realloc(c->partial, c->partial_len + len + 1);
            if (grown) {
                memcpy(grown + c->partial_len, payload, (size_t)len);
                c->partial = grown;
                c->partial_len += len;
                grown[c->partial_len] = '\0';
            }
            if (fin && c->partial) {
                f->kind = WS_TEXT;
                f->text = c->partial;
                f->len = c->partial_len;
                c->partial = NULL;
                c->partial_len = 0;
                done = true;
            }
        }
        memmove(c->in, c->in + head + len, c->in_len - head - len);
        c->in_len -= head + len;
        if (done)
            return true;
    }
}

struct ws_frame ws_client_next(struct ws_client *c, int timeout_ms)
{
    struct ws_frame f;
    int64_t deadline = clock_mono_ms() + timeout_ms;
    while (!ws_client_take(c, &f)) {
        int64_t left = deadline - clock_mono_ms();
        if (left <= 0 || !readable(c->fd, (int)left))
            return (struct ws_frame){.kind = WS_NOTHING};
        if (!ws_client_feed(c) && !ws_client_take(c, &f))
            return (struct ws_frame){.kind = WS_BROKEN};
        if (f.kind != WS_NOTHING)
            return f;
    }
    return f;
}

void ws_frame_clear(struct ws_frame *f)
{
    free(f->text);
    f->text = NULL;
}

void ws_client_drop(struct ws_client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->in);
    free(c->http_body);
    free(c->partial);
    c->in = NULL;
    c->http_body = NULL;
    c->partial = NULL;
    c->in_len = c->in_cap = c->partial_len = 0;
}

void ws_client_close(struct ws_client *c)
{
    unsigned char code[2] = {1000 >> 8, 1000 & 0xff};
    send_frame(c, 8, code, sizeof code);
    ws_client_drop(c);
}
