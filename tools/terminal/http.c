/* The routes under BASE: the page (which also sets the token cookie), static/NAME, api/status and the
 * WebSocket BASE/ws; 403 without the token, 404 elsewhere; bodies sent in parts as the socket takes
 * them. */
#include "tools/terminal/http.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "tools/terminal/assets.h"
#include "tools/terminal/auth.h"

#define HEADERS_MAX 2048
#define BODY_PART 16384
#define PAGE_CSP                                                                          \
    "default-src 'self'; connect-src 'self' ws: wss:; style-src 'self' 'unsafe-inline'; " \
    "frame-ancestors 'self'"

const struct term_asset *term_asset_find(const char *name)
{
    for (size_t i = 0; i < term_asset_count; i++)
        if (strcmp(term_assets[i].name, name) == 0)
            return &term_assets[i];
    return NULL;
}

static int add_header(struct lws *wsi, const char *name, const char *value, unsigned char **p, unsigned char *end)
{
    return lws_add_http_header_by_name(wsi, (const unsigned char *)name, (const unsigned char *)value,
                                       (int)strlen(value), p, end);
}

/* Writes a whole short answer with Connection: close and returns -1 (libwebsockets flushes it, then
 * hangs up): refusals and errors. */
static int answer_now(struct lws *wsi, unsigned code, const char *text)
{
    unsigned char buf[LWS_PRE + HEADERS_MAX + 512];
    unsigned char *start = buf + LWS_PRE, *p = start, *end = start + HEADERS_MAX;
    size_t len = strlen(text);
    if (len > 512)
        len = 512;
    if (lws_add_http_common_headers(wsi, code, "text/plain; charset=utf-8", len, &p, end) == 0 &&
        add_header(wsi, "cache-control:", "no-store", &p, end) == 0 &&
        lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, (const unsigned char *)"close", 5, &p, end) == 0 &&
        lws_finalize_http_header(wsi, &p, end) == 0) {
        memcpy(p, text, len);
        p += len;
        lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP_HEADERS);
    }
    return -1;
}

/* Sends the headers of a 200 (or 302 when location is set) whose body c holds, then asks to write
 * the body. */
