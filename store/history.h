/* The read side of the store for gateway threads: job history (every attempt of every task and
 * the job's phase transitions), lists of jobs' histories, tasks, attempts and their logs, from the
 * database, through a connection of the caller's own. */
#ifndef CALDERA_HISTORY_H
#define CALDERA_HISTORY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/api_status.h"
#include "common/event_view.h"
#include "common/namespace_set.h"

struct store_reader;

/* Opens a read-only connection to the database (WAL lets it read while the writer writes).
 * A reader is for one thread at a time (give each gateway thread its own). Failures are 500s. */
int store_reader_open(const char *path, struct store_reader **out, struct api_status *st);
void store_reader_close(struct store_reader *r);

/* The caldera.io/v1 JobHistory of the job named ns/name, live or deleted: the newest (the live job
 * with that name, else the most recently created deleted one) when uid is NULL, else the one with
 * that uid (an earlier incarnation of the name):
 *   {"apiVersion":"caldera.io/v1","kind":"JobHistory",
 *    "metadata":{"name","namespace","uid","creationTimestamp","deletionTimestamp"?},
 *    "phase":"Completed",
 *    "tasks":[{"name","replicas","minAvailable"}],
 *    "transitions":[{"seq":12,"time":"...Z","from":"Pending","to":"Running","reason":"","message":""}],
 *    "commands":[{"seq":15,"time":"...Z","action":"AbortJob","reason":""}],
 *    "attempts":[{"pod","task","index","attempt","jobVersion","node","pid","startTime",
 *                 "finishTime"|null,"exitCode"|null,"reason","message","logPath","cgroup",
 *                 "outcome"?,"peakMemoryBytes"?,"cpuSeconds"?,"gpuDevices"?}]}
 * (gpuDevices: the indexes of the node's GPU devices the attempt held, "2,3")
 * tasks are by name; transitions are the job's own events (kind Job) and commands the Commands
 * (and caldera.io actions) run on it, both in sequence order; attempts
 * are ordered by task, index, attempt. Times are RFC 3339 with milliseconds; "phase" is the stored
 * status's state.phase and is left out when the status has none. A missing job is a 404 NotFound
 * in st (details: jobs, batch.volcano.sh, name); a database failure is a 500 InternalError. */
int store_job_history(struct store_reader *r, const char *ns, const char *name, const char *uid, json_t **out,
                      struct api_status *st);

/* Which jobs a JobHistoryList shows, newest created first (ties by uid). */
struct store_history_query {
    const char *ns;                      /* NULL: every namespace */
    const struct namespace_set *visible; /* the namespaces the caller may see; NULL: every one */
    const char *phase;                   /* NULL: any; else the stored status's state.phase */
    int64_t since_ms, until_ms;          /* created in [since, until); INT64_MIN / INT64_MAX when unbounded */
    long limit;                          /* at most this many items (then metadata.continue); 0: all */
    const char *continue_token;          /* NULL or "": from the newest; else metadata.continue of a page */
};

/* {"apiVersion":"caldera.io/v1","kind":"JobHistoryList","metadata":{"continue"?},"items":[
 *   {"apiVersion","kind":"JobHistory","metadata":{...as above},"phase"?,"attemptCount",
 *    "firstStartTime"|null,"lastFinishTime"|null}]}
 * metadata.continue is present when more items follow: pass it back (with the same filters) for
 * the next page. A malformed token is a 400 BadRequest naming `continue`. */
int store_job_history_list(struct store_reader *r, const struct store_history_query *q, json_t **out,
                           struct api_status *st);

/* One job's summary as a JobHistoryList item shows it, by uid (live or deleted). 404 when none. */
int store_job_history_summary(struct store_reader *r, const char *uid, json_t **out, struct api_status *st);

/* The caldera.io/v1 TaskHistory of task `task` of the job (uid NULL: the newest of the name):
 *   {"apiVersion","kind":"TaskHistory","metadata":{"name":task,"namespace"},
 *    "job":{"name","uid"},"replicas","minAvailable","template":{...},"attempts":[...as above]}
 * A missing job or task is a 404. */
int store_task_history(struct store_reader *r, const char *ns, const char *name, const char *uid, const char *task,
                       json_t **out, struct api_status *st);

/* One attempt of a pod of the job (uid NULL: the newest of the name), as an attempt above with
 * apiVersion, kind PodAttempt and job {"name","uid"}. A missing job or attempt is a 404. */
int store_attempt_history(struct store_reader *r, const char *ns, const char *name, const char *uid, const char *pod,
                          int attempt, json_t **out, struct api_status *st);

/* The stored log path (relative to the data directory; caller frees) of one attempt of a pod of the
 * job, as store_attempt_history finds it. */
int store_attempt_log(struct store_reader *r, const char *ns, const char *name, const char *uid, const char *pod,
                      int attempt, char **log_path, struct api_status *st);

/* For logs of pods the core no longer has: the log path of pod `pod` of the newest job in ns that
 * ran a pod of that name. attempt > 0 picks that attempt, previous the one before the last, else the
 * last. 404 NotFound (pods) when no job ran that pod; 400 BadRequest when the attempt is missing. */
int store_pod_log(struct store_reader *r, const char *ns, const char *pod, int attempt, bool previous, char **log_path,
                  struct api_status *st);

/* The events table in sequence order, for the events API and for streams that resume from before the
 * live hub: calls fn for each event with after < seq <= upto (in namespace ns; NULL: every
 * namespace), each as a view whose strings are the row's (valid during the call only; job_name is the
 * name in the job's row, "" when none), until fn returns non-zero or limit events were given (0: no
 * limit). *last gets the seq of the event it stopped at, or upto when it read them all. Returns 0, or
 * -1 with a 500 in st. */
/* How many events after < seq <= upto there are (in namespace ns; NULL: every one) into *count: a
 * page's remainingItemCount. Returns 0, or -1 with a 500 in st. */
int store_events_count(struct store_reader *r, uint64_t after, uint64_t upto, const char *ns, int64_t *count,
                       struct api_status *st);
int store_events_read(struct store_reader *r, uint64_t after, uint64_t upto, const char *ns, long limit,
                      int (*fn)(void *ctx, const struct event_view *ev), void *ctx, uint64_t *last,
                      struct api_status *st);
/* Every row of the objects table of one kind (a kind the core does not keep, such as the gateway's
 * Tokens), in key order, in one read snapshot: row(ctx, r) for each, which returns 0 to go on or -1
 * to stop (then this returns -1 with st as row left it). Returns 0, or -1 with a 500 in st. */
struct store_object_row;
int store_read_objects(struct store_reader *r, const char *kind,
                       int (*row)(void *ctx, const struct store_object_row *obj, struct api_status *st), void *ctx,
                       struct api_status *st);

#endif
