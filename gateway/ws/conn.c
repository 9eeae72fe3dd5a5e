/* A subscriber's connection on the WebSocket thread: its cursor (every event it follows up to there is
 * sent), the writes of a writable callback (from the database until it reaches the hub, then from
 * the hub), the scan that wakes the subscribers a publish concerns, and the close of a slow one. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "gateway/watch/hub.h"
#include "gateway/http/metrics.h"
#include "gateway/ws/internal.h"

#define HUB_BATCH 64
#define SCAN_BATCH 256
/* A subscriber the hub left behind while it did not read is told so when it reads again, or hung up
 * on after this long if it does not. */
#define SLOW_GRACE_S 30

void ws_conn_close_later(struct ws_conn *c, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->close_reason, sizeof c->close_reason, fmt, ap);
    va_end(ap);
    c->close_code = code;
    c->wants_write = true;
    lws_callback_on_writable(c->wsi);
}

void ws_conn_established(struct ws_conn *c)
{
    struct ws_server *s = c->srv;
    c->next = s->conns;
    if (s->conns)
        s->conns->prev = c;
    s->conns = c;
    c->subscribed = true;
    atomic_fetch_add(&s->subscribers, 1); /* before the first write, which reads what came meanwhile */
    metrics_websocket_subscribers_add(1);
    c->wants_write = true; /* whatever came since the handshake, or the catch-up from `since` */
    lws_callback_on_writable(c->wsi);
}

void ws_conn_closed(struct ws_conn *c)
{
    if (!c->subscribed)
        return;
    struct ws_server *s = c->srv;
    if (c->prev)
        c->prev->next = c->next;
    else
        s->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    c->subscribed = false;
    atomic_fetch_sub(&s->subscribers, 1);
    metrics_websocket_subscribers_add(-1);
}

static bool item_matches(const struct ws_conn *c, const struct hub_item *it)
{
    return ws_subscription_matches(&c->sub, it->kind, it->ns, it->name, it->job_name);
}

/* One message; false when libwebsockets failed (the connection is then closed). */
static bool send_text(struct ws_conn *c, const char *text, size_t len)
{
    struct ws_server *s = c->srv;
    if (s->out_cap < LWS_PRE + len) {
        unsigned char *grown = realloc(s->out, LWS_PRE + len);
        if (!grown)
            return false;
        s->out = grown;
        s->out_cap = LWS_PRE + len;
    }
    memcpy(s->out + LWS_PRE, text, len);
    return lws_write(c->wsi, s->out + LWS_PRE, len, LWS_WRITE_TEXT) == (int)len;
}

static int close_now(struct ws_conn *c)
{
    lws_close_reason(c->wsi, (enum lws_close_status)c->close_code, (unsigned char *)c->close_reason,
                     strlen(c->close_reason));
    return -1;
}

/* The subscriber's events from the database: sends the backlog, reads the next range when it is
 * empty, and hands over to the hub once the cursor reaches what the hub holds. *sent counts the
 * messages; returns 1 when the turn is over (choked or enough), 0 when caught up with the database,
 * -1 to close. */
static int write_from_db(struct ws_conn *c, int *sent)
{
    struct ws_server *s = c->srv;
    int reads = 0;
    while (c->from_db) {
        while (c->backlog_next < c->backlog_count) {
            if (*sent >= WS_MESSAGES_PER_TURN || lws_send_pipe_choked(c->wsi))
                return 1;
            struct ws_backlog_item *b = &c->backlog[c->backlog_next++];
            if (!send_text(c, b->json, b->len))
                return -1;
            c->cursor = b->seq;
            ++*sent;
        }
        if (c->backlog_count > 0 || reads > 0)
            c->cursor = c->backlog_upto;
        ws_backfill_clear(c);
        if (c->cursor >= hub_floor(s->hub)) {
            c->from_db = false;
            return 0;
        }
        if (reads++ >= 2)
            return 1; /* enough database for one turn: let the others have theirs */
        struct api_status st = {0};
        if (ws_backfill_read(c, &st) != 0) {
            log_warn("websocket: %s", st.message);
            ws_conn_close_later(c, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION,
                                "cannot read the events table; reconnect with since=%llu",
                                (unsigned long long)c->cursor);
            return close_now(c);
        }
    }
    return 0;
}

