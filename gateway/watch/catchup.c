/* Bringing a watch up to date from the database, when the hub no longer holds (or never held) what
 * follows its resourceVersion: after a restart, after a long absence, or across changes made while
 * nobody watched objects. Events and Commands are replayed as they were recorded; other objects are
 * resent as they are now (MODIFIED when they changed since), and those gone since come as DELETED,
 * in resourceVersion order: the client ends where a fresh list would put it, without listing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/event.h"
#include "adapters/objects/command.h"
#include "adapters/objects/podgroup.h"
#include "common/clock.h"
#include "common/grow.h"
#include "common/hashmap.h"
#include "gateway/watch/internal.h"
#include "store/changes.h"
#include "store/history.h"
#include "store/store.h"

/* One line to send, ordered by rv. */
struct pending {
    uint64_t rv;
    const char *type;
    json_t *object;
};

struct catch_up {
    struct watch_stream *w;
    struct pending *items;
    size_t n, cap;
    struct hmap present; /* "ns/name" of the objects listed now or already said gone (keys owned) */
    long events_read;    /* rows of the events table replayed, shown or not */
};

/* Adds ns/name to the present set; false when it was there (or memory ran out). */
static bool mark_present(struct catch_up *c, const char *ns, const char *name)
{
    char key[600];
    snprintf(key, sizeof key, "%s/%s", ns, name);
    if (strmap_get(&c->present, key))
        return false;
    char *copy = strdup(key);
    if (!copy || strmap_put(&c->present, copy, copy) != 0) {
        free(copy);
        return false;
    }
    return true;
}

static void free_present(struct catch_up *c)
{
    size_t pos = 0;
    const void *key;
    void *value;
    while (hmap_next(&c->present, &pos, &key, &value))
        free(value);
    hmap_free(&c->present);
}

static int add(struct catch_up *c, uint64_t rv, const char *type, json_t *object)
{
    if (!object)
        return -1;
    if (GROW(c->items, c->cap, c->n + 1, 64) != 0) {
        json_decref(object);
        return -1;
    }
    c->items[c->n++] = (struct pending){rv, type, object};
    return 0;
}

static int by_rv(const void *a, const void *b)
{
    const struct pending *x = a, *y = b;
    return x->rv < y->rv ? -1 : x->rv > y->rv;
}

static uint64_t rv_of(const json_t *object)
{
    const char *rv = json_string_value(json_object_get(json_object_get(object, "metadata"), "resourceVersion"));
    return rv ? strtoull(rv, NULL, 10) : 0;
}

/* What is left of an object gone since: its identity, and the resourceVersion of its last change. */
static json_t *tombstone(const struct watch_stream *w, const struct store_gone_row *row)
{
    char rv[24];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)row->seq);
    json_t *meta = json_pack("{s:s, s:s}", "name", row->name, "resourceVersion", rv);
    if (meta && *row->ns)
        json_object_set_new(meta, "namespace", json_string(row->ns));
    if (meta && *row->uid && strcmp(w->kind, "Pod") != 0)
        json_object_set_new(meta, "uid", json_string(row->uid));
    return json_pack("{s:s, s:s, s:o}", "apiVersion", w->api_version, "kind", w->kind, "metadata", meta);
}

/* The kind whose deletions the events table records for this watch's objects. */
static const char *deleted_kind(const struct watch_stream *w)
{
    if (strcmp(w->kind, "Queue") == 0 || strcmp(w->kind, "PriorityClass") == 0 ||
        strcmp(w->kind, "ResourceQuota") == 0 || strcmp(w->kind, "Companion") == 0 || strcmp(w->kind, "CronJob") == 0 ||
        strcmp(w->kind, "ConfigMap") == 0 || strcmp(w->kind, "Secret") == 0 || strcmp(w->kind, "JobFlow") == 0 ||
        strcmp(w->kind, "JobTemplate") == 0)
        return w->kind;
    return strcmp(w->kind, "Node") == 0 || strcmp(w->kind, "Pod") == 0 ? NULL : "Job"; /* jobs, dialects, PodGroups */
}

/* Whether a job gone since (posted as source_kind, "" for a Volcano Job) was one of the watched objects. */
static bool job_watched(const struct watch_stream *w, const char *source_kind)
{
    if (strcmp(w->kind, "Job") == 0)
        return !w->source_kind || strcmp(source_kind, w->source_kind) == 0;
    const char *deleted = deleted_kind(w);
    if (strcmp(w->kind, "PodGroup") == 0 || !deleted || strcmp(deleted, "Job") != 0)
        return true;
    return strcmp(source_kind, w->kind) == 0; /* a dialect's objects */
}

static int gone(void *ctx, const struct store_gone_row *row)
{
    struct catch_up *c = ctx;
    struct watch_stream *w = c->w;
    char pg[PODGROUP_NAME_MAX];
    struct store_gone_row named = *row; /* a job gone: its PodGroup's name */
    if (strcmp(w->kind, "PodGroup") == 0 && *row->uid)
        named.name = podgroup_name(row->name, row->uid, pg);
    row = &named;
    if (!job_watched(w, row->source_kind) || !watch_may_see(w, row->ns, false) || !mark_present(c, row->ns, row->name))
        return 0;
    json_t *object = tombstone(w, row);
    if (!object || !selector_match_object(NULL, &w->fields, w->kind, object)) {
        json_decref(object);
        return object ? 0 : -1;
    }
    return add(c, row->seq, "DELETED", object);
}

