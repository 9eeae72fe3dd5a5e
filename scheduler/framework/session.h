/* One scheduling cycle: a snapshot of the cluster (node idle resources, jobs with work to place),
 * the plugins' callbacks registered tier by tier, and the decisions the actions make.
 * Pure: no I/O, no clock, no globals; the core applies the decisions afterwards. */
#ifndef CALDERA_SESSION_H
#define CALDERA_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "scheduler/api/cluster.h"
#include "scheduler/framework/conf.h"

#define SESSION_REASON_MAX 96

struct session;

struct node_info {
    const struct node *node;
    int index;              /* in the cluster's nodes */
    struct resvec idle;     /* allocatable - used - placed in this session */
};

/* The pending replicas of one task: they share a template, so they are placed as a group. */
struct task_info {
    int task;               /* index into job->tasks */
    const struct resvec *request;
    int32_t pending;        /* replicas still waiting for a node */
    bool best_effort;       /* requests nothing but a pod slot: placed by backfill */
};

struct job_info {
    const struct job *job;
    int queue;              /* index into the session's queues, -1 when the queue is unknown */
    int32_t ready;          /* replicas running, succeeded, or placed in this session */
    int32_t pending;        /* replicas not placed yet */
    bool inqueue;           /* its PodGroup has left Pending (or enqueue just moved it) */
    bool enqueued_now;      /* decision: move the PodGroup to Inqueue */
    bool placed_now;        /* decision: at least one bind this cycle */
    bool tried;             /* an action tried to place it this cycle */
    int ntasks;
    struct task_info *tasks;
    char fit_error[512];    /* "0/3 nodes are available: 3 insufficient cpu", when a replica did not fit */
    char *unschedulable;    /* the PodGroup condition message to show, NULL when schedulable (owned) */
};

struct queue_info {
    const struct queue *queue;
};

struct bind_decision {
    int job;                /* index into the session's jobs */
    int task;
    int node;               /* index into the session's nodes (= cluster node index) */
    int32_t count;          /* replicas of that task bound to that node */
};

/* Extension points, as Volcano's session exposes them. `state` is the plugin's own. */
typedef int (*job_order_fn)(void *state, const struct job_info *a, const struct job_info *b);
typedef bool (*predicate_fn)(void *state, const struct job_info *job, const struct task_info *task,
                             const struct node_info *node, char *reason, int reason_len);
typedef double (*node_order_fn)(void *state, const struct task_info *task, const struct node_info *node);
typedef bool (*job_ready_fn)(void *state, const struct job_info *job);
typedef bool (*job_valid_fn)(void *state, const struct job_info *job, char *why, int why_len);
/* +1 permits, 0 abstains, -1 rejects. */
typedef int (*job_enqueueable_fn)(void *state, const struct job_info *job);

struct session {
    const struct sched_conf *conf;
    const struct cluster *cluster;
    int64_t now_ms;

    struct node_info *nodes;
    int nnodes;
    struct job_info *jobs;
    int njobs;
    struct queue_info *queues;
    int nqueues;

    struct bind_decision *binds;
    int nbinds, binds_cap;
    bool out_of_memory;     /* a decision could not be recorded: the core drops this cycle */

    struct session_hooks *hooks; /* registered callbacks (private) */
};

/* Builds the snapshot and opens the configured plugins. Returns 0 or -1 (out of memory). */
int session_open(struct session *ssn, const struct cluster *cluster, const struct sched_conf *conf, int64_t now_ms);
/* Runs the configured actions in order. */
void session_run(struct session *ssn);
/* Closes the plugins (they write their verdicts, e.g. gang's Unschedulable messages). */
void session_close(struct session *ssn);
/* Frees the snapshot and decisions. */
void session_free(struct session *ssn);

/* Registration, called by plugins from their open function. Each honours the plugin's enable switch. */
void session_add_job_order(struct session *ssn, const struct plugin_conf *pc, int tier, job_order_fn fn, void *state);
void session_add_predicate(struct session *ssn, const struct plugin_conf *pc, int tier, predicate_fn fn, void *state);
void session_add_node_order(struct session *ssn, const struct plugin_conf *pc, int tier, node_order_fn fn, void *state);
void session_add_job_ready(struct session *ssn, const struct plugin_conf *pc, int tier, job_ready_fn fn, void *state);
void session_add_job_valid(struct session *ssn, const struct plugin_conf *pc, int tier, job_valid_fn fn, void *state);
void session_add_job_enqueueable(struct session *ssn, const struct plugin_conf *pc, int tier, job_enqueueable_fn fn,
                                 void *state);

/* What actions ask. Job order falls back to creation time, then uid, as Volcano's does. */
int session_job_order(const struct session *ssn, const struct job_info *a, const struct job_info *b);
bool session_predicate(const struct session *ssn, const struct job_info *job, const struct task_info *task,
                       const struct node_info *node, char *reason, int reason_len);
double session_node_score(const struct session *ssn, const struct task_info *task, const struct node_info *node);
bool session_job_ready(const struct session *ssn, const struct job_info *job);
bool session_job_valid(const struct session *ssn, const struct job_info *job, char *why, int why_len);
bool session_job_enqueueable(const struct session *ssn, const struct job_info *job);

/* Calls fn for every job of the session in session_job_order. Returns -1 when out of memory. */
int session_each_job(struct session *ssn, void (*fn)(struct session *ssn, struct job_info *job));

/* Tries to place a job's pending replicas as one statement, committed only when the job is then
 * ready (session_job_ready: gang), else rolled back. With best_effort_only, only best-effort
 * replicas are placed (backfill); otherwise the others first, then best-effort ones, so a job that
 * mixes both can complete its gang in one go. Returns true when placements were committed; on
 * failure job->fit_error says why the first replica that found no node did not. */
bool session_place_job(struct session *ssn, struct job_info *job, bool best_effort_only);

#endif
