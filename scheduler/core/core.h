/* The core thread: the one owner of all live state. Gateway threads post requests to its mailbox
 * and wait; it schedules every period (and at once after a change), runs the controller, watches
 * task processes and hands every change to the store writer. */
#ifndef CALDERA_CORE_H
#define CALDERA_CORE_H

#include <jansson.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/api_status.h"
#include "common/namespace_set.h"
#include "model/cluster.h"
#include "model/companion.h"
#include "model/sched_conf.h"
#include "common/watch_demand.h"
#include "runtime/backend.h"
#include "store/store.h"
#include "scheduler/core/request.h"

struct core;

struct core_config {
    const char *data_dir;
    struct node *nodes; /* handed over: the core owns them from core_start on */
    int nnodes;
    struct sched_conf conf;            /* handed over likewise */
    struct store *store;               /* opened; the core loads from it and starts its writer */
    int period_ms;                     /* scheduling period (default 1000) */
    int shutdown_grace_ms;             /* the longest a task is given to stop at shutdown */
    int64_t restart_backoff_ms;        /* first back-off of a container restarted in place (0: kubelet's 10 s) */
    int64_t restart_backoff_max_ms;    /* its ceiling (0: kubelet's 300 s) */
    int32_t port_first, port_last;     /* where job port blocks come from (0: 20000-59999) */
    bool keep_tasks;                   /* core_stop leaves running tasks to the next server (--keep-tasks) */
    bool gpu_uuids;                    /* tasks' CUDA_VISIBLE_DEVICES names GPU UUIDs (else indexes) */
    struct watch_demand *watch_demand; /* whether watches follow objects (then each change is rendered
                                          for them); NULL: never */
    const struct companion_types *companion_types;     /* the caller's, for the core's life; NULL: none */
    int32_t companion_port_first, companion_port_last; /* 0: 42000-42999 */
    const char *bin_dir;                               /* Caldera's programs (caldera-terminal), or NULL */
    const struct watchdog_conf *watchdog;              /* --watchdog: the caller's, for the core's life; NULL: none */
    struct notifier *notifier;                         /* its sender (scheduler/watchdog/notifier.h), or NULL */
    const struct backend_conf *backends; /* --backend, --backends: the caller's, for the core's life; NULL: local */
};

/* Reads the awake jobs into the cluster (beside the checks of a store_open_checking store) and starts
 * the core thread, which does the rest of the start once the checks pass: the sleeping jobs read, the
 * last run's tasks recovered, the writer started. Until then requests wait, but a GET of a job that
 * rest leaves as it was is answered (with its stored status). Returns 0 or -1 with a sentence in err. */
int core_start(struct core_config *cfg, struct core **out, char *err, size_t errlen);
/* Waits until the start is over: 0, or -1 with the reason in err (the store's checks refused the
 * database, recovery failed, or the core was stopped first), after which every request is refused
 * and nothing has been written. Any thread, after core_start returned 0. */
int core_wait_ready(struct core *core, char *err, size_t errlen);
/* The gateway's stored Tokens, as core_start read them (its snapshot: opening the file again before the
 * checks pass would leave a -wal beside a refused file), each through fn, then freed. Once, on the
 * thread that called core_start. Returns 0, or -1 when fn failed. */
int core_take_stored_tokens(struct core *core, int (*fn)(void *ctx, const char *name, const char *json), void *ctx);
/* Posts a request and waits for the core's answer. Returns 0 when the answer is a success
 * (http_code set), -1 when req->status says what failed (503 once the core is stopping).
 * The caller still waits for durable_seq with store_wait() before answering its client. */
int core_call(struct core *core, struct core_request *req);
/* Posts CORE_RECORD_EVENT of kind (e.g. "Audit") about ns/name with reason and message, and returns
 * at once: nobody waits for it, the core frees it. At most CORE_MAX_POSTED such requests wait in
 * the mailbox; beyond that (or while the core stops, or out of memory) it is dropped and -1 is
 * returned. Any thread. */
#define CORE_MAX_POSTED 256
int core_post_event(struct core *core, const char *kind, const char *ns, const char *name, const char *reason,
                    const char *message);
/* Posts CORE_COMPANION_TOUCH for companion ns/name at now_ms and returns at once (dropped like
 * core_post_event's when the mailbox is full). Any thread. Returns 0 or -1. */
int core_post_touch(struct core *core, const char *ns, const char *name, int64_t now_ms);
/* Posts CORE_GPU_SAMPLES: n samples of this machine's GPUs (copied), which the core adds to the
 * attempts holding those devices and keeps for /metrics. Returns at once (dropped like
 * core_post_event's when the mailbox is full). Any thread. Returns 0 or -1. */
int core_post_gpu_samples(struct core *core, const struct gpu_sample *samples, int n);
/* Posts CORE_GPU_HEALTH: a GPU device turned unhealthy or healthy again (copied), which the core
 * applies with controller_gpu_health(). Returns at once (dropped like core_post_event's when the
 * mailbox is full). Any thread. Returns 0 or -1. */
int core_post_gpu_health(struct core *core, const struct gpu_health_change *change);
/* The open backend of that kind, or NULL. Its logs() may be called from any thread; the backend
 * lives until core_stop(). */
struct backend *core_backend(struct core *core, enum backend_kind kind);
/* Stops every task (SIGTERM, their grace, SIGKILL) and records their ends, or, with keep_tasks,
 * leaves them running (recorded as running, for the next start to adopt), and stops the thread. The
 * state stays until core_free(): the store's writer may still hold watch objects that share parts of
 * it, so the caller closes the store (which drains the writer) first. */
void core_stop(struct core *core);
/* Frees what core_stop() left, once the store is closed. NULL is fine. */
void core_free(struct core *core);

#endif
