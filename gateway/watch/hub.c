/* The hub's ring of committed items: published by the store writer under one mutex, read by
 * reference. An item's strings live in one block with it; its watch objects (taken from the journal
 * entry) are serialized once, at publish, into the lines the watch streams send. */
#include "gateway/watch/hub.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"

struct item {
    struct hub_item pub; /* first: readers see only this */
    struct hub *hub;     /* whose byte budget it counts against */
    bool in_ring;        /* still counted there (under the hub's mutex) */
    _Atomic int refs;    /* the ring's own, plus one per reader holding it */
    size_t bytes;        /* what it costs the ring's byte budget */
    struct watch_object *watch;
    char **lines; /* one per watch object, in list order */
    size_t *line_lens;
    _Atomic(char *) event_json;
    char strings[]; /* the event's strings, back to back */
};

struct hub {
    pthread_mutex_t mu;
    pthread_cond_t published; /* CLOCK_MONOTONIC */
    struct item **ring;       /* capacity slots; the live items are [first, first + count) mod capacity */
    size_t capacity, first, count;
    size_t max_bytes, bytes;
    uint64_t floor; /* the highest seq no longer held */
    uint64_t head;  /* the newest seq published */
    bool closed;
    pthread_mutex_t notify_mu; /* held while notify runs, so hub_set_notify() waits for it */
    void (*notify)(void *ctx);
    void *notify_ctx;
};

static struct item *item_of(const struct hub_item *it) { return (struct item *)it; }

/* Frees the item's watch objects and their lines (the lines array ends with NULL). */
static void drop_objects(struct item *it)
{
    for (size_t i = 0; it->lines && it->lines[i]; i++)
        free(it->lines[i]);
    free(it->lines);
    free(it->line_lens);
    it->lines = NULL;
    it->line_lens = NULL;
    watch_objects_free(it->watch);
    it->watch = NULL;
}

static void item_free(struct item *it)
{
    drop_objects(it);
    free(atomic_load(&it->event_json));
    free(it);
}

void hub_item_unref(const struct hub_item *pub)
{
    struct item *it = item_of(pub);
    if (atomic_fetch_sub_explicit(&it->refs, 1, memory_order_acq_rel) == 1)
        item_free(it);
}

struct hub *hub_new(size_t max_items, size_t max_bytes)
{
    struct hub *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->capacity = max_items > 0 ? max_items : 1;
    h->max_bytes = max_bytes;
    h->ring = calloc(h->capacity, sizeof *h->ring);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (!h->ring || pthread_mutex_init(&h->mu, NULL) != 0 || pthread_mutex_init(&h->notify_mu, NULL) != 0 ||
        pthread_cond_init(&h->published, &attr) != 0) {
        pthread_condattr_destroy(&attr);
        free(h->ring);
        free(h);
        return NULL;
    }
    pthread_condattr_destroy(&attr);
    return h;
}

void hub_free(struct hub *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->count; i++)
        hub_item_unref(&h->ring[(h->first + i) % h->capacity]->pub);
    free(h->ring);
    pthread_cond_destroy(&h->published);
    pthread_mutex_destroy(&h->notify_mu);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

void hub_set_floor(struct hub *h, uint64_t seq)
{
    pthread_mutex_lock(&h->mu);
    if (h->count == 0) {
        h->floor = seq;
        h->head = seq;
    }
    pthread_mutex_unlock(&h->mu);
}

void hub_set_notify(struct hub *h, void (*fn)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&h->notify_mu);
    h->notify = fn;
    h->notify_ctx = ctx;
    pthread_mutex_unlock(&h->notify_mu);
}

void hub_close(struct hub *h)
{
    pthread_mutex_lock(&h->mu);
    h->closed = true;
    pthread_cond_broadcast(&h->published);
    pthread_mutex_unlock(&h->mu);
}

bool hub_closed(struct hub *h)
{
    pthread_mutex_lock(&h->mu);
    bool closed = h->closed;
    pthread_mutex_unlock(&h->mu);
    return closed;
}

void hub_stats(struct hub *h, size_t *items, size_t *bytes)
{
    pthread_mutex_lock(&h->mu);
    *items = h->count;
    *bytes = h->bytes;
    pthread_mutex_unlock(&h->mu);
}

uint64_t hub_head(struct hub *h)
{
    pthread_mutex_lock(&h->mu);
    uint64_t head = h->head;
    pthread_mutex_unlock(&h->mu);
    return head;
}

uint64_t hub_floor(struct hub *h)
{
    pthread_mutex_lock(&h->mu);
    uint64_t floor = h->floor;
    pthread_mutex_unlock(&h->mu);
    return floor;
}

/* --- publishing ------------------------------------------------------------- */

static const char *type_name(enum watch_type t)
{
    return t == WATCH_ADDED ? "ADDED" : t == WATCH_DELETED ? "DELETED" : "MODIFIED";
}

