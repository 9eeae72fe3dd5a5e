/* The WatchDog's configuration (jobserver --watchdog FILE) as plain data, with the pure parts of its
 * rules: a queue's capability as a percentage of the cluster, and which webhooks a notice goes to. */
#ifndef CALDERA_WATCHDOG_H
#define CALDERA_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

#include "model/resource.h"

#define WATCHDOG_NOTIFY_ANNOTATION "caldera.io/notify" /* "<webhook>[,<webhook>...]" or "none" */
#define WATCHDOG_USER_ANNOTATION "caldera.io/user"     /* the submitting user, stamped at creation */
#define WATCHDOG_TARGETS_MAX 16                        /* webhooks one notice may go to */

/* The body a webhook is sent: Slack's {"text":...}, Lark/Feishu's text message, or the notice itself. */
enum notify_format { NOTIFY_JSON, NOTIFY_SLACK, NOTIFY_LARK };

/* What a notice is about; a route may pick some of them (bit 1 << kind). */
enum notice_kind {
    NOTICE_COMPLETED,
    NOTICE_FAILED,
    NOTICE_MEMORY_SCALED, /* autoMemoryScale raised a task's memory after an OOM kill */
    NOTICE_EVICTED,       /* a pod was evicted (preempt, reclaim) */
    NOTICE_PENDING,       /* a job waited longer than pendingTimeout */
    NOTICE_WASTE,         /* a running job used under waste.fraction of its request for waste.period */
    NOTICE_KINDS
};
#define NOTICE_ALL ((1u << NOTICE_KINDS) - 1)

struct watchdog_webhook {
    char *name;
    char *url;
    enum notify_format format;
};

/* Jobs of a namespace and/or of a user (NULL: any) go to these webhooks, for these kinds. */
struct watchdog_route {
    char *ns, *user;
    int *webhooks; /* indexes into watchdog_conf.webhooks */
    int nwebhooks;
    unsigned kinds; /* bits of enum notice_kind */
};

/* A queue whose capability follows the cluster: percent[r] of the allocatable sum where has[r]. */
struct watchdog_queue {
    char *name;
    bool has[RES_MAX];
    double percent[RES_MAX]; /* (0, 100] */
};

struct watchdog_conf {
    struct watchdog_webhook *webhooks;
    int nwebhooks;
    struct watchdog_route *routes;
    int nroutes;
    struct watchdog_queue *queues;
    int nqueues;
    int64_t pending_ms;      /* pendingTimeout; 0: no pending notices */
    double waste_fraction;   /* waste.fraction; 0: no waste notices */
    int64_t waste_period_ms; /* waste.period */
    int retries;             /* retry.attempts - 1: tries after the first */
    int64_t backoff_ms;      /* retry.backoff: the first wait, doubled each time */
    int64_t timeout_ms;      /* one POST's limit */
    int queue_size;          /* notices waiting for the sender at most; more are dropped and counted */
};

/* One notice, as the controller saw it; the strings are the caller's. */
struct notice {
    enum notice_kind kind;
    const char *ns, *job, *uid, *user, *queue;
    const char *phase;   /* the job's phase now */
    const char *reason;  /* the job's or the event's reason, may be "" */
    const char *message; /* a sentence: what happened, with the figures */
    const char *pod;     /* the pod it is about, or "" */
    int32_t exit_code;   /* the failing pod's, when has_exit_code */
    bool has_exit_code;
    int64_t created_ms, started_ms, finished_ms; /* 0: not (yet) */
    int64_t time_ms;                             /* when it happened */
};

void watchdog_conf_free(struct watchdog_conf *c);
/* A webhook's index by name, or -1. */
int watchdog_webhook_index(const struct watchdog_conf *c, const char *name);
const char *notice_kind_name(enum notice_kind k);
/* By name ("Completed", "Failed", "MemoryScaled", "Evicted", "PendingTooLong", "Waste"), or -1. */
int notice_kind_from_name(const char *name);

/* percent of total in resource r's unit, rounded down; never below one unit when percent and total are
 * above 0 (a queue's capability of 0 would read as no limit at all). */
int64_t watchdog_percent_of(int r, double percent, int64_t total);
/* The capability q gives a queue on a cluster whose allocatable sums to total: the resources q names,
 * 0 elsewhere (not limited). */
void watchdog_capability(const struct watchdog_queue *q, const struct resvec *total, struct resvec *out);

/* The webhooks a notice of kind about a job of ns by user goes to, into out (at most max): the job's
 * annotation when it has one ("none": nowhere; unknown names are skipped and counted in *unknown),
 * else every route matching ns and user and kind, each webhook once. Returns how many. */
int watchdog_targets(const struct watchdog_conf *c, enum notice_kind kind, const char *ns, const char *user,
                     const char *annotation, int *out, int max, int *unknown);

#endif
