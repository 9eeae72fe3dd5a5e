/* HTTP forwarding with libcurl (multi, one easy handle), all on the connection's thread. The transfer
 * is set up once the headers are in; the request's body goes to the companion as libmicrohttpd hands
 * it over (the body sink blocks until curl has sent it: the client is slowed to the companion's
 * pace). Then the companion's status and headers are read, and its body flows back from the
 * answer's own callback through a bounded ring; when the client reads slower than the companion
 * sends, the transfer is paused (CURL_WRITEFUNC_PAUSE) until the ring has room. Memory stays
 * bounded whatever the sizes either way. */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/sbuf.h"
#include "gateway/http/http.h"
#include "gateway/proxy/call.h"
#include "gateway/proxy/touch.h"

#define RING_SIZE (512 * 1024)
#define CURL_CHUNK (128 * 1024) /* CURLOPT_BUFFERSIZE: the most one write callback brings */
#define MAX_RESPONSE_HEADERS 100
#define POLL_MS 200
#define CONNECT_TIMEOUT_MS 5000

struct forward {
    CURL *easy;
    CURLM *multi;
    struct curl_slist *headers;
    /* The request's body, as it arrives (body_sink, on_upload). */
    bool upload;         /* it has one */
    const char *up_data; /* the part libmicrohttpd handed over, not yet taken by curl */
    size_t up_len;
    bool up_eof, up_paused;
    struct gateway *gw;
    int client_fd; /* to notice a client that left while the companion is silent */
    struct proxy_touch touch;
    /* The answer's head, from the header callback. */
    bool head_done;
    long code;
    int nheaders;
    char *names[MAX_RESPONSE_HEADERS], *values[MAX_RESPONSE_HEADERS];
    uint64_t content_length; /* HTTP_SIZE_UNKNOWN when not said */
    bool chunked;
    /* The body, from the write callback. */
    char *ring;
    size_t start, len; /* in ring */
    bool paused;
    char *direct; /* while the ring is empty: libmicrohttpd's buffer, filled first (one copy less) */
    size_t direct_max, direct_len;
    bool done;
    CURLcode result;
    char error[CURL_ERROR_SIZE];
};

static void clear_head(struct forward *f)
{
    for (int i = 0; i < f->nheaders; i++) {
        free(f->names[i]);
        free(f->values[i]);
    }
    f->nheaders = 0;
    f->content_length = HTTP_SIZE_UNKNOWN;
    f->chunked = false;
}

static void forward_free(void *ctx)
{
    struct forward *f = ctx;
    if (f->multi && f->easy)
        curl_multi_remove_handle(f->multi, f->easy);
    if (f->easy)
        curl_easy_cleanup(f->easy);
    if (f->multi)
        curl_multi_cleanup(f->multi);
    curl_slist_free_all(f->headers);
    clear_head(f);
    free(f->ring);
    free(f);
}

static size_t on_header(char *line, size_t size, size_t n, void *ctx)
{
    struct forward *f = ctx;
    size_t len = size * n;
    if (f->head_done)
        return len;                                   /* trailers */
    if (len >= 5 && strncmp(line, "HTTP/", 5) == 0) { /* a status line: a new head (after a 1xx) */
        clear_head(f);
        f->code = strtol(line + 9 < line + len ? line + 9 : line, NULL, 10);
        return len;
    }
    if (len <= 2 && (line[0] == '\r' || line[0] == '\n')) {
        if (f->code >= 200)
            f->head_done = true;
        return len;
    }
    const char *colon = memchr(line, ':', len);
    if (!colon || f->nheaders == MAX_RESPONSE_HEADERS)
        return len;
    size_t nlen = (size_t)(colon - line);
    const char *v = colon + 1, *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
        end--;
    char *name = strndup(line, nlen), *value = strndup(v, (size_t)(end - v));
    if (!name || !value) {
        free(name);
        free(value);
        return 0;
    }
    if (strcasecmp(name, "Content-Length") == 0)
        f->content_length = strtoull(value, NULL, 10);
    if (strcasecmp(name, "Transfer-Encoding") == 0)
        f->chunked = true;
    f->names[f->nheaders] = name;
    f->values[f->nheaders++] = value;
    return len;
}

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
    struct forward *f = ctx;
    size_t len = size * n;
    size_t direct_room = f->direct && f->len == 0 ? f->direct_max - f->direct_len : 0;
    if (direct_room + (RING_SIZE - f->len) < len) {
        f->paused = true;
        return CURL_WRITEFUNC_PAUSE; /* curl keeps it and brings it again once unpaused */
    }
    if (direct_room > 0) { /* all or nothing: what does not go straight out goes to the ring */
        size_t k = direct_room < len ? direct_room : len;
        memcpy(f->direct + f->direct_len, data, k);
        f->direct_len += k;
        if (k == len)
            return len;
        data += k;
        size_t rest = len - k;
        memcpy(f->ring, data, rest); /* the ring is empty */
        f->start = 0;
        f->len = rest;
        return len;
    }
    size_t end = (f->start + f->len) % RING_SIZE, first = RING_SIZE - end < len ? RING_SIZE - end : len;
    memcpy(f->ring + end, data, first);
    memcpy(f->ring, data + first, len - first);
    f->len += len;
    return len;
}

