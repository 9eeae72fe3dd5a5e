/* The job controller: Volcano's job lifecycle on the core thread. It admits jobs, applies the
 * scheduler's decisions by starting replicas, turns process exits into pod and job phases, and
 * records every change in the journal. It never touches processes itself: the core's ops do. */
#ifndef CALDERA_CONTROLLER_H
#define CALDERA_CONTROLLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/api_status.h"
#include "model/cluster.h"
#include "model/watchdog.h"
#include "runtime/attempt.h"
#include "runtime/backend.h"
#include "scheduler/framework/session.h"
#include "store/journal.h"
#include "store/store.h"

/* The attempt interface the runtime implements (attempt_spec, attempt_started, replica_exit) lives
 * in runtime/attempt.h; a pod's volumes are the Job's, so both bounds are one. */
_Static_assert(ATTEMPT_VOLUMES_MAX == TASK_VOLUMES_MAX, "a pod's volumes must fit an attempt");

/* The process runtime (or, later, the kube backend) as the controller sees it. */
struct controller_ops {
    void *ctx;
    /* Starts one attempt. Returns 1 when it started (*out filled), 0 when the start goes on in the
     * background (the spec is copied; controller_attempt_started() or controller_attempt_failed()
     * follows), or -1 with a sentence in why. */
    int (*start)(void *ctx, struct job *job, int flat, const struct attempt_spec *spec, struct attempt_started *out,
                 char *why, size_t why_len);
    /* Stops a running attempt: SIGTERM now, SIGKILL after grace_ms. Its exit arrives later
     * through controller_replica_exited(). */
    void (*stop)(void *ctx, struct job *job, int flat, int grace_ms);
    /* At recovery: an attempt recorded as running when the server stopped (a crash, or a stop that
     * kept its tasks). Returns 1 when its process still runs and is watched again (its exit comes
     * through controller_replica_exited() like any other), 0 when it ended meanwhile and *ex says
     * how (ex->unknown when nothing does). NULL: every such attempt counts as lost. */
    int (*adopt)(void *ctx, struct job *job, int flat, int32_t pid, int64_t pid_start, struct replica_exit *ex);
    /* Optional: the uid of an object being created (the simulator makes them reproducible);
     * NULL means a random UUID. */
    void (*new_uid)(void *ctx, char out[UUID_STR_LEN]);
    /* Optional: a job's replicas were laid out again (a scale): the running one at old_flat is now
     * at new_flat (its proc handle moved with it). */
    void (*moved)(void *ctx, struct job *job, int old_flat, int new_flat);
};

struct zone_table;
struct companion_set;
struct notifier;

/* At recovery: an attempt recorded as running, until the runtime has been asked about it. */
struct recovered_attempt {
    char job_uid[UUID_STR_LEN];
    int32_t flat, pid;
    int64_t pid_start;
    uint32_t attempt;
    int node;      /* -1: its node is no longer configured */
    uint64_t gpus; /* the node's GPU devices it recorded holding (model/gpu.h mask) */
};

/* Something the controller does later, at due_ms on its clock: a policy action delayed by its
 * timeout, a container restart after its back-off, a finished job's deletion (TTL), a pod's
 * activeDeadlineSeconds. Identified by
 * the job's uid, so a timer outliving its job does nothing. */
enum controller_timer_kind { TIMER_ACTION, TIMER_RESTART, TIMER_TTL, TIMER_DEADLINE };
struct controller_timer {
    int64_t due_ms;
    char job_uid[UUID_STR_LEN];
    uint8_t kind;   /* enum controller_timer_kind */
    uint8_t action; /* TIMER_ACTION: enum job_action */
    uint8_t event;  /* TIMER_ACTION: the enum job_event that armed it */
    int32_t task;   /* the target: a task and replica (flat), -1 when the whole job */
    int32_t flat;
    int32_t version;    /* the job's version when armed: a kill of the job since makes it stale */
    uint32_t attempt;   /* TIMER_RESTART: the attempt whose exit it follows; TIMER_DEADLINE: the pod's born */
    int64_t deadline_s; /* TIMER_DEADLINE: the activeDeadlineSeconds it was armed for (an extension re-arms) */
};

