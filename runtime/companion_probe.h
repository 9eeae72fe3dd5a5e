/* The companions' probe thread: polls each companion's readiness path every 200 ms until it answers
 * 2xx/3xx, then its activity source every 10 s, with the type's headers, over loopback (libcurl). It
 * never touches the core's state: results queue here and notify() tells the core to take them. */
#ifndef CALDERA_RUNTIME_COMPANION_PROBE_H
#define CALDERA_RUNTIME_COMPANION_PROBE_H

#include <stdbool.h>
#include <stdint.h>

enum companion_probe_activity { PROBE_ACTIVITY_NONE, PROBE_ACTIVITY_JSON, PROBE_ACTIVITY_JUPYTER };

/* What to probe; every string is copied. Paths start with '/'. */
struct companion_probe_target {
    uint64_t id; /* the caller's, > 0 */
    int port;
    char *const *headers; /* "Name: value", NULL-ended, or NULL */
    const char *ready_path;
    enum companion_probe_activity activity;
    const char *activity_path, *field, *busy_path; /* busy_path: jupyter's kernels */
};

struct companion_probe_result {
    uint64_t id;
    bool ready;          /* readiness answered 2xx/3xx (sent once) */
    int64_t activity_ms; /* > 0: the last activity the companion reports (wall ms) */
};

/* Starts the thread; notify is called (from it) when results wait. Returns 0 or -1. */
int companion_probe_start(void (*notify)(void *ctx), void *ctx);
/* Stops the thread and drops everything (at most one probe's timeout later). */
void companion_probe_stop(void);
/* Adds a target, or replaces the one with the same id. Returns 0 or -1 (out of memory). */
int companion_probe_add(const struct companion_probe_target *t);
void companion_probe_remove(uint64_t id);
/* Takes up to max waiting results. Returns how many. */
int companion_probe_take(struct companion_probe_result *out, int max);

#endif