/* Sets curl's pause state to what the flags say (receive: the ring is full; send: no body yet). */
static void resume(struct forward *f)
{
    curl_easy_pause(f->easy, (f->paused ? CURLPAUSE_RECV : 0) | (f->up_paused ? CURLPAUSE_SEND : 0));
}

static size_t on_upload(char *buf, size_t size, size_t n, void *ctx)
{
    struct forward *f = ctx;
    size_t max = size * n;
    if (f->up_len > 0) {
        size_t k = f->up_len < max ? f->up_len : max;
        memcpy(buf, f->up_data, k);
        f->up_data += k;
        f->up_len -= k;
        return k;
    }
    if (f->up_eof)
        return 0;
    f->up_paused = true;
    return CURL_READFUNC_PAUSE;
}

/* Whether the client closed its connection (or it broke): nobody reads the answer any more. */
static bool client_gone(const struct forward *f)
{
    struct pollfd p = {.fd = f->client_fd, .events = POLLRDHUP};
    return f->client_fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* One step of the transfer: runs curl, and waits (at most POLL_MS) for the companion when it has
 * nothing new. */
static void step(struct forward *f, bool wait)
{
    int running = 0;
    curl_multi_perform(f->multi, &running);
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(f->multi, &left)) != NULL) {
        if (m->msg == CURLMSG_DONE) {
            f->done = true;
            f->result = m->data.result;
        }
    }
    /* Wait only when nothing came: with data in the ring (or a paused transfer, whose socket curl
     * leaves out of the poll) the caller has work already. */
    if (wait && !f->done && !f->head_done)
        curl_multi_poll(f->multi, NULL, 0, POLL_MS, NULL);
    else if (wait && !f->done && f->len == 0 && !f->paused && f->direct_len == 0)
        curl_multi_poll(f->multi, NULL, 0, POLL_MS, NULL);
}

static long forward_read(void *ctx, char *buf, size_t max)
{
    struct forward *f = ctx;
    for (;;) {
        if (f->len > 0) {
            size_t n = f->len < max ? f->len : max;
            size_t first = RING_SIZE - f->start < n ? RING_SIZE - f->start : n;
            memcpy(buf, f->ring + f->start, first);
            memcpy(buf + first, f->ring, n - first);
            f->start = (f->start + n) % RING_SIZE;
            f->len -= n;
            if (f->len == 0)
                f->start = 0;
            if (f->paused && RING_SIZE - f->len >= CURL_CHUNK) {
                f->paused = false;
                resume(f); /* may bring data into the ring at once */
            }
            proxy_touch(&f->touch);
            return (long)n;
        }
        if (f->done) {
            if (f->result != CURLE_OK)
                log_limited(LOG_WARN, "proxy: upstream broke", "proxy: the companion's answer broke off: %s",
                            f->error[0] ? f->error : curl_easy_strerror(f->result));
            return f->result == CURLE_OK ? -1 : -2;
        }
        if (http_stopping(f->gw) || client_gone(f))
            return -2;
        if (f->paused) { /* the ring is empty, so there is room: take what curl holds */
            f->paused = false;
            resume(f);
            continue;
        }
        f->direct = buf; /* the ring is empty: curl writes straight into the answer's buffer */
        f->direct_max = max;
        f->direct_len = 0;
        step(f, true);
        f->direct = NULL;
        if (f->direct_len > 0) {
            proxy_touch(&f->touch);
            return (long)f->direct_len;
        }
    }
}

