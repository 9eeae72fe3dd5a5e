/* What the core hands the store writer: one entry per state change. Every entry is an event
 * (a row in `events`, with the global sequence number) and may carry one row change with it. */
#ifndef CALDERA_JOURNAL_H
#define CALDERA_JOURNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

enum journal_op {
    JOURNAL_EVENT,         /* only the event row */
    JOURNAL_JOB_CREATE,    /* insert the jobs row: spec_json + status_json */
    JOURNAL_JOB_STATUS,    /* update the jobs row's status_json and resource_version */
    JOURNAL_JOB_DELETE,    /* mark the jobs row deleted (history stays) */
    JOURNAL_ATTEMPT_START, /* insert an attempts row (with its end too when end_ms is set) */
    JOURNAL_ATTEMPT_END,   /* fill in the end of an attempts row */
    JOURNAL_QUEUE_PUT,     /* insert or replace a queues row */
    JOURNAL_QUEUE_DELETE,  /* delete a queues row */
    JOURNAL_OBJECT_PUT,    /* insert or replace an objects row: PriorityClass, ResourceQuota */
    JOURNAL_OBJECT_DELETE, /* delete an objects row */
    JOURNAL_JOB_SPEC,      /* replace the jobs row's spec_json (and status_json when set) */
    JOURNAL_ATTEMPT_CARRY, /* an attempts row's pod outlived a kill of its job: kept into attempt.job_version */
    JOURNAL_NODE_PUT,      /* insert or replace a nodes row: node_name, node_json (updated at ev.time_ms) */
    JOURNAL_COMMAND,       /* insert a commands row (keyed by ev.seq): ns, name (the job), job_uid,
                              command_action, command_reason, command_json */
};

/* The event part: what happened to which object. Strings are owned by the entry. */
struct journal_event {
    uint64_t seq;     /* global, strictly increasing; also the changed object's resourceVersion */
    int64_t time_ms;  /* wall clock */
    char *kind;       /* "Job", "Pod", "PodGroup", "Queue", "Node" */
    char *ns;         /* "" for cluster-scoped objects */
    char *name;       /* object name (pod name for pods) */
    char *job_uid;    /* the job this is about, "" when none: history queries go by it */
    char *job_name;   /* that job's name, "" when none (not stored: the streams show it) */
    char *from_phase; /* "" when the object is new */
    char *to_phase;   /* "" when the object is gone */
    char *reason;     /* short CamelCase, may be "" */
    char *message;    /* a sentence, may be "" */
    char *uid;        /* the object's own uid where it has one apart from its job's (a pod's), else NULL */
};

struct journal_attempt {
    char *job_uid;
    char *pod; /* "<job>-<task>-<index>" */
    char *task;
    int32_t index;   /* replica index within the task */
    int32_t attempt; /* 1, 2, ... per pod */
    int32_t job_version;
    char *node;
    int32_t pid;
    int64_t pid_start; /* the process's start time in clock ticks since boot (/proc/<pid>/stat field 22) */
    char *cgroup;      /* ATTEMPT_START: where it runs, as /proc/<pid>/cgroup says it ("" without cgroups) */
    char *gpus;        /* ATTEMPT_START: the indexes of the node's GPU devices it holds ("2,3"), "" for none */
    int64_t start_ms;
    char *log_path; /* relative to the data directory */
    /* ATTEMPT_END, or ATTEMPT_START of an attempt that could not start: */
    int64_t end_ms;
    int32_t exit_code;
    char *reason; /* "Completed", "Error", "OOMKilled", "StartError", "Shutdown", "Deleted", "Unknown" */
    char *message;
    char *outcome;       /* what became of the pod: "", "Requeued", "Restarting", "Deleted" */
    int64_t peak_memory; /* bytes, 0 when unknown */
    int64_t cpu_usec;
    /* ATTEMPT_END: what it asked for (one replica's requests) and what its GPUs showed */
    int64_t cpu_request_milli, memory_request, gpu_request;
    bool gpu_sampled;        /* its GPUs were sampled while it ran: the three below are set */
    double gpu_util_mean;    /* percent over the samples */
    int32_t gpu_util_peak;   /* percent */
    int64_t gpu_memory_peak; /* MiB used on its devices together */
};

