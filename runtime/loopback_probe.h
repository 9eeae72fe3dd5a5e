/* The loopback probe thread, the companions' and the JobFlows': polls each target's readiness (an
 * HTTP GET answering 2xx/3xx, with its headers, through libcurl; or a TCP connect) every 200 ms or its
 * own period until it passes, then a companion's activity source every 10 s. It never touches the
 * core's state: results queue here, by owner, and notify() tells the core to take them. */
#ifndef CALDERA_RUNTIME_LOOPBACK_PROBE_H
#define CALDERA_RUNTIME_LOOPBACK_PROBE_H

#include <stdbool.h>
#include <stdint.h>

enum loopback_probe_activity { PROBE_ACTIVITY_NONE, PROBE_ACTIVITY_JSON, PROBE_ACTIVITY_JUPYTER };
/* Whose a target is: each takes only its own results. */
enum loopback_probe_owner { PROBE_OWNER_COMPANION, PROBE_OWNER_FLOW, PROBE_OWNERS };

/* What to probe; every string is copied. Paths start with '/'. */
struct loopback_probe_target {
    uint64_t id; /* the caller's, > 0, unique per owner */
    enum loopback_probe_owner owner;
    int port;
    bool tcp;             /* readiness is a TCP connect to 127.0.0.1:port (ready_path, headers unused) */
    int every_ms;         /* readiness polled this often; 0: every 200 ms */
    char *const *headers; /* "Name: value", NULL-ended, or NULL */
    const char *ready_path;
    enum loopback_probe_activity activity;
    const char *activity_path, *field, *busy_path; /* busy_path: jupyter's kernels */
};

struct loopback_probe_result {
    uint64_t id;
    enum loopback_probe_owner owner;
    bool ready;          /* readiness answered 2xx/3xx (sent once) */
    int64_t activity_ms; /* > 0: the last activity the companion reports (wall ms) */
};

/* Starts the thread; notify is called (from it) when results wait. Returns 0 or -1. */
int loopback_probe_start(void (*notify)(void *ctx), void *ctx);
/* Stops the thread and drops everything (at most one probe's timeout later). */
void loopback_probe_stop(void);
/* Adds a target, or replaces the one with the same id. Returns 0 or -1 (out of memory). */
int loopback_probe_add(const struct loopback_probe_target *t);
void loopback_probe_remove(enum loopback_probe_owner owner, uint64_t id);
/* Takes up to max of owner's waiting results. Returns how many. */
int loopback_probe_take(enum loopback_probe_owner owner, struct loopback_probe_result *out, int max);

#endif