/* The list now: every object that changed since the cursor, MODIFIED; then what is gone. */
static int objects(struct catch_up *c, struct store_reader *r, struct api_status *st)
{
    struct watch_stream *w = c->w;
    json_t *body;
    uint64_t now;
    if (watch_list_now(w, &body, &now, st) != 0)
        return -1;
    size_t i;
    json_t *item;
    int rc = 0;
    json_array_foreach(json_object_get(body, "items"), i, item)
    {
        const json_t *meta = json_object_get(item, "metadata");
        const char *ns = json_string_value(json_object_get(meta, "namespace"));
        const char *name = json_string_value(json_object_get(meta, "name"));
        mark_present(c, ns ? ns : "", name ? name : "");
        uint64_t rv = rv_of(item);
        if (rv > w->cursor && selector_match_object(&w->labels, &w->fields, w->kind, item))
            rc |= add(c, rv, "MODIFIED", json_incref(item));
    }
    json_decref(body);
    const char *kind = deleted_kind(w);
    if (rc == 0 && kind)
        rc = store_deleted_between(r, w->cursor, now, kind, w->ns, gone, c, st);
    if (rc == 0 && strcmp(w->kind, "Pod") == 0)
        rc = store_pods_of_jobs_changed_between(r, w->cursor, now, w->ns, gone, c, st);
    if (rc != 0 && !st->code)
        api_fail(st, 500, "InternalError", "out of memory catching the watch up");
    w->cursor = now;
    return rc;
}

static int event_row(void *ctx, const struct event_view *row)
{
    struct catch_up *c = ctx;
    c->events_read++;
    if (!watch_may_see(c->w, row->ns, true))
        return 0;
    json_t *event = event_render_as(row, c->w->api_version);
    if (event && selector_match_object(&c->w->labels, &c->w->fields, "Event", event))
        return add(c, row->seq, "ADDED", event);
    json_decref(event);
    return event ? 0 : -1;
}

static int history_row(void *ctx, const struct event_view *row)
{
    struct history_changes *changed = ctx;
    return history_changes_note(changed, row->job_uid, row->seq, strcmp(row->kind, "Job") == 0 && !*row->from);
}

static int command_row(void *ctx, uint64_t seq, const char *json)
{
    struct catch_up *c = ctx;
    json_t *cmd = json_loads(json, 0, NULL);
    const char *ns = json_string_value(json_object_get(json_object_get(cmd, "metadata"), "namespace"));
    if (!watch_may_see(c->w, ns ? ns : "", false)) {
        json_decref(cmd);
        return 0;
    }
    command_stamp_record(cmd, seq);
    if (cmd && selector_match_object(&c->w->labels, &c->w->fields, "Command", cmd))
        return add(c, seq, "ADDED", cmd);
    json_decref(cmd);
    return 0;
}

/* Events and Commands: replayed as recorded, up to what is committed now; the hub has the rest. */
static int replay(struct catch_up *c, struct store_reader *r, struct api_status *st)
{
    struct watch_stream *w = c->w;
    uint64_t upto = store_committed_seq(w->gw->store), last;
    if (w->histories) {
        struct history_changes *changed = history_changes_new();
        if (!changed)
            return api_fail(st, 500, "InternalError", "out of memory");
        if (store_events_read(r, w->cursor, upto, w->ns, 0, history_row, changed, &last, st) != 0) {
            history_changes_free(changed);
            return -1;
        }
        if (history_changes_emit(w, changed, st) != 0)
            return -1;
        w->cursor = upto;
        return 0;
    }
    long page = w->gw->list_page_max; /* a replay holds no more than a list page would */
    int rc = w->events ? store_events_read(r, w->cursor, upto, w->ns, page > 0 ? page + 1 : 0, event_row, c, &last, st)
                       : store_commands_between(r, w->cursor, upto, w->ns, command_row, c, st);
    if (rc == 0 && page > 0 && c->events_read > page)
        return api_fail(st, 410, "Expired",
                        "more than %ld events to replay for this watch: list them in pages (limit and continue), "
                        "then watch from the list's resourceVersion",
                        page);
    if (rc == 0)
        w->cursor = upto;
    return rc;
}

/* 410 Expired when the first change after the cursor is older than the history a watch may resume. */
static int check_window(struct watch_stream *w, struct store_reader *r, struct api_status *st)
{
    if (w->cursor == 0)
        return 0;
    bool found;
    int64_t time_ms;
    if (store_first_event_after(r, w->cursor, &found, &time_ms, st) != 0)
        return -1;
    int64_t oldest = clock_wall_ms() - w->gw->watch_window_ms;
    if (!found || time_ms >= oldest)
        return 0;
    return api_fail(st, 410, "Expired",
                    "too old resource version: %llu: changes since then are older than the %lld s a watch may resume "
                    "over; list again",
                    (unsigned long long)w->cursor, (long long)(w->gw->watch_window_ms / 1000));
}

int watch_catch_up(struct watch_stream *w, struct api_status *st)
{
    struct store_reader *r;
    if (store_reader_open(w->gw->db_path, &r, st) != 0)
        return -1;
    struct catch_up c = {.w = w};
    int rc = check_window(w, r, st);
    if (rc == 0)
        rc = w->events || !w->has_list ? replay(&c, r, st) : objects(&c, r, st);
    store_reader_close(r);
    if (c.n > 1)
        qsort(c.items, c.n, sizeof *c.items, by_rv);
    for (size_t i = 0; i < c.n; i++) {
        if (rc == 0)
            watch_append(w, c.items[i].type, c.items[i].object);
        json_decref(c.items[i].object);
    }
    free(c.items);
    free_present(&c);
    return rc;
}
