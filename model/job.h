/* The job model: a Volcano Job's spec as Caldera runs it, its tasks, every replica (pod) and the
 * job's status and PodGroup. One struct replica per pod keeps a 5,000-replica job one object. */
#ifndef CALDERA_JOB_H
#define CALDERA_JOB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/uuid.h"
#include "model/constraints.h"
#include "model/policy.h"
#include "model/resource.h"

enum job_phase {
    JOB_PENDING,
    JOB_ABORTING,
    JOB_ABORTED,
    JOB_RUNNING,
    JOB_RESTARTING,
    JOB_COMPLETING,
    JOB_COMPLETED,
    JOB_TERMINATING,
    JOB_TERMINATED,
    JOB_FAILED,
    JOB_PHASE_COUNT
};

enum pod_phase {
    POD_PENDING,
    POD_RUNNING,
    POD_SUCCEEDED,
    POD_FAILED,
    POD_UNKNOWN,
    POD_PHASE_COUNT,
    POD_ABSENT = POD_PHASE_COUNT, /* no pod: deleted by a kill, to be created again by a sync */
};

enum restart_policy { RESTART_ALWAYS, RESTART_ON_FAILURE, RESTART_NEVER };

enum podgroup_phase { PG_PENDING, PG_INQUEUE, PG_RUNNING, PG_UNKNOWN, PG_COMPLETED, PG_PHASE_COUNT };

/* Why a replica's last attempt ended (containerStatuses[0].state.terminated.reason). */
enum term_reason {
    TERM_NONE,
    TERM_COMPLETED, /* exit 0 */
    TERM_ERROR,     /* non-zero exit or killed by a signal */
    TERM_OOMKILLED,
    TERM_START_ERROR,      /* the command could not be started */
    TERM_SHUTDOWN,         /* stopped because the server shut down; the replica runs again on restart */
    TERM_DELETED,          /* stopped because its job was deleted */
    TERM_STOPPED,          /* stopped by a kill of its job (restart, abort, completion, minSuccess reached) */
    TERM_EVICTED,          /* evicted by preemption or reclaim; the replica runs again later */
    TERM_UNKNOWN,          /* the server lost track of it (crash) */
    TERM_DELETED_POD,      /* its pod was deleted (DELETE on the pod); it is created again */
    TERM_DEADLINE,         /* killed when the pod outlived its activeDeadlineSeconds (DeadlineExceeded) */
    TERM_DISK_FULL,        /* could not start (ENOSPC, EDQUOT), or exited non-zero with its working directory's
                        file system full (DiskFull) */
    TERM_IMAGE_NEVER_PULL, /* an OCI container's image is not present, and is never pulled (ErrImageNeverPull) */
    TERM_CONFIG_ERROR,     /* a ConfigMap, Secret or key its env or volumes name is missing
                              (CreateContainerConfigError) */
    TERM_REASON_COUNT
};

const char *job_phase_name(enum job_phase p);
const char *pod_phase_name(enum pod_phase p);
const char *podgroup_phase_name(enum podgroup_phase p);
const char *term_reason_name(enum term_reason r);
/* Inverse of the *_name functions; -1 when unknown. */
int job_phase_parse(const char *s);
int term_reason_parse(const char *s);
bool job_phase_final(enum job_phase p);

/* One of the Job's spec.volumes, as each pod of a task gets it: a directory of the node's, named to
 * the task by an environment variable and bound at mount_path when the runtime can. */
#define TASK_VOLUMES_MAX 32
struct task_volume {
    char *mount_path; /* absolute, as the Job names it */
    char *claim_name; /* volumeClaimName: a directory shared by every job naming it; NULL for volumeClaim */
    int64_t storage;  /* volumeClaim.resources.requests.storage in bytes (recorded, not enforced), 0 */
    char *env_name;   /* CALDERA_VOLUME_<mountPath upper-cased, '/' and others as '_'> */
    char *dir;        /* the directory, absolute; set by the controller at the job's first start */
};

/* An env variable whose value is the pod's, known when it starts (valueFrom): a field of the pod
 * (fieldRef) or of the container's resources (resourceFieldRef), resolved as the kubelet does. */
struct task_env_ref {
    char *name;
    char *field_path; /* fieldRef.fieldPath ("metadata.labels['x']"), or resourceFieldRef.resource */
    bool resource;    /* resourceFieldRef: field_path is "limits.cpu", "requests.memory"... */
    int64_t divisor;  /* resourceFieldRef.divisor in the resource's units (millicores, bytes) */
    /* configMapKeyRef or secretKeyRef: config is 1 + enum config_kind (0: neither), object_name and
     * key what they name (field_path NULL then); optional: a missing object or key leaves it unset. */
    uint8_t config;
    bool optional;
    char *object_name, *key;
};