struct controller {
    struct cluster *cluster;
    const struct zone_table *zones; /* which schedulerNames exist */
    struct journal_list journal;    /* entries since the core last handed them to the store */
    struct controller_ops ops;
    const char *data_dir;
    int64_t now_ms;                  /* wall clock, set by the core before each call */
    int shutdown_grace_ms;           /* longest grace a shutdown grants a task */
    int64_t backoff_base_ms;         /* in-place restarts wait base, 2 x base, ... (kubelet: 10 s) */
    int64_t backoff_max_ms;          /* ... up to this (kubelet: 300 s) */
    int32_t port_first, port_last;   /* the range job port blocks come from (job_plugins_ports_needed) */
    bool gpu_uuids;                  /* tasks' CUDA_VISIBLE_DEVICES names UUIDs, not indexes */
    struct controller_timer *timers; /* a binary min-heap on due_ms */
    int ntimers, timers_cap;
    struct recovered_attempt *recovered; /* during recovery only */
    int nrecovered, recovered_cap;
    /* While attempt rows are restored (by pod, in attempt order): the pod whose last row restarted
     * in place, and how many times in a row, so the attempt after it keeps the pod and counts them. */
    struct restore_chain {
        const struct job *job;
        int32_t flat;
        int32_t next_attempt;
        uint16_t restarts;
    } restore_chain;
    struct restore_jobs *restoring; /* during the load: job rows read, not yet joined (restore_jobs.c) */
    /* Optional: called between the load's batches of jobs, each batch's jobs in the cluster (the core
     * answers what it can meanwhile); it must not change the cluster. */
    void (*restore_yield)(void *ctx);
    void *restore_yield_ctx;
    struct job *restore_last;  /* the job of the last attempt row loaded: its rows come together */
    struct job *restore_woken; /* a dormant job the load woke at one of its rows: the rows after it are read */
    struct store *store;       /* where a dormant job's spec, status and attempts are read when it wakes */
    /* Watch objects (watch.c): whether this iteration renders them (someone watches), and the jobs
     * its journal touched, gathered at the end of the iteration. */
    bool watch_render;
    struct job **watch_touched;
    int nwatch_touched, watch_touched_cap;
    /* Set by the core before each iteration's timers and cycle: NULL, or why no attempt may start
     * (the store cannot record starts, so a crash would run them again): placements wait with this
     * as their pending reason, and restarts in place wait too. */
    const char *starts_held;
    struct companion_set *companions; /* companions.h; NULL: none configured (unit tests, the simulator) */
    /* The WatchDog (watchdog.c, capability.c): its configuration and sender (NULL: none), whether the
     * queues' capability percentages must be computed again (nodes or queues changed), and when the
     * pending check last ran. */
    const struct watchdog_conf *watchdog;
    struct notifier *notifier;
    bool capability_dirty;
    int64_t watchdog_checked_ms;
    /* The engines jobs are sent to (remote.c): which queue goes where (NULL: every job runs here), and
     * each open backend by kind (NULL: not open). The core opens and closes them. */
    const struct backend_conf *backend_conf;
    struct backend *backends[BACKEND_KIND_COUNT];
};

/* What pods wait with while the data directory's disk is full (see starts_held). */
#define STARTS_HELD_DISK_FULL                                                                           \
    "waiting for the database: no space left on device (the data directory's disk is full; pods start " \
    "once it has room again)"

/* The WatchDog (watchdog.c). Notices for what this iteration's journal says (a job Completed or
 * Failed, a memory scale-up, an eviction), handed to the sender; called before the journal goes to
 * the store. */
void controller_watchdog_scan(struct controller *ctl);
/* Once a second at most: jobs Pending longer than pendingTimeout, noticed once each. */
void controller_watchdog_tick(struct controller *ctl);
/* Sends a notice of kind about job to its webhooks (the job's annotation, else the routes); pod and
 * exit_code (NULL: none) name the pod it is about. */
void controller_notify(struct controller *ctl, const struct job *job, enum notice_kind kind, const char *reason,
                       const char *pod, const int32_t *exit_code, const char *message);
/* An event about the job itself (kind Job, its phase unchanged) with reason and message. */
void controller_record_job_event(struct controller *ctl, struct job *job, const char *reason, const char *message);
/* capability.c: every queue the WatchDog names gets its percentages of the cluster's allocatable as
 * its capability, with a Normal Event CapabilityUpdated (old -> new) when that changes; runs when
 * capability_dirty is set (start, a GPU's health, a queue created or updated). */
void controller_capability_sync(struct controller *ctl);

/* Backends (remote.c). Each cycle: the jobs of queues routed to an engine that wait to be sent, in
 * priority order, as their queue's state and capability allow; each sent whole. */
