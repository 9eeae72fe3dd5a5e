/* Companions (issue 14): programs started beside a job's task (model/companion.h types), kept by the
 * core as `Companion` objects (caldera.io/v1, namespaced, "<job>-<type>"), recorded in the objects
 * table on every change, each phase change a core/v1 Event of the job. The core calls
 * controller_companions_tick() every loop iteration: it starts a companion when its replica's attempt
 * runs, applies the probe thread's results, stops it when the attempt, the job or its idleness ends
 * it, and kills what a stop left after 5 s. */
#ifndef CALDERA_CONTROLLER_COMPANIONS_H
#define CALDERA_CONTROLLER_COMPANIONS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/api_status.h"
#include "model/companion.h"
#include "runtime/companion.h"
#include "scheduler/controller/controller.h"
#include "store/store.h"

#define COMPANIONS_ANNOTATION "caldera.io/companions"
#define COMPANION_TASK_ANNOTATION "caldera.io/companion-task"
/* {logdir}: where the job writes what TensorBoard reads; a path relative to the working directory, or
 * absolute (read as the task's user, so nothing the task could not read itself). Default "logs". */
#define COMPANION_LOGDIR_ANNOTATION "caldera.io/companion-logdir"
#define COMPANION_LOGDIR_DEFAULT "logs"
#define SESSION_ANNOTATION "caldera.io/debug-session" /* "true": a DebugSession's job (sessions.c) */
#define COMPANION_KIND "Companion"
#define COMPANION_API_VERSION "caldera.io/v1"
#define COMPANION_PORTS_DEFAULT_FIRST 42000
#define COMPANION_PORTS_DEFAULT_LAST 42999

enum companion_phase {
    COMPANION_PENDING,
    COMPANION_STARTING,
    COMPANION_READY,
    COMPANION_STOPPING,
    COMPANION_CLEANED,
    COMPANION_FAILED,
};
const char *companion_phase_name(enum companion_phase p);

struct companion {
    char *ns, *name, *job_name, *type, *task_name;
    char uid[UUID_STR_LEN], job_uid[UUID_STR_LEN];
    int32_t task, index;
    enum companion_phase phase;
    char *reason, *message;
    int64_t created_ms, start_ms, ready_ms, last_activity_ms;
    int port;
    uint32_t served_attempt; /* the replica's attempt it was started for (0: none yet) */
    struct companion_proc proc;
    int64_t kill_at_ms;    /* Stopping: SIGKILL at this wall time */
    int64_t gone_ms;       /* when its process was first seen gone while its task still ran (0: not) */
    char *stop_reason;     /* Stopping: the reason it will be Cleaned with */
    bool remove_when_done; /* deleted (itself, or its job gone): removed once Cleaned */
    bool restored_live;    /* restored in a live phase: its Cleaned is still to be recorded */
    uint64_t probe_id;
    char token[COMPANION_TOKEN_LEN + 1];
    char *token_path;
    char **headers;            /* expanded with the token: the proxy's and the probes' */
    uint64_t resource_version; /* the sequence number of its last recorded change */
    bool watch_shown;          /* watches have been shown it (ADDED): later changes are MODIFIED */
};

struct companion_set {
    struct companion **items;
    int n, cap;
    const struct companion_types *types;
    int port_first, port_last, port_next;
    char *bin_dir;
    uint64_t next_probe_id;
};

/* Set before the store is loaded; types stay the caller's. Returns 0 or -1. */
int controller_companions_init(struct controller *ctl, const struct companion_types *types, int port_first,
                               int port_last, const char *bin_dir);
void controller_companions_free(struct controller *ctl);
/* Every loop iteration (the core's); cheap without companions. */
void controller_companions_tick(struct controller *ctl);
/* sessions.c: a debug session's job whose every companion was Cleaned for idleness is terminated
 * (reason SessionIdle); run by the tick. */
void controller_sessions_idle(struct controller *ctl);
/* The stop of the server: every companion killed (no companion outlives its server's tasks). */
void controller_companions_stop_all(struct controller *ctl, bool keep_tasks);
/* A Companion row of the objects table, at start-up. */
int controller_restore_companion(struct controller *ctl, const struct store_object_row *row);
/* A job's annotations name only configured types: 0, or -1 with a 422 in st. */
int controller_companions_check(const struct controller *ctl, const struct job *job, struct api_status *st);
/* The companions a new job's annotations ask for, created Pending. */
void controller_companions_for_job(struct controller *ctl, struct job *job);

struct companion *controller_companion_find(const struct controller *ctl, const char *ns, const char *name);
json_t *controller_companion_render(const struct companion *c, bool stored);
/* POST: a companion of job job_name (404 none, 409 exists, 422 unknown type or task). */
struct companion *controller_companion_create(struct controller *ctl, const char *ns, const char *job_name,
                                              const char *type, const char *task, int32_t index, struct api_status *st);
/* DELETE: stopped and Cleaned, then gone. Returns the sequence number of the change. */
uint64_t controller_companion_delete(struct controller *ctl, struct companion *c);
/* The proxy's traffic. */
void controller_companion_touch(struct controller *ctl, const char *ns, const char *name, int64_t now_ms);
/* The last sequence number recorded about companions (answers wait for it). */
uint64_t controller_companions_seq(const struct controller *ctl);

#endif