/* One envFrom entry: every key of a ConfigMap or Secret as a variable, prefix before its name. */
struct task_env_from {
    uint8_t kind; /* enum config_kind (model/config_object.h) */
    bool optional;
    char *name, *prefix; /* prefix "" when none */
};

/* A configMap or secret volume's items[]: key written at path (relative), mode -1: the default. */
struct pod_volume_item {
    char *key, *path;
    int32_t mode;
};

/* One volumeMounts entry of the container with the pod volume it names: a hostPath (a privilege:
 * the gateway lets only admins give one) or an emptyDir (a directory of the pod's, or a tmpfs). */
enum pod_volume_kind { POD_VOLUME_HOST_PATH, POD_VOLUME_EMPTY_DIR, POD_VOLUME_CONFIG_MAP, POD_VOLUME_SECRET };
/* hostPath.type, as Kubernetes checks it before mounting ("": no check). */
enum host_path_type {
    HOST_PATH_UNSET,
    HOST_PATH_DIRECTORY_OR_CREATE,
    HOST_PATH_DIRECTORY,
    HOST_PATH_FILE_OR_CREATE,
    HOST_PATH_FILE,
    HOST_PATH_SOCKET,
    HOST_PATH_CHAR_DEVICE,
    HOST_PATH_BLOCK_DEVICE,
};
struct pod_mount {
    char *volume;     /* the volume's name */
    char *mount_path; /* absolute, no ".." */
    bool read_only;
    uint8_t kind;       /* enum pod_volume_kind */
    uint8_t host_type;  /* enum host_path_type */
    char *host_path;    /* hostPath.path */
    bool memory;        /* emptyDir medium Memory: a tmpfs */
    int64_t size_limit; /* emptyDir sizeLimit in bytes, 0: none */
    /* configMap and secret volumes: the object (host_path holds its name), its items (none: every
     * key at its own name), defaultMode, and optional (a missing object mounts an empty directory) */
    int nitems;
    struct pod_volume_item *items;
    int32_t default_mode;
    bool optional;
};

/* Frees n items and the array. */
void pod_volume_items_free(struct pod_volume_item *items, int n);

struct task_spec {
    char *name;
    int32_t replicas;
    int32_t min_available;
    struct resvec request; /* one replica's requests (sum over containers), pods = 1 */
    struct resvec limit;   /* one replica's limits; 0 where unlimited */
    char *container_name;
    char *image;         /* recorded, never pulled: the process runtime runs the command on the node */
    char *runtime_class; /* spec.runtimeClassName: NULL (a process on the node) or "oci" (a container) */
    char **argv;         /* command ++ args; NULL when the container has neither */
    char **env;          /* "NAME=value" from the container's env, in order */
    int nenv_refs;
    struct task_env_ref *env_refs; /* the container's env with valueFrom, in order, set after env */
    int nenv_from;
    struct task_env_from *env_from; /* the container's envFrom, in order, set before env */
    char *working_dir;              /* container workingDir, or NULL */
    char *restart_policy;           /* "Never", "OnFailure", "Always" (default Never: see ARCHITECTURE.md) */
    enum restart_policy restart;
    int32_t run_as_uid; /* securityContext.runAsUser (container over pod), -1 when unset */
    int32_t run_as_gid; /* securityContext.runAsGroup, -1 when unset */
    int32_t max_retry;  /* TaskFailed after this many container restarts of a pod; -1: never */
    int npolicies;
    struct lifecycle_policy *policies;
    int ndepends;          /* dependsOn: the tasks that must run first */
    int32_t *depends;      /* their task indexes */
    bool depends_any;      /* iteration: any (else all) */
    int32_t grace_seconds; /* terminationGracePeriodSeconds (default 30) */
    int32_t shrink_to;     /* a scale-down waiting for its extra pods to stop: the new replicas, else -1 */
    json_t *template_tree; /* the task's pod template as accepted (immutable, shared with renderings): a
                              subtree of the manifest, NULL while the job keeps that as text; read it
                              through job_task_template() */
    struct placement_constraints constraints; /* nodeSelector, node affinity, tolerations */
    int64_t pids_max;                         /* the pod template's caldera.io/pids-max annotation, 0 when unset */
    int64_t active_deadline_seconds;          /* PodSpec activeDeadlineSeconds: a pod running longer fails, 0: none */
    int nvolumes;
    struct task_volume *volumes; /* the Job's spec.volumes: every pod mounts every one, as Volcano does */
    int nmounts;
    struct pod_mount *mounts; /* the container's volumeMounts of hostPath and emptyDir volumes */
    char *priority_class;     /* the template's priorityClassName, or NULL: the Job's */
    int32_t priority;         /* its pods' priority (the class's, else the Job's); set at admission */
    uint8_t topology_policy;  /* enum topology_policy: topologyPolicy, or volcano.sh/numa-topology-policy */
    bool preemptable;         /* volcano.sh/preemptable: "true" (pod template, else the Job's annotation) */
    bool revocable_zone;      /* volcano.sh/revocable-zone: "*": it may run on revocable nodes (tdm) */
};

