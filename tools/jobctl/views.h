/* What each table shows: the columns of jobs, pods, nodes, queues and a job's history, and how a
 * JSON object of the API becomes one row. Pure: "now" is passed in for the AGE columns. */
#ifndef CALDERA_JOBCTL_VIEWS_H
#define CALDERA_JOBCTL_VIEWS_H

#include <jansson.h>
#include <stdint.h>

#include "tools/jobctl/table.h"

struct view {
    const char *const *headers;
    size_t ncols;
    void (*row)(struct table *t, const json_t *item, int64_t now_ms);
};

extern const struct view VIEW_JOBS;        /* NAME PHASE MIN PENDING RUNNING SUCCEEDED FAILED RETRIES AGE */
extern const struct view VIEW_PODS;        /* POD NODE PHASE EXIT REASON AGE */
extern const struct view VIEW_NODES;       /* NAME STATUS CPU MEMORY GPU AGE */
extern const struct view VIEW_QUEUES;      /* NAME STATE WEIGHT PENDING RUNNING INQUEUE AGE */
extern const struct view VIEW_TRANSITIONS; /* SEQ TIME FROM TO REASON MESSAGE */
extern const struct view VIEW_ATTEMPTS;    /* POD ATTEMPT VERSION NODE PID START FINISH EXIT REASON MESSAGE */
extern const struct view VIEW_HISTORIES;   /* NAME PHASE ATTEMPTS STARTED FINISHED DELETED AGE */
extern const struct view VIEW_TOKENS;      /* ID USER ROLE NAMESPACES UID GID AGE */

/* Initializes t with the view's header and adds one row per element of items (an array; a single
 * object gives one row). */
void view_table(struct table *t, const struct view *v, const json_t *items, int64_t now_ms);

#endif
