/* What each table shows: the columns of jobs, pods, nodes, queues and a job's history, and how a
 * JSON object of the API becomes one row. Pure: "now" is passed in for the AGE columns. */
#ifndef CALDERA_JOBCTL_VIEWS_H
#define CALDERA_JOBCTL_VIEWS_H

#include <jansson.h>
#include <stdint.h>

#include "tools/jobctl/table.h"

/* One row's cells as a view's row function fills them (views.c). */
struct view_row;

struct view {
    const char *const *headers;
    size_t ncols;
    void (*row)(struct view_row *r, const json_t *item, int64_t now_ms);
    const char *kind;        /* -o name prints "<kind>/<name>" ("job.batch.volcano.sh"); NULL: plain names */
    const struct view *wide; /* -o wide: the view with more columns; NULL: this one */
    /* The row function's columns shown, in order (a narrow view of the wide one's row); NULL: all */
    const unsigned char *columns;
};

extern const struct view VIEW_JOBS;        /* NAME PHASE MIN PENDING RUNNING SUCCEEDED FAILED RETRIES AGE REASON */
extern const struct view VIEW_JOBS_WIDE;   /* ... QUEUE TASKS VERSION AGE REASON (the whole message) */
extern const struct view VIEW_PODS;        /* POD NODE PHASE EXIT REASON AGE */
extern const struct view VIEW_PODS_WIDE;   /* POD NODE PHASE EXIT REASON RESTARTS IP STARTED AGE MESSAGE */
extern const struct view VIEW_NODES;       /* NAME STATUS CPU MEMORY GPU AGE */
extern const struct view VIEW_QUEUES;      /* NAME STATE WEIGHT PENDING RUNNING INQUEUE AGE */
extern const struct view VIEW_TRANSITIONS; /* SEQ TIME FROM TO REASON MESSAGE */
extern const struct view VIEW_ATTEMPTS;    /* POD ATTEMPT VERSION NODE PID START FINISH EXIT REASON MESSAGE */
extern const struct view VIEW_HISTORIES;   /* NAME PHASE ATTEMPTS STARTED FINISHED DELETED AGE */
extern const struct view VIEW_TOKENS;      /* ID USER ROLE NAMESPACES UID GID AGE */
extern const struct view VIEW_EVENTS;      /* LAST SEEN TYPE REASON OBJECT MESSAGE */
/* The -o wide views of nodes, queues, histories and events (each view's wide member points at it). */
extern const struct view VIEW_NODES_WIDE, VIEW_QUEUES_WIDE, VIEW_HISTORIES_WIDE, VIEW_EVENTS_WIDE;

/* The longest pending reason the narrow jobs table shows; longer ones end in "...". */
#define JOB_REASON_SHORT 60

/* Why a job is where it is, for its REASON cell: a Pending job's pending reason (state.message,
 * else state.reason), a failed, aborted or terminated job's reason; "" otherwise. */
const char *job_reason(const json_t *job);

/* Sets column col of a row to a copy of text (NULL: ""), for row functions outside views.c. */
void view_row_set(struct view_row *r, int col, const char *text);

/* Initializes t with the view's header and adds one row per element of items (an array; a single
 * object gives one row). */
void view_table(struct table *t, const struct view *v, const json_t *items, int64_t now_ms);

#endif