/* What the watch streams were last shown of a pod or job (controller/watch.c): not known yet (restored
 * from the store: shown if it exists), hidden (not in the API yet), shown (+ the pod's phase), gone. */
enum { WATCH_SHOWN_UNKNOWN, WATCH_SHOWN_HIDDEN, WATCH_SHOWN_GONE, WATCH_SHOWN_VISIBLE };

struct cpu_bits;

struct replica {
    uint8_t phase;       /* enum pod_phase */
    uint8_t reason;      /* enum term_reason of the last attempt */
    bool stopping;       /* a kill was sent; the exit is still to come (reason says why) */
    bool vanish;         /* once the stopping process exits, the pod is gone (a kill of the job) */
    bool backoff;        /* Running, its container exited and restarts after a back-off (kubelet's CrashLoopBackOff) */
    bool starting;       /* Running, its attempt is being started in the background (no pid yet) */
    uint16_t restarts;   /* in-place restarts of the current pod (restartCount) */
    uint32_t born;       /* attempts made before the current pod was created: tells pods apart (its uid) */
    int32_t node;        /* index into the cluster's nodes; -1 when not bound */
    int32_t exit_code;   /* of the last attempt */
    uint8_t watch_shown; /* what watches were last shown of it (controller/watch.c): WATCH_SHOWN_* */
    bool watch_dirty;    /* a change of it is in this iteration's journal */
    bool gpus_held;      /* its node's devices in `gpus` are held for it (while bound) */
    int64_t memory;      /* the memory request it holds while bound (the task's, when it was placed) */
    uint32_t attempts;   /* attempts started; the current or last attempt's number */
    int32_t pid;         /* while running, else 0 */
    int32_t proc;        /* runtime handle while running, else -1 */
    int64_t start_ms, end_ms;
    char *message;         /* terminated.message of the last attempt, or NULL */
    uint64_t gpus;         /* the node's GPU devices it was given (model/gpu.h mask), kept after it lets them go */
    struct cpu_bits *cpus; /* the CPUs it holds exclusively (static CPU manager policy, owned), else NULL */
};

/* Replicas of one task by phase, kept up to date by job_set_replica_phase(). */
struct task_counts {
    int32_t pending, running, succeeded, failed, unknown, absent;
    int32_t stopping; /* running replicas a kill was sent to */
};

struct job_status {
    enum job_phase phase;
    char *reason;  /* state.reason, or NULL */
    char *message; /* state.message, or NULL */
    int64_t transition_ms;
    int32_t retry_count;
    int32_t version;
    int32_t pending, running, succeeded, failed, unknown, terminating; /* derived from replicas */
    int64_t running_since_ms; /* when the job last entered Running, 0 if never */
};

struct podgroup {
    enum podgroup_phase phase;
    char *unschedulable; /* the Unschedulable condition's message while it holds, else NULL */
    int64_t unschedulable_ms;
    int64_t scheduled_ms; /* when the gang was first placed, 0 if never */
    int64_t transition_ms;
    struct resvec min_resources;
};

struct journal_entry;

/* Requested against used over the attempts that ended while this server ran (GET /metrics shows it
 * for finished jobs; the history has the whole record). */
struct job_usage {
    int32_t attempts;
    double cpu_requested_s, cpu_used_s;    /* core-seconds: the request times run time; the cgroup's CPU time */
    int64_t memory_requested, memory_peak; /* bytes: the largest request; the highest peak */
    double gpu_requested_s, gpu_used_s;    /* GPU-seconds: devices times run time; times the sampled mean */
};

