/* Starting a watch: its parameters (resourceVersion, timeoutSeconds, allowWatchBookmarks,
 * sendInitialEvents, labelSelector, fieldSelector), where it starts (the list as it is now, a
 * resourceVersion the hub still holds, or an older one caught up from the database), then the stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "gateway/auth/auth.h"
#include "gateway/http/query_params.h"
#include "gateway/watch/selector.h"
#include "gateway/watch/internal.h"
#include "gateway/watch/watch.h"
#include "store/store.h"

#define TOO_NEW_WAIT_MS 3000 /* a resourceVersion ahead of the hub may be committing: wait this long */

static bool flag(const struct http_req *req, const char *name) { return query_flag(req, name); }

bool watch_requested(const struct http_req *req) { return query_flag(req, "watch"); }

/* A non-negative integer parameter; absent leaves *out. Returns 0, or -1 with a 400 in st. */
static int uint_param(const struct http_req *req, const char *name, uint64_t max, uint64_t *out, struct api_status *st)
{
    const char *v = http_query(req, name);
    if (!v)
        return 0;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (!*v || *end || v[0] == '-' || n > max)
        return api_fail(st, 400, "BadRequest", "%s must be a non-negative integer (at most %llu), not \"%s\"", name,
                        (unsigned long long)max, v);
    *out = n;
    return 0;
}

static struct watch_stream *stream_new(struct http_req *req, const struct core_request *creq,
                                       const struct list_kind *kind, const char *ns)
{
    struct watch_stream *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->gw = req->gw;
    w->core = req->gw->core;
    w->hub = req->gw->hub;
    w->api_version = strdup(kind->api_version);
    w->kind = strdup(kind->kind);
    w->source_kind = kind->source_kind ? strdup(kind->source_kind) : NULL;
    w->events = strcmp(kind->kind, "Event") == 0;
    w->histories = strcmp(kind->kind, "JobHistory") == 0;
    if (creq)
        ns = creq->ns;
    w->ns = ns ? strdup(ns) : NULL;
    w->who = principal_ref(req->who);
    w->visible = req->gw->auth ? principal_visible(w->who) : NULL;
    if (creq) {
        w->list = *creq;
        w->list.nselectors = 0; /* the stream matches the full selectors itself */
        w->list.ns = w->ns;
        w->list.visible = w->visible; /* a list across namespaces: the watcher's own */
        w->has_list = true;
    }
    if (!w->api_version || !w->kind || (kind->source_kind && !w->source_kind) || (ns && !w->ns)) {
        watch_stream_free(w);
        return NULL;
    }
    return w;
}

static int read_params(struct http_req *req, struct watch_stream *w, struct api_status *st)
{
    char why[512];
    if (selector_parse(http_query(req, "labelSelector"), false, &w->labels, why, sizeof why) != 0 ||
        selector_parse(http_query(req, "fieldSelector"), true, &w->fields, why, sizeof why) != 0)
        return api_fail(st, 400, "BadRequest", "%s", why);
    if (table_view_read(http_header(req, "Accept"), http_query(req, "includeObject"), &w->table, st) != 0)
        return -1;
    /* A watch of one object lists one. Not by labels: a catch-up says DELETED of what its list lacks. */
    gateway_narrow_list(&w->list, &w->labels, &w->fields);
    w->list.nselectors = 0;
    uint64_t timeout_s = WATCH_DEFAULT_TIMEOUT_S;
    if (uint_param(req, "timeoutSeconds", 86400 * 7, &timeout_s, st) != 0)
        return -1;
    int64_t now = clock_mono_ms();
    w->deadline_ms = now + (int64_t)timeout_s * 1000;
    w->bookmarks = flag(req, "allowWatchBookmarks");
    w->bookmark_ms = w->gw->watch_bookmark_ms > 0 ? w->gw->watch_bookmark_ms : 10000;
    w->next_bookmark_ms = now + w->bookmark_ms;
    w->keepalive_ms = WATCH_KEEPALIVE_MS;
    if (w->gw->client_timeout_s > 0 && w->gw->client_timeout_s * 1000 / 2 < w->keepalive_ms)
        w->keepalive_ms = w->gw->client_timeout_s * 1000 / 2;
    w->next_keepalive_ms = now + w->keepalive_ms;
    return 0;
}

