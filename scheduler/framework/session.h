/* One scheduling cycle over one scheduler zone: a snapshot of the cluster (node idle resources,
 * queues, jobs with work to place), the plugins' callbacks registered tier by tier as Volcano's
 * session holds them, and the decisions the actions make (binds, enqueues, evictions, reasons).
 * Pure: no I/O, no clock, no globals; the core applies the decisions afterwards. */
#ifndef CALDERA_SESSION_H
#define CALDERA_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "model/cluster.h"
#include "model/sched_conf.h"

#define SESSION_REASON_MAX 96
#define SESSION_MESSAGE_MAX 512

struct session;
struct session_hooks;
struct session_victims;
struct filter_cache;
struct unfit_cache;
struct pod_index;
struct task_pod_rules;

struct node_info {
    const struct node *node;
    int index;               /* in the cluster's nodes */
    struct resvec idle;      /* allocatable - used - placed in this session */
    struct resvec releasing; /* requests of replicas being stopped there (evictions in flight) */
};

/* The pending replicas of one task: they share a template, so they are placed as a group. */
struct job_info;
struct task_info {
    int task;                   /* index into job->tasks */
    const struct job_info *job; /* the job_info it belongs to */
    const struct task_spec *spec;
    const struct resvec *request;
    int32_t pending;         /* replicas still waiting for a node */
    bool best_effort;        /* requests nothing but a pod slot: placed by backfill */
    int filter;              /* the static-filter cache entry, -1 until computed */
    bool pod_rules;          /* a node was refused by a rule about other pods (affinity, spread) this session */
    bool pod_rules_resolved; /* pod_index.c looked its rules up (NULL: none) */
    const struct task_pod_rules *rules_of; /*   and found these */
};

struct job_info {
    const struct job *job;
    int queue;               /* index into the session's queues, -1 when unknown */
    int32_t ready;           /* replicas running, succeeded, or placed/pipelined now */
    int32_t pending;         /* replicas not placed yet */
    int32_t evicted_now;     /* of its running replicas, how many this session evicts */
    struct resvec allocated; /* requests held on nodes, plus placed now */
    bool inqueue;            /* its PodGroup has left Pending (or enqueue just moved it) */
    bool enqueued_now;       /* decision: move the PodGroup to Inqueue */
    bool placed_now;         /* decision: at least one bind this cycle */
    bool pipelined;          /* preempt/reclaim evicted for it: it waits for their release */
    bool tried;              /* an action tried to place it this cycle */
    int ntasks;
    struct task_info *tasks;
    char fit_error[SESSION_MESSAGE_MAX]; /* "0/3 nodes are available: 3 insufficient cpu." */
    char reason[SESSION_MESSAGE_MAX];    /* the limit that holds it (queue share, capability, quota...) */
    char *unschedulable;                 /* the PodGroup condition message to show, NULL when schedulable (owned) */
    void *plugin_data;                   /* one word for plugins that keep per-job state (drf) */
};

struct queue_info {
    const struct queue *queue;
    int parent;              /* index of the parent queue, -1 at the top */
    struct resvec allocated; /* held on this zone's nodes by its jobs, plus placed now */
    struct resvec request;   /* allocated + what its jobs still want */
    struct resvec inqueue;   /* minResources of its enqueued jobs not yet running (enqueue's reserve) */
    struct resvec deserved;  /* its fair share (proportion); the whole zone when nothing computes it */
    double share;            /* max over resources of allocated / deserved */
    bool blocked;            /* dequeueStrategy fifo: its head job could not be placed */
};

struct bind_decision {
    int job; /* index into the session's jobs */
    int task;
    int node;      /* index into the session's nodes */
    int32_t count; /* replicas of that task bound to that node */
};

/* A running replica that preempt or reclaim may evict. */
struct victim {
    const struct job *job;
    int32_t flat; /* the replica */
    int node;     /* index into the session's nodes */
    int queue;    /* index into the session's queues, -1 outside this zone's queues */
    int job_info; /* index into the session's jobs, -1 when the job has nothing pending */
    const struct resvec *request;
    int32_t priority;
    int64_t start_ms;
    bool evicted; /* chosen by this session */
};

struct evict_decision {
    const struct job *job;
    int32_t flat;
    char message[160]; /* "preempted by default/urgent (priority 1000 > 0)" */
};

/* Extension points, as Volcano's session exposes them. `state` is the plugin's own. Order
 * functions return <0 when a goes first, >0 when b does, 0 when they do not decide. */
typedef int (*job_order_fn)(void *state, const struct job_info *a, const struct job_info *b);
typedef int (*queue_order_fn)(void *state, const struct queue_info *a, const struct queue_info *b);
/* Which of a job's tasks has its replicas placed first (Volcano's TaskOrderFn). */
typedef int (*task_order_fn)(void *state, const struct job_info *job, const struct task_info *a,
                             const struct task_info *b);
/* Dynamic predicate: may one more replica go to this node now (resources, pod count)? */
typedef bool (*predicate_fn)(void *state, const struct job_info *job, const struct task_info *task,
                             const struct node_info *node, char *reason, int reason_len);