static int answer(struct lws *wsi, struct http_conn *c, const char *type, const char *cookie, const char *location,
                  bool page)
{
    unsigned char buf[LWS_PRE + HEADERS_MAX];
    unsigned char *start = buf + LWS_PRE, *p = start, *end = start + HEADERS_MAX;
    if (lws_add_http_common_headers(wsi, location ? HTTP_STATUS_FOUND : HTTP_STATUS_OK, type, c->len, &p, end) ||
        add_header(wsi, "cache-control:", "no-store", &p, end) ||
        add_header(wsi, "x-content-type-options:", "nosniff", &p, end) ||
        add_header(wsi, "referrer-policy:", "no-referrer", &p, end) ||
        (page && add_header(wsi, "content-security-policy:", PAGE_CSP, &p, end)) ||
        (cookie && add_header(wsi, "set-cookie:", cookie, &p, end)) ||
        (location && add_header(wsi, "location:", location, &p, end)) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    c->sent = 0;
    if (c->len == 0) {
        c->body = NULL;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    lws_callback_on_writable(wsi);
    return 0;
}

int term_http_writable(struct lws *wsi, struct http_conn *c)
{
    if (!c->body)
        return 0;
    unsigned char part[LWS_PRE + BODY_PART];
    size_t n = c->len - c->sent > BODY_PART ? BODY_PART : c->len - c->sent;
    bool last = c->sent + n == c->len;
    memcpy(part + LWS_PRE, c->body + c->sent, n);
    if (lws_write(wsi, part + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n)
        return -1;
    c->sent += n;
    if (!last) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    c->body = NULL;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static void rfc3339(int64_t ms, char *out, size_t len)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char secs[32];
    strftime(secs, sizeof secs, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, len, "%s.%03dZ", secs, (int)(ms % 1000));
}

static int serve_status(struct term_server *srv, struct lws *wsi, struct http_conn *c)
{
    char when[48];
    rfc3339(srv->last_activity_ms, when, sizeof when);
    int n = snprintf(c->small, sizeof c->small, "{\"last_activity\": \"%s\", \"connections\": %d}\n", when,
                     srv->connections);
    c->body = (const unsigned char *)c->small;
    c->len = (size_t)n;
    return answer(wsi, c, "application/json", NULL, NULL, false);
}

static int serve_asset(struct lws *wsi, struct http_conn *c, const struct term_asset *a, const char *cookie)
{
    c->body = a->data;
    c->len = a->len;
    return answer(wsi, c, a->content_type, cookie, NULL, strcmp(a->name, "index.html") == 0);
}

static bool get_path(struct lws *wsi, char *path, size_t len)
{
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI);
    return n > 0 && (size_t)n < len && lws_hdr_copy(wsi, path, (int)len, WSI_TOKEN_GET_URI) >= 0;
}

int term_http_request(struct term_server *srv, struct lws *wsi, struct http_conn *c)
{
    const struct term_options *o = srv->opt;
    char path[512];
    memset(c, 0, sizeof *c);
    enum term_auth how = term_auth_check(wsi, o->token);
    if (how == TERM_AUTH_NONE)
        return answer_now(wsi, 403,
                          "caldera-terminal: forbidden without the token (Authorization: token T, "
                          "?token=T, or the cookie its page sets)\n");
    if (!get_path(wsi, path, sizeof path))
        return answer_now(wsi, 405, "caldera-terminal: GET only\n");
    size_t blen = strlen(o->base);
    if (strncmp(path, o->base, blen - 1) != 0 || (path[blen - 1] != '/' && path[blen - 1] != '\0'))
        return answer_now(wsi, 404, "caldera-terminal: not found\n");
    if (path[blen - 1] == '\0') { /* BASE without its slash */
        c->body = (const unsigned char *)"";
        c->len = 0;
        return answer(wsi, c, "text/plain", NULL, o->base, false);
    }
    const char *rest = path + blen;
    if (!rest[0]) {
        char cookie[TERMINAL_TOKEN_MAX + 320];
        snprintf(cookie, sizeof cookie, TERMINAL_COOKIE "=%s; Path=%s; HttpOnly; SameSite=Strict", o->token, o->base);
        return serve_asset(wsi, c, term_asset_find("index.html"), how == TERM_AUTH_COOKIE ? NULL : cookie);
    }
    if (strcmp(rest, "api/status") == 0)
        return serve_status(srv, wsi, c);
    if (strncmp(rest, "static/", 7) == 0) {
        const struct term_asset *a = strcmp(rest + 7, "index.html") == 0 ? NULL : term_asset_find(rest + 7);
        if (a)
            return serve_asset(wsi, c, a, NULL);
        if (term_assets_missing[0] && (strncmp(rest + 7, "xterm", 5) == 0 || strncmp(rest + 7, "addon-", 6) == 0))
            return answer_now(wsi, 404, "caldera-terminal: the terminal assets are missing from this build\n");
    }
    if (strcmp(rest, "ws") == 0)
        return answer_now(wsi, 400, "caldera-terminal: open a WebSocket here (Upgrade: websocket)\n");
    return answer_now(wsi, 404, "caldera-terminal: not found\n");
}

int term_http_confirm_upgrade(struct term_server *srv, struct lws *wsi)
{
    const struct term_options *o = srv->opt;
    char path[512], want[300];
    snprintf(want, sizeof want, "%sws", o->base);
    enum term_auth how = term_auth_check(wsi, o->token);
    if (how == TERM_AUTH_NONE)
        return answer_now(wsi, 403, "caldera-terminal: forbidden without the token\n");
    if (how == TERM_AUTH_COOKIE && !term_auth_same_origin(wsi))
        return answer_now(wsi, 403, "caldera-terminal: the page opening this terminal is not this server's\n");
    if (!get_path(wsi, path, sizeof path) || strcmp(path, want) != 0)
        return answer_now(wsi, 404, "caldera-terminal: terminals open at BASE/ws\n");
    if (srv->stopping)
        return answer_now(wsi, 503, "caldera-terminal: stopping\n");
    if (srv->nsessions >= o->max_terminals)
        return answer_now(wsi, 503, "caldera-terminal: too many terminals open; close one first\n");
    return 0;
}