/* What the WatchDog keeps of a job: whether it told of its long wait or its waste, and where the
 * current waste period started (the running attempts' CPU time and GPU rounds then). */
struct job_watchdog {
    bool pending_noticed, waste_noticed;
    int64_t waste_since_ms; /* 0: no period started */
    int64_t cpu_usec;
    double gpu_util_sum;
    int64_t gpu_rounds;
};

/* What a job's own end (a policy's CompleteJob, AbortJob or TerminateJob) does to its pods: the
 * annotation caldera.io/clean-pod-policy, Kubeflow's runPolicy.cleanPodPolicy. RUNNING is Volcano's
 * own behaviour (running and pending pods go, finished ones stay); NONE leaves running pods to
 * finish, listed with their phase; ALL removes finished pods too. */
enum clean_pods { CLEAN_PODS_RUNNING, CLEAN_PODS_NONE, CLEAN_PODS_ALL };

struct job {
    char *ns;
    char *name;
    char *key; /* "ns/name", the live-name index key */
    char uid[UUID_STR_LEN];
    int64_t created_ms;
    uint64_t resource_version; /* sequence number of the last event that changed it */
    char *queue;
    char *scheduler_name;
    char *priority_class;
    int32_t priority;
    int32_t min_available;
    int32_t max_retry;
    int32_t min_success;      /* 0 when unset */
    uint8_t clean_pods;       /* enum clean_pods */
    int32_t port_base;        /* first of the ports its replicas use (job_plugins_ports_needed), 0: none */
    int32_t ttl_seconds;      /* ttlSecondsAfterFinished, -1 when unset */
    double memory_scale_rate; /* autoMemoryScale.rate, 0 when unset */
    int64_t memory_scale_max; /* autoMemoryScale.maxMemory in bytes */
    int npolicies;
    struct lifecycle_policy *policies;
    int ntasks;
    struct task_spec *tasks;
    struct replica *replicas;        /* all replicas, task by task */
    int32_t *task_first;             /* index of each task's first replica in `replicas` */
    struct task_counts *task_counts; /* per task */
    struct resvec allocated;         /* requests of its replicas holding resources on nodes */
    int32_t total_replicas;
    /* apiVersion, kind, metadata, spec as accepted (no status); immutable. A job restored from the
     * store keeps it as the stored text instead (manifest_text, with its metadata.annotations parsed:
     * kept_annotations, which lives as long as the job) until something reads it: job_manifest()
     * parses it then, and the tasks' templates with it. Read them through job_manifest(),
     * job_task_template(), job_annotations(). */
    json_t *manifest_tree;
    char *manifest_text;
    json_t *kept_annotations;
    /* Start-up only, until the last run's tasks are recovered: the status as stored, which a GET of a
     * job that recovery leaves as it was is answered with before then (scheduler/core/startup.c). */
    char *stored_status;
    json_t *source; /* the object as posted in another dialect (a PyTorchJob, a training
                                 request...) that became this job; NULL for a Volcano Job. Immutable */
    struct job_status status;
    struct podgroup pg;

    /* Bookkeeping of the core; not part of the object. */
    struct job *prev, *next;               /* creation order */
    struct job *active_prev, *active_next; /* the cluster's active list, or its retired list once retired */
    bool active;                           /* in it */
    bool deleted;                          /* removed from the API; kept until its processes are reaped */
    int32_t live_procs;                    /* processes started and not yet reaped */
    int32_t timers;                        /* controller timers armed for it (delayed actions, restarts, TTL) */
    bool prepared;                         /* the job plugins' files are written for the current version */
    uint8_t watch_shown;                   /* WATCH_SHOWN_* of the Job (and its PodGroup) */
    bool watch_touched;                    /* in the controller's list of jobs this iteration changed */
    struct journal_entry *watch_entry;     /* while touched: the last entry of this iteration about it */
    /* A finished job as start-up found it, not read yet: only ns, name, key, uid, created_ms,
     * resource_version, queue, status.phase and pg.phase are set (enough for the indexes and the queue
     * counts); its spec, status and attempts stay in the database until something first reads the job
     * (cluster_wake, controller_wake_job). */
    bool dormant;
    struct job_usage usage;       /* GET /metrics' requested against used of a finished job */
    struct job_watchdog watchdog; /* the WatchDog's marks (not stored: a restart may tell again) */
    /* The engine that runs it (runtime/backend.h; scheduler/controller/remote.c): 0 for this machine. */
    uint8_t backend;         /* enum backend_kind, from its queue's route when it was created; stored */
    uint8_t remote_state;    /* REMOTE_* (scheduler/controller/remote.h) */
    uint32_t remote_sends;   /* how many times it was sent (each send after a stop is a new attempt) */
    int64_t remote_retry_ms; /* a send that failed is tried again from then */
    char *remote_ref;        /* the engine's name for it once sent ("1234", "ns/name"); stored */
};