struct header_lines {
    struct curl_slist *list;
    const struct proxy_target *target;
    bool failed;
    char cookie[8192];
};

static void add_line(void *ctx, const char *line)
{
    struct header_lines *h = ctx;
    struct curl_slist *next = curl_slist_append(h->list, line);
    if (!next)
        h->failed = true;
    else
        h->list = next;
}

static bool copy_client_header(void *ctx, const char *name, const char *value)
{
    struct header_lines *h = ctx;
    if (strcasecmp(name, "Cookie") == 0) { /* forwarded without ours */
        int n = proxy_cookie_without_ours(value, proxy_added_cookie(h->target), h->cookie, sizeof h->cookie);
        if (n > 0) {
            char line[sizeof h->cookie + 16];
            snprintf(line, sizeof line, "Cookie: %s", h->cookie);
            add_line(h, line);
        }
        return true;
    }
    if (proxy_request_header_dropped(name, h->target))
        return true;
    size_t len = strlen(name) + strlen(value) + 3;
    char *line = malloc(len);
    if (!line) {
        h->failed = true;
        return false;
    }
    /* "Name;" is how curl sends a header with an empty value; "Name:" would remove curl's own. */
    if (value[0])
        snprintf(line, len, "%s: %s", name, value);
    else
        snprintf(line, len, "%s;", name);
    add_line(h, line);
    free(line);
    return true;
}

void proxy_added_headers(const struct http_req *req, const struct proxy_call *call,
                         void (*each)(void *ctx, const char *line), void *ctx)
{
    char line[PROXY_HEADER_MAX + 600];
    for (int i = 0; i < call->target.nheaders; i++)
        each(ctx, call->target.headers[i]);
    const char *host = http_header(req, "Host");
    if (host) {
        snprintf(line, sizeof line, "X-Forwarded-Host: %s", host);
        each(ctx, line);
    }
    const struct sockaddr *sa = http_client_address(req);
    char addr[INET6_ADDRSTRLEN] = "";
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, addr, sizeof addr);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, addr, sizeof addr);
    if (addr[0]) {
        snprintf(line, sizeof line, "X-Forwarded-For: %s", addr);
        each(ctx, line);
    }
    each(ctx, "X-Forwarded-Proto: http");
    snprintf(line, sizeof line, "X-Forwarded-Prefix: %s", call->path.prefix);
    each(ctx, line);
}

static void fail(struct http_req *req, int code, const char *reason, const char *fmt, const char *a, const char *b)
{
    struct api_status st = {0};
    api_fail(&st, code, reason, fmt, a, b);
    http_respond_status(req, &st);
}

/* Sets the easy handle up for req; false when memory ran out. */
static bool set_up(struct forward *f, struct http_req *req, struct proxy_call *call)
{
    char uri[HTTP_MAX_PATH + 64 + 4096], url[sizeof uri + 64];
    if (proxy_upstream_uri(&call->path, call->target.strip_prefix, uri, sizeof uri) < 0)
        snprintf(uri, sizeof uri, "/");
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", call->target.port, uri);
    struct header_lines h = {.target = &call->target};
    http_each_header(req, copy_client_header, &h);
    proxy_added_headers(req, call, add_line, &h);
    add_line(&h, "Expect:"); /* no 100-continue round trip */
    f->headers = h.list;
    if (h.failed)
        return false;
    CURL *e = f->easy;
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_BUFFERSIZE, (long)CURL_CHUNK);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)CONNECT_TIMEOUT_MS);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, f->headers);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, f);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, f);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, f->error);
    const char *cl = http_header(req, "Content-Length");
    bool chunked = http_header(req, "Transfer-Encoding") != NULL; /* http/ lets only chunked through */
    long long declared = cl ? strtoll(cl, NULL, 10) : 0;
    if (strcmp(req->method, "HEAD") == 0) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
        return true;
    }
    f->upload = declared > 0 || chunked || strcmp(req->method, "POST") == 0 || strcmp(req->method, "PUT") == 0 ||
                strcmp(req->method, "PATCH") == 0;
    if (f->upload) { /* with its length when the client said it, else chunked */
        curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(e, CURLOPT_READFUNCTION, on_upload);
        curl_easy_setopt(e, CURLOPT_READDATA, f);
        curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)(chunked ? -1 : declared));
    }
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);
    return true;
}