/* What a Kubernetes watch shows of one object after a change: rendered by the core at the end of
 * the loop iteration in which the object last changed (one per object and iteration), carried to
 * the store writer with the entry of that last change, never written to the database, and handed to
 * the live streams once the entry is committed. */
enum watch_type { WATCH_ADDED, WATCH_MODIFIED, WATCH_DELETED };

struct watch_object {
    struct watch_object *next;
    enum watch_type type;
    char *api_version; /* "batch.volcano.sh/v1alpha1", "v1", "kubeflow.org/v1"... */
    char *kind;        /* "Job", "Pod", "PodGroup", "Queue", "PyTorchJob"... */
    char *ns;          /* "" for cluster-scoped objects */
    char *name;
    char *source_kind; /* a Volcano Job posted in another dialect: that dialect's kind, else NULL */
    json_t *object;    /* the object; immutable from the moment it is attached. The hub keeps only
                           its text (a tree costs several times that) and, for label selectors: */
    json_t *labels;    /* its metadata.labels, once the hub has dropped the tree (NULL: none) */
};

/* A new watch object (strings copied, object's reference taken over); NULL when memory runs out
 * (object is released then). */
struct watch_object *watch_object_new(enum watch_type type, const char *api_version, const char *kind, const char *ns,
                                      const char *name, json_t *object);
void watch_object_free(struct watch_object *w);
/* Frees a list of them. */
void watch_objects_free(struct watch_object *list);

struct journal_entry {
    struct journal_entry *next;
    enum journal_op op;
    struct journal_event ev;
    /* JOB_* ops, and COMMAND (the job it acted on) */
    char *job_uid, *ns, *name;
    int64_t created_ms;
    char *spec_json;   /* JOB_CREATE, JOB_SPEC (its spec.tasks[] also become the tasks rows) */
    char *status_json; /* JOB_CREATE, JOB_STATUS */
    char *source_json; /* JOB_CREATE: the object as posted in another dialect, NULL for a Volcano Job; JOB_SPEC:
                          the object as changed (a DebugSession's extension), NULL when unchanged */
    /* ATTEMPT_* ops */
    struct journal_attempt attempt;
    /* QUEUE_PUT, QUEUE_DELETE */
    char *queue_name, *queue_json;
    /* OBJECT_PUT, OBJECT_DELETE: kind ("PriorityClass", "ResourceQuota"), namespace ("" when
     * cluster-scoped), name, and the object's JSON (PUT only) */
    char *object_kind, *object_ns, *object_name, *object_json;
    /* NODE_PUT: the node's name and its v1 Node JSON */
    char *node_name, *node_json;
    /* COMMAND: the action's name ("AbortJob"), the reason given ("" when none) and the Command
     * object as JSON; the job is ns/name/job_uid above */
    char *command_action, *command_reason, *command_json;
    /* The objects a watch shows after this entry, in order (never stored; see watch_object), and
     * whether the core rendered them at all (it does only while someone watches objects). */
    struct watch_object *watch, *watch_tail;
    bool watch_rendered;
};

/* Appends a watch object to the entry's list (w may be NULL: nothing happens). */
void journal_entry_add_watch(struct journal_entry *e, struct watch_object *w);

/* A new zeroed entry with op set; NULL when memory runs out. */
struct journal_entry *journal_entry_new(enum journal_op op);
/* Frees an entry and every string it owns (any field may be NULL). */
void journal_entry_free(struct journal_entry *e);

/* A FIFO of entries built on the core thread and handed to the store in one piece. */
struct journal_list {
    struct journal_entry *head, *tail;
    int count;
};

void journal_list_push(struct journal_list *l, struct journal_entry *e);
void journal_list_free(struct journal_list *l);

#endif
