/* The read side of the store for gateway threads: job history (every attempt of every task and
 * the job's phase transitions) from the database, through a connection of the caller's own. */
#ifndef CALDERA_HISTORY_H
#define CALDERA_HISTORY_H

#include <jansson.h>

#include "common/api_status.h"

struct store_reader;

/* Opens a read-only connection to the database (WAL lets it read while the writer writes).
 * A reader is for one thread at a time (give each gateway thread its own). Failures are 500s. */
int store_reader_open(const char *path, struct store_reader **out, struct api_status *st);
void store_reader_close(struct store_reader *r);

/* The caldera.io/v1 JobHistory of the newest job named ns/name, live or deleted:
 *   {"apiVersion":"caldera.io/v1","kind":"JobHistory",
 *    "metadata":{"name","namespace","uid","creationTimestamp","deletionTimestamp"?},
 *    "phase":"Completed",
 *    "transitions":[{"seq":12,"time":"...Z","from":"Pending","to":"Running","reason":"","message":""}],
 *    "attempts":[{"pod","task","index","attempt","jobVersion","node","pid","startTime",
 *                 "finishTime"|null,"exitCode"|null,"reason","message","logPath"}]}
 * transitions are the job's own events (kind Job) in sequence order; attempts are ordered by
 * task, index, attempt. "Newest" is the live job with that name, else the most recently created
 * deleted one. Times are RFC 3339 with milliseconds; "phase" is the stored status's state.phase and
 * is left out when the status has none. A missing job is a 404 NotFound in st (details: jobs,
 * batch.volcano.sh, name); a database failure is a 500 InternalError. */
int store_job_history(struct store_reader *r, const char *ns, const char *name, json_t **out, struct api_status *st);

#endif
