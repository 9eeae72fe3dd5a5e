/* core/v1 Events over HTTP: every recorded change (a job's and its pods' phases, scheduling
 * decisions, commands, denials...) as `kubectl get events` lists them, from the database in sequence
 * order with pages (`limit`, `continue`), or watched (`?watch=true`) live from the hub. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/event.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"
#include "gateway/watch/selector.h"
#include "gateway/watch/watch.h"
#include "store/changes.h"
#include "store/history.h"
#include "store/store.h"

#define EVENTS_PAGE_MAX 100000

struct page {
    const char *api_version; /* v1 or events.k8s.io/v1 */
    json_t *items;
    struct selector fields;
    const struct namespace_set *visible; /* the caller's namespaces (NULL: every one) */
};

static int add_event(void *ctx, const struct event_view *row)
{
    struct page *p = ctx;
    if (!namespace_set_sees_event(p->visible, row->ns))
        return 0;
    json_t *event = event_render_as(row, p->api_version);
    if (!event)
        return -1;
    if (selector_match_fields(&p->fields, "Event", event))
        json_array_append(p->items, event);
    json_decref(event);
    return 0;
}

/* limit and continue: a page of at most limit events after the token's sequence number. */
static int read_page_params(struct http_req *req, long *limit, uint64_t *after, struct api_status *st)
{
    const char *l = http_query(req, "limit"), *c = http_query(req, "continue");
    char *end;
    *limit = 0;
    *after = 0;
    if (l && *l) {
        *limit = strtol(l, &end, 10);
        if (*end || *limit < 0 || *limit > EVENTS_PAGE_MAX)
            return api_fail(st, 400, "BadRequest", "limit must be an integer from 0 to %d, not \"%s\"", EVENTS_PAGE_MAX,
                            l);
    }
    int32_t page = req->gw->list_page_max; /* a page at most, also without limit, as the core's lists */
    if (page > 0 && (*limit == 0 || *limit > page))
        *limit = page;
    if (c && *c) {
        *after = strtoull(c, &end, 10);
        if (*end || c[0] == '-')
            return api_fail(st, 400, "BadRequest", "continue: \"%s\" is not a token this server gave", c);
    }
    return 0;
}

static void events(struct http_req *req, const char *api_version, const char *ns)
{
    if (watch_requested(req)) {
        watch_serve(req, NULL, &(struct list_kind){api_version, "Event", NULL}, ns);
        return;
    }
    struct api_status st = {0};
    struct page p = {.api_version = api_version, .visible = gateway_visible(req)};
    long limit;
    uint64_t after, last;
    int64_t remaining = 0; /* remainingItemCount: only without a fieldSelector, and where every event counts */
    char why[512];
    if (read_page_params(req, &limit, &after, &st) != 0 ||
        (selector_parse(http_query(req, "fieldSelector"), true, &p.fields, why, sizeof why) != 0 &&
         api_fail(&st, 400, "BadRequest", "%s", why))) {
        http_respond_status(req, &st);
        return;
    }
    uint64_t upto = store_committed_seq(req->gw->store); /* the list's resourceVersion: a watch goes on from it */
    struct store_reader *r = NULL;
    p.items = json_array();
    if (!p.items || store_reader_open(req->gw->db_path, &r, &st) != 0 ||
        store_events_read(r, after, upto, ns, limit, add_event, &p, &last, &st) != 0 ||
        (last < upto && p.fields.nterms == 0 && (ns || namespace_set_all(p.visible)) &&
         store_events_count(r, last, upto, ns, &remaining, &st) != 0)) {
        if (!st.code)
            api_fail(&st, 500, "InternalError", "out of memory listing events");
        json_decref(p.items);
        store_reader_close(r);
        selector_free(&p.fields);
        http_respond_status(req, &st);
        return;
    }
    store_reader_close(r);
    selector_free(&p.fields);
    char rv[24], next[24];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)upto);
    json_t *meta = json_pack("{s:s}", "resourceVersion", rv);
    if (last < upto) { /* the limit stopped it: the next page starts after the last one read */
        snprintf(next, sizeof next, "%llu", (unsigned long long)last);
        json_object_set_new(meta, "continue", json_string(next));
        if (remaining > 0)
            json_object_set_new(meta, "remainingItemCount", json_integer((json_int_t)remaining));
    }
    http_respond_json(req, 200,
                      json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", api_version, "kind", "EventList", "metadata",
                                meta, "items", p.items));
}

void handle_event_list(struct http_req *req) { events(req, EVENT_API_VERSION, req->params[0]); }
void handle_event_list_all(struct http_req *req) { events(req, EVENT_API_VERSION, NULL); }
void handle_events_v1_list(struct http_req *req) { events(req, EVENTS_V1_API_VERSION, req->params[0]); }
void handle_events_v1_list_all(struct http_req *req) { events(req, EVENTS_V1_API_VERSION, NULL); }
