/* The outcome of a request in Kubernetes' terms: HTTP code, StatusReason, message and field causes.
 * Adapters and the core fill it; the gateway renders it as a `Status` object. */
#ifndef CALDERA_API_STATUS_H
#define CALDERA_API_STATUS_H

#include <stdbool.h>

#define API_MAX_CAUSES 16

struct api_cause {
    char field[192];   /* "spec.tasks[0].replicas" */
    char reason[40];   /* CauseType: "FieldValueRequired", "FieldValueInvalid", ... */
    char message[384]; /* "Required value", "Invalid value: \"1.5GG\": ..." */
    int line, column;  /* in the submitted YAML, 0 when unknown */
};

struct api_status {
    int code;        /* HTTP status; 0 means success */
    char reason[40]; /* StatusReason: "Invalid", "NotFound", "AlreadyExists", "BadRequest", ... */
    char message[2048];
    char kind[48];  /* details.kind, e.g. "jobs" */
    char group[64]; /* details.group, e.g. "batch.volcano.sh" */
    char name[256]; /* details.name */
    int ncauses;
    struct api_cause causes[API_MAX_CAUSES];
    int retry_after_s; /* details.retryAfterSeconds (429, 503), 0 when none */
};

static inline bool api_ok(const struct api_status *st) { return st->code == 0; }

/* Sets code, reason and message (printf-style). Returns -1 so callers can `return api_fail(...)`. */
int api_fail(struct api_status *st, int code, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Adds a field cause (kept when there is room; the count still says how many there were). */
void api_add_cause(struct api_status *st, const char *field, const char *reason, int line, int column, const char *fmt,
                   ...) __attribute__((format(printf, 6, 7)));
/* Turns collected causes into a 422 "Invalid" whose message reads like Kubernetes':
 * `Job.batch.volcano.sh "x" is invalid: [spec.tasks[0].replicas: Required value (line 9, column 7), ...]` */
int api_fail_invalid(struct api_status *st, const char *kind_group, const char *name);
/* The same with another code, reason and verdict: `jobs.batch.volcano.sh "x" is forbidden: [...]`
 * is (403, "Forbidden", "jobs.batch.volcano.sh", "x", "is forbidden"). */
int api_fail_causes(struct api_status *st, int code, const char *reason, const char *kind_group, const char *name,
                    const char *verdict);
void api_set_details(struct api_status *st, const char *kind, const char *group, const char *name);

#endif