/* Serializes every watch object of the item; false when memory runs out (the item then goes without
 * its objects rather than with some missing). */
static bool serialize_objects(struct item *it)
{
    size_t n = 0;
    for (const struct watch_object *w = it->watch; w; w = w->next)
        n++;
    if (n == 0)
        return true;
    it->lines = calloc(n + 1, sizeof *it->lines);
    it->line_lens = calloc(n, sizeof *it->line_lens);
    if (!it->lines || !it->line_lens)
        return false;
    size_t i = 0;
    for (const struct watch_object *w = it->watch; w; w = w->next, i++) {
        json_t *event = json_pack("{s:s, s:O}", "type", type_name(w->type), "object", w->object);
        char *text = event ? json_dumps(event, JSON_COMPACT) : NULL;
        json_decref(event);
        if (!text)
            return false;
        size_t len = strlen(text);
        char *line = realloc(text, len + 2);
        if (!line) {
            free(text);
            return false;
        }
        line[len] = '\n';
        line[len + 1] = '\0';
        it->lines[i] = line;
        it->line_lens[i] = len + 1;
        it->bytes += len + 1 + sizeof(struct watch_object);
    }
    /* Only the text stays: a tree costs five or six times it. Label selectors keep what they read. */
    for (struct watch_object *w = it->watch; w; w = w->next) {
        json_t *labels = json_object_get(json_object_get(w->object, "metadata"), "labels");
        w->labels = json_is_object(labels) ? json_incref(labels) : NULL;
        it->bytes += w->labels ? json_object_size(w->labels) * 128 : 0;
        json_decref(w->object);
        w->object = NULL;
    }
    return true;
}

static const char *or_empty(const char *s) { return s ? s : ""; }

/* A new item for a committed entry, taking its watch objects; NULL when memory runs out. */
static struct item *item_from_entry(struct hub *h, struct journal_entry *e)
{
    const struct journal_event *ev = &e->ev;
    const char *fields[] = {or_empty(ev->kind),     or_empty(ev->ns),       or_empty(ev->name),
                            or_empty(ev->job_uid),  or_empty(ev->job_name), or_empty(ev->from_phase),
                            or_empty(ev->to_phase), or_empty(ev->reason),   or_empty(ev->message),
                            or_empty(ev->uid)};
    enum { NFIELDS = sizeof fields / sizeof fields[0] };
    size_t lens[NFIELDS], total = 0;
    for (int i = 0; i < NFIELDS; i++)
        total += (lens[i] = strlen(fields[i])) + 1;
    struct item *it = calloc(1, sizeof *it + total);
    if (!it)
        return NULL;
    const char *copies[NFIELDS];
    char *p = it->strings;
    for (int i = 0; i < NFIELDS; i++) {
        memcpy(p, fields[i], lens[i] + 1);
        copies[i] = p;
        p += lens[i] + 1;
    }
    it->pub = (struct hub_item){.seq = ev->seq,
                                .time_ms = ev->time_ms,
                                .kind = copies[0],
                                .ns = copies[1],
                                .name = copies[2],
                                .job_uid = copies[3],
                                .job_name = copies[4],
                                .from = copies[5],
                                .to = copies[6],
                                .reason = copies[7],
                                .message = copies[8],
                                .uid = copies[9]};
    atomic_init(&it->refs, 1);
    it->hub = h;
    atomic_init(&it->event_json, NULL);
    it->bytes = sizeof *it + total;
    it->watch = e->watch;
    it->pub.rendered = e->watch_rendered;
    e->watch = e->watch_tail = NULL;
    if (!serialize_objects(it)) {
        it->pub.rendered = false; /* a stream that needs them catches up instead */
        log_warn("hub: out of memory serializing the objects of event %llu; watches miss them",
                 (unsigned long long)ev->seq);
        drop_objects(it);
    }
    it->pub.objects = it->watch;
    return it;
}

#ifndef NDEBUG
/* The ring's invariants, for asserts (under mu): indices in range, the items in seq order above the
 * floor, the newest at head. */
static bool ring_consistent(const struct hub *h)
{
    if (h->first >= h->capacity || h->count > h->capacity || h->floor > h->head)
        return false;
    if (h->count == 0)
        return true;
    const struct item *oldest = h->ring[h->first];
    const struct item *newest = h->ring[(h->first + h->count - 1) % h->capacity];
    return oldest && newest && oldest->pub.seq > h->floor && oldest->pub.seq <= newest->pub.seq &&
           newest->pub.seq == h->head;
}
#endif

/* Drops the oldest item (under mu). */
static void evict_oldest(struct hub *h)
{
    assert(h->count > 0);
    struct item *old = h->ring[h->first];
    assert(old && h->bytes >= old->bytes);
    h->ring[h->first] = NULL;
    h->first = (h->first + 1) % h->capacity;
    h->count--;
    h->bytes -= old->bytes;
    old->in_ring = false;
    h->floor = old->pub.seq;
    hub_item_unref(&old->pub);
}

