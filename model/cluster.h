/* All live state the core thread owns: nodes, queues and jobs, with the indexes to find them.
 * Only the core thread touches a cluster; placement sees it through a session snapshot. */
#ifndef CALDERA_CLUSTER_H
#define CALDERA_CLUSTER_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/hashmap.h"
#include "model/job.h"
#include "model/node.h"
#include "model/priority.h"
#include "model/queue.h"
#include "model/config_object.h"
#include "model/cronjob.h"
#include "model/jobflow.h"
#include "model/quota.h"

struct cluster {
    struct node *nodes;
    int nnodes;
    struct queue **queues;
    int nqueues;
    struct hmap jobs_by_key;                  /* "ns/name" -> live job */
    struct hmap jobs_by_uid;                  /* uid -> job, deleted ones too until reaped */
    struct priority_class **priority_classes; /* built-ins first, then created ones */
    int npriority_classes;
    struct resource_quota **quotas; /* every namespace's ResourceQuotas */
    int nquotas;
    struct cron_job **cronjobs; /* every namespace's CronJobs */
    int ncronjobs;
    struct config_object **configs; /* every namespace's ConfigMaps and Secrets */
    int nconfigs;
    struct job_template **jobtemplates; /* every namespace's JobTemplates */
    int njobtemplates;
    struct job_flow **jobflows; /* every namespace's JobFlows */
    int njobflows;
    struct job *first, *last; /* every job, in creation order */
    int njobs;
    /* The jobs placement must look at: all but the finished ones holding nothing (creation order).
     * Thousands of finished jobs stay for the API; a cycle never walks them. */
    struct job *active_first, *active_last;
    int nactive;
    /* The others, in the order they left the active list (the latest last), through the same links:
     * dormant jobs restored at start-up first, then every job that finished since. */
    struct job *retired_first, *retired_last;
    int nretired;
    uint64_t seq; /* the last event sequence number handed out */
    /* Parses a dormant job in place (its pointer stays valid); 0, or -1 when it cannot be. The
     * finders below wake what they find, and return NULL for a job that cannot be woken. */
    int (*wake)(void *ctx, struct job *job);
    void *wake_ctx;
    /* The thread that owns it (cluster_claim): the core's while it runs. None before the core
     * starts (the start-up restore on main), nor in unit tests and bin/simulate, which drive the
     * controller from one thread of their own without claiming. */
    pthread_t owner;
    bool owned;
};

/* The calling thread becomes the cluster's owner: the core thread as it starts, main again after
 * joining it. cluster_assert_owner() (an assert: nothing in NDEBUG builds) checks that code
 * touching the cluster runs on its owner, or that it has none. */
void cluster_claim(struct cluster *c);
bool cluster_on_owner(const struct cluster *c);
#define cluster_assert_owner(c) assert(cluster_on_owner(c))

/* The job, parsed if it was dormant; NULL when it cannot be. For loops over `first`. */
struct job *cluster_wake(const struct cluster *c, struct job *job);

struct job *cluster_find_job(const struct cluster *c, const char *ns, const char *name);
struct job *cluster_find_job_uid(const struct cluster *c, const char *uid);
/* Indexes a job (key must be set); returns 0 or -1 on allocation failure. */
int cluster_add_job(struct cluster *c, struct job *job);
/* cluster_add_job for jobs coming in creation order into a list that already holds others (start-up's
 * sleeping jobs after the awake ones): the place is looked for forward from *cursor (NULL: the
 * first), which is left at the job added, so a sorted run costs one pass over the list. */
int cluster_add_job_after(struct cluster *c, struct job *job, struct job **cursor);
/* The order of `first`..`last` (kept by cluster_add_job, so list pages resume where they ended
 * whatever was created or deleted meanwhile): creationTimestamp, then uid. <0, 0 or >0 as job comes
 * before, is, or comes after (created_ms, uid). */
int job_order_compare(const struct job *job, int64_t created_ms, const char *uid);
/* Takes a job out of the name index (its name can be reused); it stays listed by uid. */
void cluster_unname_job(struct cluster *c, struct job *job);
/* Moves a finished job that holds nothing from the active list to the end of the retired list (no-op
 * when it is not in the active list). */
void cluster_retire_job(struct cluster *c, struct job *job);
/* Takes a job out of every index; the caller frees it. */
void cluster_remove_job(struct cluster *c, struct job *job);

struct queue *cluster_find_queue(const struct cluster *c, const char *name);
int cluster_add_queue(struct cluster *c, struct queue *q);
int cluster_find_node(const struct cluster *c, const char *name);
struct priority_class *cluster_find_priority_class(const struct cluster *c, const char *name);
/* The globalDefault class, or NULL. */
struct priority_class *cluster_default_priority_class(const struct cluster *c);

/* Finds the job and replica a pod name refers to; returns the job or NULL. */
struct job *cluster_find_pod(const struct cluster *c, const char *ns, const char *pod, int *task, int *index);

/* The node of that name, added as an engine's node (node.remote, unschedulable, labelled
 * caldera.io/backend) when there is none: the node a backend's pod ran on. Its index, or -1 when
 * out of memory. Nodes may move in memory: hold indexes, not pointers. */
int cluster_add_remote_node(struct cluster *c, const char *name, const char *backend, int64_t now_ms);
void cluster_free(struct cluster *c);

#endif
