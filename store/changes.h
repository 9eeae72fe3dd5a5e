/* What changed after a sequence number, read from the database: for a watch that resumes from an
 * older resourceVersion than the live streams hold (after a restart, or a long absence); the events
 * themselves come from store_events_read() (store/history.h). Rows are valid only during their callback; a callback returns 0 to go on, -1 to stop. */
#ifndef CALDERA_CHANGES_H
#define CALDERA_CHANGES_H

#include <stdbool.h>
#include <stdint.h>

#include "common/api_status.h"

struct store_reader;

/* The time of the first event after seq; *found false when there is none. */
int store_first_event_after(struct store_reader *r, uint64_t seq, bool *found, int64_t *time_ms, struct api_status *st);

/* An object gone since: its namespace and name, the job's uid (jobs only, else ""), the sequence
 * number of its last change, and for a job posted in another dialect that dialect's kind ("" else). */
struct store_gone_row {
    const char *ns, *name, *uid, *source_kind;
    uint64_t seq;
};
typedef int (*store_gone_fn)(void *ctx, const struct store_gone_row *row);
/* Objects of kind ("Job", "Queue", "PriorityClass", "ResourceQuota") deleted by an event with
 * after < seq <= upto (ns NULL: every namespace); seq in the row is the deletion's. */
int store_deleted_between(struct store_reader *r, uint64_t after, uint64_t upto, const char *kind, const char *ns,
                          store_gone_fn fn, void *ctx, struct api_status *st);
/* Every pod name of every job (live or deleted) with an event in (after, upto], from its tasks'
 * replica counts; seq in the row is the job's last event there. The caller keeps the pods the API no
 * longer shows. */
int store_pods_of_jobs_changed_between(struct store_reader *r, uint64_t after, uint64_t upto, const char *ns,
                                       store_gone_fn fn, void *ctx, struct api_status *st);
/* Commands run with after < seq <= upto, in order: fn gets each one's sequence number and JSON. */
int store_commands_between(struct store_reader *r, uint64_t after, uint64_t upto, const char *ns,
                           int (*fn)(void *ctx, uint64_t seq, const char *json), void *ctx, struct api_status *st);

#endif
