/* A subscriber's catch-up from the database, for a `since` older than what the hub holds (after a
 * restart, or a long disconnect): one bounded range of the events table at a time, each event as the
 * same JSON the hub's items give (event_view_json), read on the WebSocket thread's own read-only
 * connection (WAL lets it read while the writer writes). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "gateway/watch/hub.h"
#include "gateway/ws/internal.h"
#include "store/history.h"

void ws_backfill_clear(struct ws_conn *c)
{
    for (int i = 0; i < c->backlog_count; i++)
        free(c->backlog[i].json);
    free(c->backlog);
    c->backlog = NULL;
    c->backlog_count = c->backlog_next = 0;
}

struct reading {
    struct ws_conn *c;
    bool out_of_memory;
};

/* store_events_read's callback: keeps the subscriber's events; stops when the backlog is full or
 * memory runs out. */
static int keep(void *ctx, const struct event_view *ev)
{
    struct reading *r = ctx;
    struct ws_conn *c = r->c;
    if (!ws_subscription_matches(&c->sub, ev->kind, ev->ns, ev->name, ev->job_name))
        return 0;
    char *json = event_view_json(ev);
    if (!json) {
        r->out_of_memory = true;
        return 1;
    }
    c->backlog[c->backlog_count++] = (struct ws_backlog_item){ev->seq, json, strlen(json)};
    return c->backlog_count == WS_BACKFILL_EVENTS;
}

int ws_backfill_read(struct ws_conn *c, struct api_status *st)
{
    struct ws_server *s = c->srv;
    ws_backfill_clear(c);
    if (!s->reader && store_reader_open(s->db_path, &s->reader, st) != 0)
        return -1;
    c->backlog = calloc(WS_BACKFILL_EVENTS, sizeof *c->backlog);
    if (!c->backlog)
        return api_fail(st, 500, "InternalError", "out of memory");
    /* Everything up to the hub's head is committed: the range never reaches what may still come. */
    uint64_t head = hub_head(s->hub);
    uint64_t upto = c->cursor + WS_BACKFILL_SPAN < head ? c->cursor + WS_BACKFILL_SPAN : head;
    struct reading r = {c, false};
    if (store_events_read(s->reader, c->cursor, upto, NULL, 0, keep, &r, &c->backlog_upto, st) != 0) {
        ws_backfill_clear(c);
        return -1;
    }
    if (r.out_of_memory) /* the event it stopped at was not kept: the next read starts with it */
        c->backlog_upto--;
    return 0;
}
