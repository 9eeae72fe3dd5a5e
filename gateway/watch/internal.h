/* A watch stream's state, shared by the files that start it (watch.c), feed it from the hub
 * (stream.c), bring a client up to date from the database (catchup.c, list_now.c, history.c) and
 * write its lines (lines.c). Declared bottom up: each file calls only those declared above its own. */
#ifndef CALDERA_WATCH_INTERNAL_H
#define CALDERA_WATCH_INTERNAL_H

#include <stdint.h>

#include "common/namespace_set.h"
#include "common/sbuf.h"
#include "gateway/http/http.h"
#include "gateway/table/table.h"
#include "gateway/watch/hub.h"
#include "gateway/watch/selector.h"
#include "scheduler/core/core.h"

#define WATCH_KEEPALIVE_MS 15000 /* a bare newline after this much silence: finds clients that left */
#define WATCH_DEFAULT_TIMEOUT_S 1800
#define WATCH_READ_BATCH 256 /* hub items taken at once */

struct watch_stream {
    struct gateway *gw;
    struct core *core;
    struct hub *hub;
    /* what it shows */
    char *api_version, *kind, *source_kind; /* source_kind NULL: every Job */
    char *ns;                               /* NULL: every namespace */
    struct principal *who;                  /* who watches (a reference of the stream's own; NULL without auth) */
    const struct namespace_set *visible;    /* the namespaces it may see (NULL: every one); who's */
    bool events;                            /* a watch of core/v1 Events: built from the hub items' events */
    bool histories;                         /* a watch of caldera.io JobHistories: read from the database per change */
    struct store_reader *reader;            /* the histories' own read connection, opened on first use */
    struct core_request list;               /* the list it watches (op, ns, dialect, view), for catching up */
    bool has_list;
    struct selector labels, fields;
    struct table_view table; /* kubectl get -w: each object shown as a Table of one row */
    /* where it is */
    uint64_t cursor; /* the last sequence number the client has been brought past */
    struct sbuf out; /* lines not yet handed to the connection */
    size_t out_sent;
    bool ended; /* after out drains, the stream ends */
    bool bookmarks;
    bool joined;                                                            /* counted in the watch demand */
    int64_t deadline_ms, next_bookmark_ms, next_keepalive_ms, keepalive_ms; /* monotonic */
    int64_t bookmark_ms;                                                    /* the interval between BOOKMARKs */
};

/* list_now.c: the watched list as it is now (the core's answer, once durable): its body (caller
 * decrefs) and its resourceVersion. Returns 0, or -1 with the Status in st: 410 Expired when it
 * holds more than a list page (gw->list_page_max) of Jobs, PodGroups or Pods, which a client then
 * lists in pages before watching from that list's resourceVersion. */
int watch_list_now(struct watch_stream *w, json_t **body, uint64_t *rv, struct api_status *st);

/* lines.c */
/* Whether the stream shows this object (its kind, namespace and selectors). An object of the hub
 * (it: its item) has only its text and labels: a field selector reads the text again. */
bool watch_shows_object(const struct watch_stream *w, const struct hub_item *it, const struct watch_object *o);
/* Whether the watcher may see objects or events of namespace ns: its namespaces; "" (cluster-scoped)
 * for objects, always (their lists are readable by all), for events, only with every namespace
 * (they name users, tokens, every tenant's queues). */
bool watch_may_see(const struct watch_stream *w, const char *ns, bool event);
/* Appends one {"type","object"} line. */
void watch_append(struct watch_stream *w, const char *type, const json_t *object);
/* Appends the ERROR line a Kubernetes watch ends with: a Status with code and reason. */
void watch_append_error(struct watch_stream *w, int code, const char *reason, const char *message);

/* history.c: JobHistories, which the database holds, changed by the jobs' events. */
struct history_changes;
/* A new set of changed jobs; NULL when memory runs out. */
struct history_changes *history_changes_new(void);
void history_changes_free(struct history_changes *c);
/* A job's event at seq (created: the job's creation). */
int history_changes_note(struct history_changes *c, const char *job_uid, uint64_t seq, bool created);
/* Appends each changed job's JobHistory as it is now (ADDED when created among the changes, else
 * MODIFIED), in the order of their last change, and frees the set. Returns 0, or -1 with st. */
int history_changes_emit(struct watch_stream *w, struct history_changes *c, struct api_status *st);
/* The JobHistoryList as it is now, each item ADDED. */
int watch_history_initial(struct watch_stream *w, struct api_status *st);

/* catchup.c */
/* Brings the client from w->cursor (older than what the hub holds, or across changes the core did
 * not render) to the present: each object of the watched list changed since, as it is now, and each
 * one gone since, as DELETED, in resourceVersion order; then w->cursor is the present. Returns 0,
 * or -1 with a Status (410 when the cursor is older than the history kept) in st. */
int watch_catch_up(struct watch_stream *w, struct api_status *st);

/* stream.c */
/* The reader http_respond_stream() calls; blocks until it has lines to send. */
long watch_stream_read(void *ctx, char *buf, size_t max);
void watch_stream_free(void *ctx);

#endif