static const char *meta_string(const json_t *meta, const char *key)
{
    const char *v = json_string_value(json_object_get(meta, key));
    return v ? v : "";
}

/* The list as it is now, every item ADDED, then the stream goes on from the list's resourceVersion. */
static int initial_list(struct watch_stream *w, struct api_status *st)
{
    if (!w->has_list) { /* Commands: never kept, so nothing to list */
        w->cursor = hub_head(w->hub);
        return 0;
    }
    json_t *body;
    if (watch_list_now(w, &body, &w->cursor, st) != 0)
        return -1;
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(body, "items"), i, item)
    {
        struct watch_object probe = {
            .api_version = w->api_version, .kind = w->kind, .source_kind = w->source_kind, .object = item};
        json_t *meta = json_object_get(item, "metadata");
        probe.ns = (char *)meta_string(meta, "namespace");
        probe.name = (char *)meta_string(meta, "name");
        if (watch_shows_object(w, NULL, &probe))
            watch_append(w, "ADDED", item);
    }
    json_decref(body);
    return 0;
}

/* Where a watch from resourceVersion n starts: the hub still holds what follows n (replayed from
 * there), or the database must bring the client up to date (watch_catch_up: also 410 when n is older
 * than the history kept). A resourceVersion the server has not reached is waited for a moment, then
 * refused as Kubernetes does (504, ResourceVersionTooLarge). */
static int start_from(struct watch_stream *w, uint64_t n, struct api_status *st)
{
    if (n > hub_head(w->hub) && !hub_wait(w->hub, n - 1, TOO_NEW_WAIT_MS)) {
        api_fail(st, 504, "Timeout", "Too large resource version: %llu, current: %llu", (unsigned long long)n,
                 (unsigned long long)hub_head(w->hub));
        api_add_cause(st, "", "ResourceVersionTooLarge", 0, 0, "Too large resource version");
        return -1;
    }
    w->cursor = n;
    if (!w->events && !w->histories && n >= hub_floor(w->hub))
        return 0;
    return watch_catch_up(w, st);
}

void watch_serve(struct http_req *req, const struct core_request *creq, const struct list_kind *kind, const char *ns)
{
    struct api_status st = {0};
    struct watch_stream *w = stream_new(req, creq, kind, ns);
    if (!w) {
        api_fail(&st, 500, "InternalError", "out of memory starting the watch");
        http_respond_status(req, &st);
        return;
    }
    if (!w->events && !w->histories && w->gw->watch_demand) { /* before the list: changes after it are rendered */
        watch_demand_join(w->gw->watch_demand);
        w->joined = true;
    }
    const char *rv = http_query(req, "resourceVersion");
    uint64_t n = 0;
    int rc = read_params(req, w, &st);
    if (rc == 0 && rv && *rv && strcmp(rv, "0") != 0) {
        rc = uint_param(req, "resourceVersion", UINT64_MAX, &n, &st);
        if (rc == 0)
            rc = start_from(w, n, &st);
    } else if (rc == 0) {
        rc = w->events ? start_from(w, 0, &st) : w->histories ? watch_history_initial(w, &st) : initial_list(w, &st);
        if (rc == 0 && w->bookmarks && flag(req, "sendInitialEvents")) { /* Kubernetes' streaming list */
            json_t *mark = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}}", "kind", w->kind, "apiVersion", w->api_version,
                                     "metadata", "resourceVersion", "", "annotations", "k8s.io/initial-events-end",
                                     "true");
            char cursor[24];
            snprintf(cursor, sizeof cursor, "%llu", (unsigned long long)w->cursor);
            json_object_set_new(json_object_get(mark, "metadata"), "resourceVersion", json_string(cursor));
            watch_append(w, "BOOKMARK", mark);
            json_decref(mark);
        }
    }
    if (rc != 0) {
        http_respond_status(req, &st);
        watch_stream_free(w);
        return;
    }
    http_respond_stream(req, "application/json", watch_stream_read, w, watch_stream_free);
}