/* The answer's headers as sent to the client: hop-by-hop ones and secrets dropped, a Location back
 * under the prefix. Returns how many; names and values point into f or into locs. */
static int client_headers(struct forward *f, const struct proxy_call *call, const char **names, const char **values,
                          char *loc, size_t loclen)
{
    int n = 0;
    for (int i = 0; i < f->nheaders; i++) {
        if (proxy_response_header_dropped(f->names[i], f->values[i], &call->target))
            continue;
        names[n] = f->names[i];
        values[n] = f->values[i];
        if (strcasecmp(f->names[i], "Location") == 0 &&
            proxy_location_rewrite(f->values[i], call->target.strip_prefix ? call->path.prefix : "", call->target.port,
                                   loc, loclen))
            values[n] = loc;
        n++;
    }
    return n;
}

/* The body sink: hands what arrived to curl and runs the transfer until curl has taken it all (or
 * the companion ended the transfer: the rest is dropped, and its answer tells). */
static void body_sink(struct http_req *req, const char *data, size_t len)
{
    struct proxy_call *call = req->ext;
    struct forward *f = call ? call->fwd : NULL;
    if (!f || f->done)
        return;
    f->up_data = data;
    f->up_len = len;
    while (f->up_len > 0 && !f->done && !http_stopping(f->gw) && !client_gone(f)) {
        if (f->up_paused) {
            f->up_paused = false;
            resume(f);
        }
        step(f, false);
        if (f->up_len > 0 && !f->done && !f->up_paused)
            curl_multi_poll(f->multi, NULL, 0, POLL_MS, NULL);
    }
    f->up_data = NULL;
    f->up_len = 0;
}

int proxy_forward_begin(struct http_req *req, struct proxy_call *call)
{
    struct forward *f = calloc(1, sizeof *f);
    if (f) {
        f->ring = malloc(RING_SIZE);
        f->easy = curl_easy_init();
        f->multi = curl_multi_init();
        f->content_length = HTTP_SIZE_UNKNOWN;
        f->gw = req->gw;
        f->client_fd = http_client_socket(req);
        proxy_touch_init(&f->touch, call->resolver, call->path.ns, call->path.name);
    }
    if (!f || !f->ring || !f->easy || !f->multi || !set_up(f, req, call) ||
        curl_multi_add_handle(f->multi, f->easy) != CURLM_OK) {
        if (f)
            forward_free(f);
        fail(req, 500, "InternalError", "out of memory forwarding to %s%s", call->path.prefix, "");
        return -1;
    }
    call->fwd = f;
    if (f->upload)
        req->body_sink = body_sink;
    return 0;
}

void proxy_forward_release(struct proxy_call *call)
{
    if (call->fwd)
        forward_free(call->fwd);
    call->fwd = NULL;
}

void proxy_forward(struct http_req *req, struct proxy_call *call)
{
    struct forward *f = call->fwd;
    call->fwd = NULL; /* the answer's now */
    if (!f) {
        fail(req, 500, "InternalError", "no transfer to %s%s", call->path.prefix, "");
        return;
    }
    f->up_eof = true; /* the whole body is in */
    if (f->up_paused) {
        f->up_paused = false;
        resume(f);
    }
    proxy_touch(&f->touch);
    while (!f->head_done && !f->done && !http_stopping(req->gw) && !client_gone(f))
        step(f, true);
    if (!f->head_done) {
        char why[CURL_ERROR_SIZE + 64];
        snprintf(why, sizeof why, "%s", f->error[0] ? f->error : curl_easy_strerror(f->result));
        forward_free(f);
        fail(req, 502, "BadGateway", "cannot reach the companion at %s: %s", call->path.prefix, why);
        return;
    }
    const char *names[MAX_RESPONSE_HEADERS], *values[MAX_RESPONSE_HEADERS];
    char loc[HTTP_MAX_PATH + 600];
    int n = client_headers(f, call, names, values, loc, sizeof loc);
    int code = (int)f->code;
    bool no_body = strcmp(req->method, "HEAD") == 0 || code == 204 || code == 304 || code < 200;
    uint64_t size = no_body ? 0 : f->chunked ? HTTP_SIZE_UNKNOWN : f->content_length;
    if (no_body && size == 0 && !f->done) { /* nothing more to read */
        f->done = true;
        f->result = CURLE_OK;
    }
    http_respond_relay(req, code, size, names, values, n, forward_read, f, forward_free);
}