/* Static filter: may this task ever go to this node (labels, affinity, taints)? Its answer must
 * depend only on the task's constraints signature and the node, so it is computed once per
 * signature and node per session. */
typedef bool (*node_filter_fn)(void *state, const struct task_info *task, const struct node *node, char *reason,
                               int reason_len);
typedef double (*node_order_fn)(void *state, const struct task_info *task, const struct node_info *node);
typedef bool (*job_ready_fn)(void *state, const struct job_info *job);
typedef bool (*job_valid_fn)(void *state, const struct job_info *job, char *why, int why_len);
typedef bool (*job_starving_fn)(void *state, const struct job_info *job);
/* +1 permits, 0 abstains, -1 rejects (and says why). */
typedef int (*job_enqueueable_fn)(void *state, const struct job_info *job, char *why, int why_len);
/* May the queue take one more replica of task (proportion: within deserved; quota)? */
typedef bool (*allocatable_fn)(void *state, const struct queue_info *queue, const struct job_info *job,
                               const struct task_info *task, char *why, int why_len);
typedef bool (*overused_fn)(void *state, const struct queue_info *queue);
/* Keeps, in place, the candidates that may be evicted for job; returns how many remain. */
typedef int (*victims_fn)(void *state, const struct job_info *job, struct victim **cands, int n);
/* Orders namespaces within a queue (drf's namespace fair share). */
typedef int (*namespace_order_fn)(void *state, const char *a, const char *b);
/* Told whenever resources move in the session (+1 placed, -1 undone or evicted) so plugins can
 * keep shares current. info is NULL for a job with nothing pending (an eviction victim's). */
typedef void (*allocate_event_fn)(void *state, const struct job *job, struct job_info *info,
                                  const struct resvec *request, int32_t count, int sign);

/* Told when count replicas of a task are placed on session node `node` (count < 0: undone by a
 * rollback, the last placed first), for plugins that follow where a job's replicas go. */
typedef void (*bind_event_fn)(void *state, const struct job_info *job, const struct task_info *task, int node,
                              int32_t count);

struct session {
    const struct sched_conf *conf;
    const struct plugin_registry *registry; /* where the conf's plugins and actions are found */
    const struct cluster *cluster;
    const char *scheduler_name; /* the zone: jobs with this spec.schedulerName */
    int64_t now_ms;

    struct node_info *nodes;
    int nnodes;
    struct resvec total; /* allocatable of this zone's nodes */
    struct job_info *jobs;
    int njobs;
    struct queue_info *queues;
    int nqueues;

    struct bind_decision *binds;
    int nbinds, binds_cap;
    struct evict_decision *evicts;
    int nevicts, evicts_cap;
    bool out_of_memory; /* a decision could not be recorded: the core drops this cycle */

    int nodes_to_find;               /* feasible nodes to look at per task group (Volcano's sampling) */
    int next_start;                  /* where the next node scan starts (rotates, as Volcano's does) */
    struct session_hooks *hooks;     /* registered callbacks (private) */
    struct filter_cache *filters;    /* static filter results by constraints signature (private) */
    struct session_victims *victims; /* running replicas by node, built when preempt/reclaim need them */
    struct unfit_cache *unfit;       /* task shapes that fit no node in this session (private) */
    uint32_t release_gen;            /* bumped when resources come free in the session (rollbacks) */
    struct pod_index *pods;          /* pods per domain for inter-pod rules, built on first use (pod_index.h) */
};

/* The zone a session covers. NULL node_indexes means every node. */
struct session_zone {
    const char *scheduler_name;
    const int *node_indexes;
    int nnodes;
};

/* A session's life (lifecycle.c). Builds the snapshot for a zone and opens the configured plugins,
 * found in registry.
 * Returns 0 or -1 (out of memory). */
struct plugin_registry;
int session_open(struct session *ssn, const struct plugin_registry *registry, const struct cluster *cluster,
                 const struct sched_conf *conf, const struct session_zone *zone, int64_t now_ms);
/* Runs the configured actions in order. */
void session_run(struct session *ssn);
/* Closes the plugins (they write their verdicts, e.g. gang's Unschedulable messages). */
void session_close(struct session *ssn);
/* Frees the snapshot and decisions. */
void session_free(struct session *ssn);

/* Registration, called by plugins from their open function. Each honours the plugin's enable switch. */
void session_add_job_order(struct session *ssn, const struct plugin_conf *pc, int tier, job_order_fn fn, void *state);
void session_add_queue_order(struct session *ssn, const struct plugin_conf *pc, int tier, queue_order_fn fn,
                             void *state);
void session_add_task_order(struct session *ssn, const struct plugin_conf *pc, int tier, task_order_fn fn, void *state);
void session_add_predicate(struct session *ssn, const struct plugin_conf *pc, int tier, predicate_fn fn, void *state);
void session_add_node_filter(struct session *ssn, const struct plugin_conf *pc, int tier, node_filter_fn fn,
                             void *state);