/* A subscriber the hub no longer holds events for: closed with 1008 and how to resume exactly. */
static void left_behind(struct ws_conn *c)
{
    uint64_t head = hub_head(c->srv->hub);
    ws_conn_close_later(c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "too slow: %llu events behind; reconnect with since=%llu",
                        (unsigned long long)(head - c->cursor), (unsigned long long)c->cursor);
    log_info("websocket: closing a subscriber of namespace \"%s\": %s", c->sub.ns, c->close_reason);
}

/* The subscriber's events from the hub. Returns 1 when the turn is over, 0 when caught up, -1 to
 * close (a subscriber the hub left behind is told how to resume). */
static int write_from_hub(struct ws_conn *c, int *sent)
{
    struct ws_server *s = c->srv;
    for (;;) {
        const struct hub_item *items[HUB_BATCH];
        int n = hub_read(s->hub, c->cursor, items, HUB_BATCH);
        if (n < 0) {
            left_behind(c);
            return close_now(c);
        }
        int i = 0, result = n < HUB_BATCH ? 0 : 2;
        for (; i < n; i++) {
            if (item_matches(c, items[i])) {
                if (*sent >= WS_MESSAGES_PER_TURN || lws_send_pipe_choked(c->wsi)) {
                    result = 1;
                    break;
                }
                size_t len;
                const char *json = hub_item_event_json(items[i], &len);
                if (!json || !send_text(c, json, len)) {
                    result = -1;
                    break;
                }
                ++*sent;
            }
            c->cursor = items[i]->seq;
        }
        for (int j = 0; j < n; j++)
            hub_item_unref(items[j]);
        if (result != 2)
            return result;
    }
}

int ws_conn_writable(struct ws_conn *c)
{
    if (c->close_code)
        return close_now(c);
    int sent = 0;
    int r = write_from_db(c, &sent);
    if (r == 0)
        r = write_from_hub(c, &sent);
    if (r < 0)
        return -1;
    if (r > 0)
        lws_callback_on_writable(c->wsi);
    else
        c->wants_write = false;
    return 0;
}

/* Marks every subscriber that follows one of items (after its cursor) as wanting to write; moves the
 * cursor of the others past them, so a quiet subscriber never falls behind the hub's floor. One
 * that waits to write and has fallen behind (it stopped reading) gets its close frame queued, and is
 * hung up on if it does not read it in time. */
static void match_batch(struct ws_server *s, const struct hub_item *const *items, int n)
{
    uint64_t floor = hub_floor(s->hub);
    for (struct ws_conn *c = s->conns; c; c = c->next) {
        if (c->wants_write && !c->from_db && !c->close_code && c->cursor < floor) {
            left_behind(c);
            lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, SLOW_GRACE_S);
        }
        if (c->wants_write || c->from_db)
            continue;
        for (int i = 0; i < n && !c->wants_write; i++) {
            if (items[i]->seq > c->cursor && item_matches(c, items[i])) {
                c->wants_write = true;
                lws_callback_on_writable(c->wsi);
            }
        }
        if (!c->wants_write && items[n - 1]->seq > c->cursor)
            c->cursor = items[n - 1]->seq;
    }
}

void ws_conn_scan_news(struct ws_server *s)
{
    for (;;) {
        const struct hub_item *items[SCAN_BATCH];
        int n = hub_read(s->hub, s->scanned, items, SCAN_BATCH);
        if (n < 0) {
            /* The hub moved on faster than this thread scanned: subscribers it did not see are
             * checked one by one (those left behind are told so). */
            s->scanned = hub_floor(s->hub);
            for (struct ws_conn *c = s->conns; c; c = c->next) {
                c->wants_write = true;
                lws_callback_on_writable(c->wsi);
            }
            continue;
        }
        if (n == 0)
            return;
        match_batch(s, items, n);
        s->scanned = items[n - 1]->seq;
        for (int i = 0; i < n; i++)
            hub_item_unref(items[i]);
    }
}