void controller_remote_cycle(struct controller *ctl);
/* What a backend reported (posted to the core, applied here): sends, pods' attempts, phases. */
void controller_backend_update(struct controller *ctl, const struct backend_update *u);
/* At the end of recovery: the jobs sent before the restart are followed again (nothing sent twice). */
void controller_remote_adopt(struct controller *ctl);
/* The job as the manifest a Kubernetes cluster running Volcano takes: the Job, or a v1 List of it and
 * its companions owned by owner_uid (manifest.c). A new reference, or NULL when out of memory. */
json_t *controller_job_manifest(const struct controller *ctl, const struct job *job, const char *owner_uid);

/* Admission: name free (409), queue exists and is Open (422). On success the cluster owns the job,
 * *seq is its creation event. On failure the caller still owns it. */
int controller_create_job(struct controller *ctl, struct job *job, uint64_t *seq, struct api_status *st);
/* Removes the job from the API (its name becomes free) and stops its replicas; the job is freed
 * once its last process is reaped. Returns the deletion event's sequence number. */
uint64_t controller_delete_job(struct controller *ctl, struct job *job);

/* Applies a closed session's decisions: PodGroups enqueued, replicas started, pending reasons. */
void controller_apply_session(struct controller *ctl, struct session *ssn);

/* Queues: Closing becomes Closed once none of its PodGroups is Pending, Inqueue or Running.
 * Called by the core after each loop iteration. */
void controller_sync_queues(struct controller *ctl);
/* Admission of a job's priority: its priorityClassName (or the globalDefault class) must exist;
 * sets job->priority. Returns 0, or -1 with a 422 cause in st. */
int controller_admit_priority(struct controller *ctl, struct job *job, struct api_status *st);

/* A start the runtime did in the background: it runs (pid and cgroup in st), or it could not
 * start (why). */
void controller_attempt_started(struct controller *ctl, struct job *job, int flat, const struct attempt_started *st);
void controller_attempt_failed(struct controller *ctl, struct job *job, int flat, const char *why);

/* A replica's attempt ended. */
void controller_replica_exited(struct controller *ctl, struct job *job, int flat, const struct replica_exit *ex);

/* Stops every running replica for a server shutdown: they end with reason Shutdown and are
 * Pending again, to run anew when the server comes back. Returns how many were stopped. */
int controller_stop_all(struct controller *ctl);

/* Recovery from the store, before the core thread starts (see store_load). */
int controller_restore_queue(struct controller *ctl, const struct store_queue_row *row);
int controller_restore_object(struct controller *ctl, const struct store_object_row *row);
/* A job row is copied and parsed later, on the pool's helpers beside the load, in batches; the
 * jobs join the cluster in the rows' order, at the latest in controller_restore_jobs_done(), which
 * the loader calls after the last job row (complete), or when the jobs' stream stopped early (not
 * complete: what was read is freed). Returns 0, or -1 when a row could not be restored (logged). */
int controller_restore_job(struct controller *ctl, const struct store_job_row *row);
int controller_restore_jobs_done(struct controller *ctl, bool complete);
int controller_restore_attempt(struct controller *ctl, const struct store_attempt_row *row);
/* Finished jobs (Completed, Failed, Terminated, no TTL) are restored dormant: indexed by name and
 * uid, counted in their queue, parsed with their attempts the first time something looks them up
 * (cluster_wake). Call before the load; controller_wake_job is what the cluster's hook runs. */
void controller_enable_waking(struct controller *ctl);
int controller_wake_job(struct controller *ctl, struct job *job);
/* After the last row: derive counts and PodGroup phases, create the `default` queue if missing. */
int controller_finish_recovery(struct controller *ctl);

/* Watch objects (watch.c), at the end of a core loop iteration, before the journal goes to the
 * store: every job, pod and PodGroup the iteration's entries touched is compared with what the watch
 * streams were last shown of it; when it changed (or appeared, or went away) and ctl->watch_render is
 * set, its rendering is attached, once, to the last entry about it (also queues, priority classes,
 * quotas, nodes and Commands, each to its own entry). Without watch_render only the comparison's
 * memory is kept up to date, so rendering can start at any time with the right ADDED/DELETED. */
void controller_watch_flush(struct controller *ctl);
/* A job leaves the API (deletion): its Job, PodGroup and shown pods as DELETED, on entry e. */
void controller_watch_job_deleted(struct controller *ctl, struct job *job, struct journal_entry *e);
void controller_watch_free(struct controller *ctl);

