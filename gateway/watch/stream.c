/* A watch stream after its start: lines for the hub's items past the cursor that the watch shows,
 * BOOKMARKs when allowed, a bare newline after a long silence (a client that left is found when it
 * fails), and the end at timeoutSeconds, at shutdown, or with a 410 ERROR when the stream fell behind
 * the hub's ring. Runs on the connection's thread and blocks there; never on the core. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/event.h"
#include "common/clock.h"
#include "common/log.h"
#include "gateway/auth/auth.h"
#include "gateway/watch/internal.h"
#include "store/history.h"

#define WAIT_SLICE_MS 1000

void watch_stream_free(void *ctx)
{
    struct watch_stream *w = ctx;
    if (!w)
        return;
    if (w->joined)
        watch_demand_leave(w->gw->watch_demand, clock_mono_ms());
    store_reader_close(w->reader);
    principal_release(w->who);
    selector_free(&w->labels);
    selector_free(&w->fields);
    sbuf_free(&w->out);
    free(w->api_version);
    free(w->kind);
    free(w->source_kind);
    free(w->ns);
    free(w);
}

static void append_bookmark(struct watch_stream *w)
{
    char rv[24];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)w->cursor);
    json_t *mark = json_pack("{s:s, s:s, s:{s:s}}", "kind", w->kind, "apiVersion", w->api_version, "metadata",
                             "resourceVersion", rv);
    watch_append(w, "BOOKMARK", mark);
    json_decref(mark);
}

/* An item's event as a core/v1 Event, when the stream shows it. */
static void append_event(struct watch_stream *w, const struct hub_item *it)
{
    if ((w->ns && strcmp(it->ns, w->ns) != 0) || !watch_may_see(w, it->ns, true))
        return;
    struct event_view ev = hub_item_view(it);
    json_t *event = event_render_as(&ev, w->api_version);
    if (event && selector_match_object(&w->labels, &w->fields, "Event", event))
        watch_append(w, "ADDED", event);
    json_decref(event);
}

/* A hub line ({"type","object"}) for a watch of Tables: its object as a Table of one row. */
static void append_as_table(struct watch_stream *w, const char *line, size_t len)
{
    json_t *event = json_loadb(line, len, 0, NULL);
    const char *type = json_string_value(json_object_get(event, "type"));
    if (type)
        watch_append(w, type, json_object_get(event, "object"));
    json_decref(event);
}

/* What the hub holds past the cursor. Returns false when the stream cannot go on from the hub. */
static bool take_from_hub(struct watch_stream *w)
{
    const struct hub_item *items[WATCH_READ_BATCH];
    int n = hub_read(w->hub, w->cursor, items, WATCH_READ_BATCH);
    if (n < 0) {
        char message[160];
        snprintf(message, sizeof message, "too old resource version: %llu (%llu): the watch fell behind; list again",
                 (unsigned long long)w->cursor, (unsigned long long)hub_floor(w->hub));
        watch_append_error(w, 410, "Expired", message);
        w->ended = true;
        return false;
    }
    struct history_changes *changed = w->histories ? history_changes_new() : NULL;
    int i = 0;
    for (; i < n; i++) {
        const struct hub_item *it = items[i];
        if (!w->events && !w->histories && !it->rendered)
            break; /* changes nobody rendered: the database brings the client past them */
        if (w->events) {
            append_event(w, it);
        } else if (w->histories) {
            bool created = strcmp(it->kind, "Job") == 0 && !*it->from;
            if (!changed || history_changes_note(changed, it->job_uid, it->seq, created) != 0)
                break;
        } else {
            for (const struct watch_object *o = it->objects; o; o = o->next) {
                size_t len;
                const char *line = watch_shows_object(w, it, o) ? hub_object_line(it, o, &len) : NULL;
                if (line && w->table.wanted)
                    append_as_table(w, line, len);
                else if (line)
                    sbuf_append(&w->out, line, len);
            }
        }
        w->cursor = it->seq;
    }
    bool unrendered = i < n;
    for (int k = 0; k < n; k++)
        hub_item_unref(items[k]);
    if (w->histories) {
        struct api_status st = {0};
        if (unrendered || history_changes_emit(w, changed, &st) != 0) {
            if (unrendered) {
                history_changes_free(changed);
                api_fail(&st, 500, "InternalError", "out of memory following job histories");
            }
            watch_append_error(w, st.code, st.reason, st.message);
            w->ended = true;
            return false;
        }
        return true;
    }
    if (unrendered) {
        struct api_status st = {0};
        if (watch_catch_up(w, &st) != 0) {
            watch_append_error(w, st.code, st.reason, st.message);
            w->ended = true;
            return false;
        }
    }
    return true;
}

/* Hands over what is buffered; returns the bytes copied. */
static long drain(struct watch_stream *w, char *buf, size_t max)
{
    size_t left = w->out.len - w->out_sent;
    size_t n = left < max ? left : max;
    memcpy(buf, w->out.data + w->out_sent, n);
    w->out_sent += n;
    if (w->out_sent == w->out.len) {
        w->out.len = 0;
        w->out_sent = 0;
    }
    return (long)n;
}

long watch_stream_read(void *ctx, char *buf, size_t max)
{
    struct watch_stream *w = ctx;
    for (;;) {
        if (w->out.len > w->out_sent) {
            w->next_keepalive_ms = clock_mono_ms() + w->keepalive_ms;
            return drain(w, buf, max);
        }
        if (w->ended || hub_closed(w->hub))
            return -1;
        int64_t now = clock_mono_ms();
        if (now >= w->deadline_ms)
            return -1; /* timeoutSeconds: the client watches again from its last resourceVersion */
        if (w->bookmarks && now >= w->next_bookmark_ms) {
            append_bookmark(w);
            w->next_bookmark_ms = now + w->bookmark_ms;
            continue;
        }
        if (now >= w->next_keepalive_ms) {
            sbuf_puts(&w->out, "\n");
            continue;
        }
        int64_t until = w->deadline_ms < w->next_keepalive_ms ? w->deadline_ms : w->next_keepalive_ms;
        if (w->bookmarks && w->next_bookmark_ms < until)
            until = w->next_bookmark_ms;
        int64_t wait = until - now < WAIT_SLICE_MS ? until - now : WAIT_SLICE_MS;
        if (hub_wait(w->hub, w->cursor, (int)(wait > 0 ? wait : 0)))
            take_from_hub(w);
    }
}
