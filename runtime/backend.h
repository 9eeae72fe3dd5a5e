/* A backend: the engine that runs a job's tasks on machines Caldera does not own (Kubernetes with
 * Volcano, Slurm). The core sends it whole admitted jobs; its own threads report back what became of them. */
#ifndef CALDERA_BACKEND_H
#define CALDERA_BACKEND_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/api_status.h"
#include "common/uuid.h"
#include "model/backend_conf.h"

/* The label (Kubernetes) or comment/name part (Slurm) that says which Caldera job a thing on the
 * engine belongs to: how Caldera finds what it sent after a restart. */
#define BACKEND_UID_LABEL "caldera.io/uid"
#define BACKEND_REF_MAX 128
#define BACKEND_NAME_MAX 64

/* What a backend reports. Each report is one heap struct handed to host->post(), which owns it from
 * then on (backend_update_free). Reports about one job arrive in the order they happened. */
enum backend_update_kind {
    BACKEND_SENT,        /* the engine took the job; ref names it there ("default/train", "1234") */
    BACKEND_SEND_FAILED, /* not sent: message says why; retryable when the engine was unreachable or
                            busy (the job stays Pending and is sent again), else the job fails */
    BACKEND_POD,         /* one attempt of one replica changed (fields below) */
    BACKEND_JOB_PHASE,   /* the engine's own job lifecycle moved (engines that run the policies) */
    BACKEND_GONE,        /* the job is no longer on the engine, and Caldera did not remove it */
    BACKEND_REMOVED,     /* what backend->remove() was asked to take away is gone */
    BACKEND_ENGINE,      /* the engine became reachable (ok) or unreachable (!ok, message) */
};

/* A replica's attempt as the engine saw it. */
enum backend_pod_phase { BACKEND_POD_PENDING, BACKEND_POD_RUNNING, BACKEND_POD_SUCCEEDED, BACKEND_POD_FAILED };

struct backend_update {
    enum backend_update_kind kind;
    char job_uid[UUID_STR_LEN];
    char ref[BACKEND_REF_MAX];
    bool retryable, ok;
    char message[512];
    /* BACKEND_POD: which replica (its task's name and its index in the task), which attempt of it (1,
     * 2, ...: the engine's restarts and resubmissions each make a new one), where and how it went. */
    char task[BACKEND_NAME_MAX];
    int32_t index;
    uint32_t attempt;
    enum backend_pod_phase phase;
    char node[BACKEND_NAME_MAX];   /* the engine's node name; "" while unplaced */
    int64_t start_ms, end_ms;      /* wall clock, 0 when not yet */
    int exit_code;                 /* a finished attempt's exit code (128 + n for a signal) */
    int term_signal;               /* the signal that ended it, or 0 */
    char reason[BACKEND_NAME_MAX]; /* Kubernetes' words: "Completed", "Error", "OOMKilled", "Unschedulable"... */
    /* BACKEND_JOB_PHASE: Volcano's phase name ("Running", "Restarting", "Completed"...) and retryCount. */
    char job_phase[32];
    int32_t retry_count;
};

struct backend_update *backend_update_new(enum backend_update_kind kind, const char *job_uid, const char *ref);
void backend_update_free(struct backend_update *u);

/* How a backend reaches the core: post() is called from the backend's threads, never the core's;
 * it takes the update (and frees it if the core is gone). */
struct backend_host {
    void (*post)(void *ctx, struct backend_update *u);
    void *ctx;
};

/* The job's own actions that map to the engine's (Slurm's suspend/resume; Volcano's own Command). */
enum backend_action { BACKEND_SUSPEND, BACKEND_RESUME };

/* A log read: the pod (job "-" task "-" index), with kubelet's options. */
struct backend_log_query {
    const char *pod;
    int64_t tail_lines;  /* -1: all */
    int64_t limit_bytes; /* -1: no limit */
    bool timestamps;
};

struct backend {
    enum backend_kind kind;
    const char *name; /* "kubernetes", "slurm": in events and reasons */
    /* true: the engine runs the job's policies and phases (Volcano's controller); Caldera mirrors
     * BACKEND_JOB_PHASE. false: the engine runs tasks only and Caldera's controller applies the
     * policies to the attempts it hears of (Slurm). */
    bool engine_runs_policies;
    void *ctx;
    /* Every call below but logs() is made on the core thread and must not block: it queues the work
     * for the backend's own thread and returns 0, or -1 when it could not even queue it.
     *
     * send: the job as the manifest renders it (manifest_job_with_companions: the Volcano Job, or a v1
     * List of it and its companions; metadata.labels carries BACKEND_UID_LABEL). The callee owns it.
     * BACKEND_SENT or BACKEND_SEND_FAILED follows. A backend never sends one uid twice: if the engine
     * already has it (a resend after a timeout), that counts as sent. */
    int (*send)(void *ctx, const char *job_uid, json_t *manifest);
    /* Removes everything sent for the job (Volcano Job and companions with Background propagation;
     * scancel). BACKEND_REMOVED follows. ref may be "" when the send never answered. */
    int (*remove)(void *ctx, const char *job_uid, const char *ref);
    /* Stops the running attempts and keeps the job (a RestartJob, a policy's TerminateJob...): Slurm
     * cancels its job, whose tasks end as BACKEND_POD updates; a later send submits it anew. */
    int (*stop)(void *ctx, const char *job_uid, const char *ref);
    int (*act)(void *ctx, const char *job_uid, const char *ref, enum backend_action action);
    /* After a server restart: go on following a job sent before it (ref from the history). Reports
     * what changed meanwhile; nothing is sent again. */
    int (*adopt)(void *ctx, const char *job_uid, const char *ref);
    /* From a gateway thread (may block, bounded by the backend's timeout): the pod's log text. Returns 0
     * with *out (heap) and *len, or -1 with st (404 when the engine has no such pod or file). */
    int (*logs)(void *ctx, const char *job_uid, const char *ref, const struct backend_log_query *q, char **out,
                size_t *len, struct api_status *st);
    /* Stops the backend's threads and frees it; posts nothing after it returns. */
    void (*close)(void *ctx);
};

/* What a backend's entry points queue for its own thread: the core's calls, in order (both engines). */
enum backend_op_kind { BACKEND_OP_SEND, BACKEND_OP_REMOVE, BACKEND_OP_STOP, BACKEND_OP_ACT, BACKEND_OP_ADOPT };
struct backend_op {
    enum backend_op_kind kind;
    char uid[UUID_STR_LEN];
    char ref[BACKEND_REF_MAX];
    json_t *manifest; /* BACKEND_OP_SEND's, owned */
    enum backend_action action;
    int tries; /* how many times it met an unreachable engine */
    struct backend_op *next;
};
/* A new op owning manifest (uid and ref may be NULL: ""), or NULL when out of memory (manifest freed). */
struct backend_op *backend_op_new(enum backend_op_kind kind, const char *uid, const char *ref, json_t *manifest,
                                  enum backend_action action);
void backend_op_free(struct backend_op *op);

/* The engines (adapters/objects/kube_backend_open.c reads the kubeconfig, then runtime/kube/ runs;
 * runtime/slurm/slurm_backend.c). Each returns 0 with
 * *out, or -1 with st saying which setting or file failed. They reach the engine lazily: an
 * unreachable engine at open is reported as BACKEND_ENGINE !ok and retried, never a failure. */
int kube_backend_open(const struct backend_conf *conf, const struct backend_host *host, struct backend **out,
                      struct api_status *st);
int slurm_backend_open(const struct backend_conf *conf, const struct backend_host *host, struct backend **out,
                       struct api_status *st);

#endif