/* Records every node of the cluster (event + nodes row), at start-up after recovery. Returns 0, or
 * -1 when memory ran out. */
int controller_record_nodes(struct controller *ctl);

/* Objects the core records but does not keep (the gateway's Tokens: their kind is skipped at
 * recovery), and events about nothing the core holds (audit): one journal entry each, an objects
 * row put (json set) or deleted (json NULL), or an event alone. Each returns the entry's sequence
 * number, 0 when memory ran out (logged). */
#define CONTROLLER_GATEWAY_KIND_TOKEN "Token"
uint64_t controller_record_object(struct controller *ctl, const char *kind, const char *ns, const char *name,
                                  const char *json, const char *reason, const char *message);
uint64_t controller_record_event(struct controller *ctl, const char *kind, const char *ns, const char *name,
                                 const char *reason, const char *message);

/* A GPU device's health changed (scheduler/controller/gpu_health.c): its bit in the node's unhealthy
 * mask, the node's allocatable nvidia.com/gpu (its healthy devices), a Node Event (Warning when
 * unhealthy) and, when it turns unhealthy, a Pod Event for each running task holding it, which keeps
 * running (as the device plugin leaves it). An Xid on a device already unhealthy is recorded again.
 * Returns 0, or -1 when no node or device matches (logged). */
int controller_gpu_health(struct controller *ctl, const struct gpu_health_change *change);

/* Timers: the earliest due time (controller clock, ms), or -1 when none; running the due ones
 * (call with now_ms set). Returns how many ran. controller_free_timers() at shutdown. */
int64_t controller_next_timer(const struct controller *ctl);
int controller_run_timers(struct controller *ctl);
void controller_free_timers(struct controller *ctl);

/* A Command (bus.volcano.sh) or its convenience route: the action at once, whatever the policies
 * say, in the job's current phase, recorded as a commands row with command_json (the Command
 * object; NULL stores "{}"). Returns 0, or -1 with a 4xx in st (not an action for jobs). */
int controller_command(struct controller *ctl, struct job *job, enum job_action action, const char *reason,
                       const char *command_json, struct api_status *st);
/* A Command about a queue (OpenQueue, CloseQueue) of namespace ns, recorded as a commands row before
 * the caller runs it. */
struct queue;
void controller_record_queue_command(struct controller *ctl, struct queue *q, const char *ns, enum job_action action,
                                     const char *reason, const char *command_json);
/* PUT of a job: upd is the parsed new Job. Only minAvailable, priorityClassName and the tasks'
 * replicas and minAvailable may change (422 otherwise); metadata.resourceVersion, when given,
 * must be the current one (409). Scales the job, raises JobUpdated. The caller keeps upd. */
int controller_update_job(struct controller *ctl, struct job *job, struct job *upd, struct api_status *st);
/* An update of the object a dialect's job was posted as (a DebugSession's PATCH): source (taken,
 * also on failure) becomes the stored object; deadline_s > 0 gives every pod that activeDeadlineSeconds,
 * counted from each running pod's start (a deadline already past ends it at once: DeadlineExceeded).
 * Recorded as the job's event Updated (what says the change) with its spec and source. 409 when the
 * job has finished. */
int controller_update_source(struct controller *ctl, struct job *job, json_t *source, int64_t deadline_s,
                             const char *what, struct api_status *st);
/* DELETE of a pod: it stops (its grace period) and is created again Pending; PodEvicted is raised. */
void controller_delete_pod(struct controller *ctl, struct job *job, int flat);

/* Paths under the data directory; a job directory holds these (work is the tasks' HOME). */
extern const char *const controller_job_subdirs[];
extern const char *const controller_job_files[];
void controller_job_dir(const struct controller *ctl, const struct job *job, char *buf, size_t len);
/* The job's exits file (absolute), where each attempt's supervisor appends how it ended. */
void controller_exits_path(const struct controller *ctl, const char *job_uid, char *buf, size_t len);
/* An attempt's cgroup name below caldera/: "<pod>.<attempt>.<job uid>". */
void controller_cgroup_name(const char *job_uid, const char *pod, uint32_t attempt, char *buf, size_t len);
/* The log of one attempt, relative to the data directory ("jobs/<uid>/logs/<pod>.<n>.log"). */
void controller_log_relpath(const struct job *job, const char *pod, uint32_t attempt, char *buf, size_t len);

#endif