void session_add_node_order(struct session *ssn, const struct plugin_conf *pc, int tier, node_order_fn fn, void *state);
void session_add_job_ready(struct session *ssn, const struct plugin_conf *pc, int tier, job_ready_fn fn, void *state);
void session_add_job_valid(struct session *ssn, const struct plugin_conf *pc, int tier, job_valid_fn fn, void *state);
void session_add_job_starving(struct session *ssn, const struct plugin_conf *pc, int tier, job_starving_fn fn,
                              void *state);
void session_add_job_enqueueable(struct session *ssn, const struct plugin_conf *pc, int tier, job_enqueueable_fn fn,
                                 void *state);
void session_add_allocatable(struct session *ssn, const struct plugin_conf *pc, int tier, allocatable_fn fn,
                             void *state);
void session_add_overused(struct session *ssn, const struct plugin_conf *pc, int tier, overused_fn fn, void *state);
void session_add_preemptable(struct session *ssn, const struct plugin_conf *pc, int tier, victims_fn fn, void *state);
void session_add_reclaimable(struct session *ssn, const struct plugin_conf *pc, int tier, victims_fn fn, void *state);
void session_add_namespace_order(struct session *ssn, const struct plugin_conf *pc, int tier, namespace_order_fn fn,
                                 void *state);
void session_add_allocate_event(struct session *ssn, allocate_event_fn fn, void *state);
void session_add_bind_event(struct session *ssn, bind_event_fn fn, void *state);

/* What actions ask. Job order falls back to creation time, then uid, as Volcano's does; queue
 * order to the queue's creation time, then name. */
int session_job_order(const struct session *ssn, const struct job_info *a, const struct job_info *b);
int session_queue_order(const struct session *ssn, const struct queue_info *a, const struct queue_info *b);
/* Task order within a job falls back to the tasks' order in the Job. */
int session_task_order(const struct session *ssn, const struct job_info *job, const struct task_info *a,
                       const struct task_info *b);
int session_namespace_order(const struct session *ssn, const char *a, const char *b);
bool session_predicate(const struct session *ssn, const struct job_info *job, const struct task_info *task,
                       const struct node_info *node, char *reason, int reason_len);
double session_node_score(const struct session *ssn, const struct task_info *task, const struct node_info *node);
bool session_job_ready(const struct session *ssn, const struct job_info *job);
bool session_job_valid(const struct session *ssn, const struct job_info *job, char *why, int why_len);
bool session_job_starving(const struct session *ssn, const struct job_info *job);
bool session_job_enqueueable(const struct session *ssn, const struct job_info *job, char *why, int why_len);
bool session_allocatable(const struct session *ssn, const struct job_info *job, const struct task_info *task, char *why,
                         int why_len);
bool session_overused(const struct session *ssn, const struct queue_info *queue);
int session_preemptable(const struct session *ssn, const struct job_info *job, struct victim **cands, int n);
int session_reclaimable(const struct session *ssn, const struct job_info *job, struct victim **cands, int n);

/* Does the task's static filter pass this node (labels, affinity, taints), computed once per
 * constraints signature? reason gets the first failing filter's words when it does not. */
bool session_node_passes_filters(struct session *ssn, struct task_info *task, int node, char *reason, int reason_len);

/* Calls fn for every job of the session in job order, queue by queue as Volcano's allocate does:
 * the queue with the lowest share next (skipping overused and blocked queues when skip_limited),
 * its best job, then the queues are ordered again. Returns -1 when out of memory. */
int session_each_job(struct session *ssn, bool skip_limited, void (*fn)(struct session *ssn, struct job_info *job));

/* Tries to place a job's pending replicas as one statement, committed only when the job is then
 * ready (session_job_ready: gang), else rolled back. With best_effort_only, only best-effort
 * replicas are placed (backfill); otherwise the others first, then best-effort ones, so a job that
 * mixes both can complete its gang in one go. Returns true when placements were committed; on
 * failure job->fit_error or job->reason says why. */
bool session_place_job(struct session *ssn, struct job_info *job, bool best_effort_only);

/* Records resources moving for a job in the session (keeps job, queue and plugin state current;
 * hooks.c, beside the allocate hooks it tells). info may be NULL when the job has nothing pending
 * (a victim's); queue is the job's queue index. */
void session_account(struct session *ssn, const struct job *job, struct job_info *info, int queue,
                     const struct resvec *request, int32_t count, int sign);
/* The session's index of a queue by name, or -1. */
int session_queue_index(const struct session *ssn, const char *name);

/* The running replicas on a node that this session may still evict (built on first use). Sets *n. */
struct victim **session_victims_on(struct session *ssn, int node, int *n);
/* Records an eviction decision and moves the victim's resources to the node's releasing. */
int session_evict(struct session *ssn, struct victim *v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Undoes evictions: the chosen victims are running again in the session's eyes and the decisions
 * from mark on are dropped (a preemptor's statement that did not work out). */
void session_unevict(struct session *ssn, int mark, struct victim **chosen, int nchosen);

/* Volcano's CalculateNumOfFeasibleNodesToFind: all nodes up to 100, else an adaptive share of
 * them (50% - nodes/125, at least 5%), at least 100. */
int session_nodes_to_find(int nnodes, int min_nodes, int percentage);

#endif