void hub_publish(void *ctx, struct journal_list *committed)
{
    struct hub *h = ctx;
    bool any = false;
    for (struct journal_entry *e = committed->head; e; e = e->next) {
        struct item *it = item_from_entry(h, e);
        pthread_mutex_lock(&h->mu);
        if (!it) { /* a hole the readers must not step over unknowingly */
            while (h->count > 0)
                evict_oldest(h);
            h->floor = h->head = e->ev.seq > h->head ? e->ev.seq : h->head;
            pthread_mutex_unlock(&h->mu);
            log_warn("hub: out of memory: event %llu is missing from the live streams; followers start over",
                     (unsigned long long)e->ev.seq);
            continue;
        }
        if (h->count == h->capacity)
            evict_oldest(h);
        assert(it->pub.seq > h->head); /* published in commit order */
        h->ring[(h->first + h->count) % h->capacity] = it;
        it->in_ring = true;
        h->count++;
        h->bytes += it->bytes;
        while (h->count > 1 && h->bytes > h->max_bytes)
            evict_oldest(h);
        if (it->pub.seq > h->head)
            h->head = it->pub.seq;
        assert(ring_consistent(h));
        pthread_mutex_unlock(&h->mu);
        any = true;
    }
    if (!any)
        return;
    pthread_mutex_lock(&h->mu);
    pthread_cond_broadcast(&h->published);
    pthread_mutex_unlock(&h->mu);
    /* Under notify_mu, not a copy of the pointer called after unlocking: the WebSocket server frees
     * what ctx points to once hub_set_notify(NULL) has returned. */
    pthread_mutex_lock(&h->notify_mu);
    if (h->notify)
        h->notify(h->notify_ctx);
    pthread_mutex_unlock(&h->notify_mu);
}

/* --- reading ------------------------------------------------------------------ */

/* Index (from first) of the first item with seq > after: the ring is in seq order. */
static size_t first_after(const struct hub *h, uint64_t after)
{
    size_t lo = 0, hi = h->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->ring[(h->first + mid) % h->capacity]->pub.seq <= after)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int hub_read(struct hub *h, uint64_t after, const struct hub_item **out, int max)
{
    pthread_mutex_lock(&h->mu);
    assert(ring_consistent(h));
    if (after < h->floor) {
        pthread_mutex_unlock(&h->mu);
        return -1;
    }
    int n = 0;
    for (size_t i = first_after(h, after); i < h->count && n < max; i++) {
        struct item *it = h->ring[(h->first + i) % h->capacity];
        atomic_fetch_add_explicit(&it->refs, 1, memory_order_relaxed);
        out[n++] = &it->pub;
    }
    pthread_mutex_unlock(&h->mu);
    return n;
}

bool hub_wait(struct hub *h, uint64_t after, int timeout_ms)
{
    struct timespec deadline = clock_deadline(CLOCK_MONOTONIC, timeout_ms);
    pthread_mutex_lock(&h->mu);
    while (h->head <= after && !h->closed)
        if (pthread_cond_timedwait(&h->published, &h->mu, &deadline) == ETIMEDOUT)
            break;
    bool newer = h->head > after;
    pthread_mutex_unlock(&h->mu);
    return newer;
}

/* --- what readers send -------------------------------------------------------- */

struct event_view hub_item_view(const struct hub_item *it)
{
    return (struct event_view){it->seq,      it->time_ms, it->kind, it->ns,     it->name,    it->job_uid,
                               it->job_name, it->from,    it->to,   it->reason, it->message, it->uid};
}

const char *hub_item_event_json(const struct hub_item *pub, size_t *len)
{
    struct item *it = item_of(pub);
    char *text = atomic_load_explicit(&it->event_json, memory_order_acquire);
    if (!text) {
        struct event_view view = hub_item_view(pub);
        char *made = event_view_json(&view);
        if (!made)
            return NULL;
        char *expected = NULL;
        if (atomic_compare_exchange_strong(&it->event_json, &expected, made)) {
            text = made;
            pthread_mutex_lock(&it->hub->mu); /* the WebSocket streams' copy counts too */
            if (it->in_ring) {
                it->bytes += strlen(made) + 1;
                it->hub->bytes += strlen(made) + 1;
            }
            pthread_mutex_unlock(&it->hub->mu);
        } else { /* another reader made it first */
            free(made);
            text = expected;
        }
    }
    if (len)
        *len = strlen(text);
    return text;
}

const char *hub_object_line(const struct hub_item *pub, const struct watch_object *w, size_t *len)
{
    const struct item *it = item_of(pub);
    size_t i = 0;
    for (const struct watch_object *o = it->watch; o; o = o->next, i++) {
        if (o == w) {
            if (len)
                *len = it->line_lens[i];
            return it->lines[i];
        }
    }
    return NULL;
}