/* Lays the replicas out again for new per-task counts (a scale): each task keeps its first
 * min(old, new) replicas as they are, gains absent ones, or loses its last ones (which must be
 * absent and not stopping). old_to_new (old total_replicas entries) gets each replica's new flat
 * index, -1 for the lost. Counts are rebuilt. Returns 0, or -1 (out of memory: nothing changed). */
int job_relayout(struct job *job, const int32_t *counts, int32_t *old_to_new);
/* Allocates an empty job with ntasks zeroed task specs. Replicas come with job_alloc_replicas(). */
struct job *job_new(int ntasks);

/* The job's manifest (struct job's manifest_tree); one kept as text is parsed on this first read, on
 * the thread that owns the job, as every read of it is. NULL only when memory ran out then. Logically
 * const: the parsed tree is a cache of the text. */
json_t *job_manifest(const struct job *job);
/* Task t's pod template: a subtree of job_manifest(). */
json_t *job_task_template(const struct job *job, int t);
/* The manifest's metadata.annotations (NULL when it has none), never parsing a manifest kept as text:
 * what the scheduler's plugins read of every waiting job in every cycle. */
const json_t *job_annotations(const struct job *job);
/* Keeps the manifest as text from here on (the restore of a job nothing has read yet): the tree and
 * the templates are let go, the annotations kept. text is the manifest as stored (NULL when its copy
 * failed); taken. Returns 0, or -1 (nothing changed, text freed) when memory runs out. */
int job_keep_manifest_as_text(struct job *job, char *text);
/* How job_manifest() reads a manifest kept as text: fills job's manifest_tree and its tasks'
 * template_tree from job->manifest_text exactly as the job's first parse did. Set once at start-up
 * by the dialect that stores jobs (the model does not parse Jobs). Returns 0, or -1. */
typedef int (*job_manifest_reader)(struct job *job);
void job_set_manifest_reader(job_manifest_reader read);
/* The live-name index key of a job, "<ns>/<name>", malloc'd; NULL when memory runs out. */
char *job_key_new(const char *ns, const char *name);
/* Sizes `replicas` and `task_first` from the tasks' replica counts; all replicas Pending. */
int job_alloc_replicas(struct job *job);
/* Frees the job; a big one (a thousand tasks, or 20,000 replicas, or more) on common/free_later.h's
 * thread, so the caller (often the core) does not wait for its tens of thousands of frees. */
void job_free(struct job *job);

static inline struct replica *job_replica(struct job *job, int task, int index)
{
    return &job->replicas[job->task_first[task] + index];
}
/* The task a flat replica index belongs to. */
int job_task_of(const struct job *job, int flat_index);

/* Changes a replica's phase and keeps the task counts right. Every phase change goes through here. */
void job_set_replica_phase(struct job *job, int flat, enum pod_phase phase);
/* Marks a running replica as stopping (or not) and keeps the counts right. */
void job_set_replica_stopping(struct job *job, int flat, bool stopping);
/* Replicas running (not being stopped) or succeeded: what a gang counts as ready. */
int32_t job_ready_count(const struct job *job);
/* Fills status.pending/running/succeeded/failed/unknown/terminating from the task counts. */
void job_count_replicas(struct job *job);
/* The replica's pod is created anew (after a kill, an eviction, a deletion): a new uid, no restarts. */
static inline void replica_reborn(struct replica *r)
{
    r->born = r->attempts;
    r->restarts = 0;
}
/* Whether replica `flat` is a pod the API shows: not removed by a kill, and, while it waits, only
 * once its gang has been enqueued (Volcano creates pods then). */
static inline bool job_pod_exists(const struct job *job, int flat)
{
    const struct replica *r = &job->replicas[flat];
    return r->phase != POD_ABSENT && (r->phase != POD_PENDING || job->pg.phase != PG_PENDING);
}
/* Writes "<job>-<task>-<index>" into buf; returns buf. */
const char *job_pod_name(const struct job *job, int task, int index, char *buf, int len);
/* Finds the task and index a pod name refers to; returns 0 or -1. */
int job_parse_pod_name(const struct job *job, const char *pod, int *task, int *index);

#endif
