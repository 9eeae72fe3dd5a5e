/* One recorded event as every reader sees it (a row of the events table, a hub item): what changed,
 * from which phase to which, and why; and the compact JSON the live streams send for it. */
#ifndef CALDERA_EVENT_VIEW_H
#define CALDERA_EVENT_VIEW_H

#include <stdint.h>

/* Strings are never NULL ("" when empty) and belong to whoever made the view. */
struct event_view {
    uint64_t seq;                   /* the global sequence number */
    int64_t time_ms;                /* wall clock */
    const char *kind, *ns, *name;   /* the object: "Pod", "default", "train-worker-0" */
    const char *job_uid, *job_name; /* the job it belongs to, "" when none */
    const char *from, *to;          /* phases: "" when new, "" when gone */
    const char *reason, *message;
    const char *uid; /* the object's own uid where it was recorded (a pod's); NULL or "" when not */
};

/* {"seq":N,"time":"RFC 3339 with ms","kind","namespace","name","job","jobUid","from","to","reason",
 * "message"} as one line without a newline (caller frees); NULL when memory runs out. */
char *event_view_json(const struct event_view *ev);

#endif
