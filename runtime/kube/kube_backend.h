/* The Kubernetes + Volcano backend's insides, shared by its files: the backend (client, threads, the
 * work queue), the jobs it follows and their pods' attempts. kube_backend.c owns the threads and the
 * queue; kube_jobs.c the table of jobs; kube_send.c the writes (create, delete, Command);
 * kube_observe.c the watches and reports. */
#ifndef CALDERA_KUBE_BACKEND_H
#define CALDERA_KUBE_BACKEND_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/backend.h"
#include "runtime/kube/kube_client.h"

#define KUBE_VOLCANO "batch.volcano.sh/v1alpha1"
#define KUBE_BUS "bus.volcano.sh/v1alpha1"
#define KUBE_BACKOFF_MIN_MS 100
#define KUBE_BACKOFF_MAX_MS 2000
#define KUBE_WATCH_TIMEOUT_S 60
/* The Jobs' watch ends this often and the Jobs are listed again (an informer's resync): a deletion a
 * watch never delivered is still seen, as a Job missing from the list. */
#define KUBE_JOB_RESYNC_S 10

/* One replica's pod as last reported: which pod (its uid), the attempt it is, and what was posted. */
struct kube_pod_slot {
    char name[BACKEND_REF_MAX];
    char pod_uid[UUID_STR_LEN + 32];
    uint32_t first_attempt; /* the attempt of this pod uid's first run (restartCount 0) */
    uint32_t attempt;
    int32_t restarts;
    bool posted;
    bool deleted; /* the pod was deleted: the next one of that name is the next attempt, whatever its uid */
    struct backend_update last; /* what was posted last */
};

/* A Caldera job sent (or being sent, or adopted) to the cluster. */
struct kube_job {
    char uid[UUID_STR_LEN];
    char ns[BACKEND_NAME_MAX], name[BACKEND_NAME_MAX * 4];
    char kube_uid[UUID_STR_LEN + 32]; /* the Volcano Job's metadata.uid; "" while not on the cluster */
    bool sent;                        /* BACKEND_SENT posted: reports go out (until then they are held) */
    bool removing, stopping;
    uint64_t epoch;     /* kb->epoch when it was sent: lists begun after it must hold it */
    json_t *held;       /* "job" / "pod/NAME" -> {"type": n, "object": {...}} seen before SENT */
    json_t *companions; /* the paths of the objects created beside the Job */
    char phase[32];     /* the Volcano phase last posted ("" none) */
    int32_t retry_count;
    struct kube_pod_slot *pods;
    int npods, pods_cap;
};

struct kube_backend {
    struct backend be;
    struct backend_host host;
    struct kube_client *client;
    char ns[BACKEND_NAME_MAX]; /* the kubeconfig context's namespace: where a manifest without one goes */
    pthread_mutex_t mu;        /* everything below */
    pthread_cond_t cv;         /* the queue has work, or stop */
    atomic_bool stop;
    struct backend_op *head, *tail;
    struct kube_job **jobs;
    int njobs, jobs_cap;
    int engine;      /* 1 reachable, -1 not (reported), 0 not known yet */
    uint64_t up_gen; /* how many times the engine came back */
    uint64_t epoch;
    pthread_t sender, job_watch, pod_watch;
    int nthreads;
};

/* kube_jobs.c. Waits ms unless the backend stops first (mu held by the caller). Returns true on stop. */
bool kube_wait(struct kube_backend *kb, int64_t ms);
/* "ns/name" (or "name": the default namespace) into ns and name. Returns 0, or -1 when ref is empty. */
int kube_split_ref(const struct kube_backend *kb, const char *ref, char *ns, size_t ns_len, char *name,
                   size_t name_len);
/* The table of followed jobs (mu held): found, found or added, dropped (freed). */
struct kube_job *kube_job_find(struct kube_backend *kb, const char *uid);
struct kube_job *kube_job_track(struct kube_backend *kb, const char *uid);
void kube_job_drop(struct kube_backend *kb, struct kube_job *j);
/* Posts u (taken; NULL is skipped) to the core. */
void kube_post(struct kube_backend *kb, struct backend_update *u);

/* kube_observe.c (mu held by the caller for all but the thread bodies and kube_adopt_now). */
/* BACKEND_SENT for j, then what the watches saw of it meanwhile. */
void kube_mark_sent(struct kube_backend *kb, struct kube_job *j);
/* A Job or Pod event (type a kube_event_type) for a tracked job; others are ignored. */
void kube_observe_job(struct kube_backend *kb, int type, json_t *job);
void kube_observe_pod(struct kube_backend *kb, int type, json_t *pod);
/* The engine answered (up) or did not (down, st's words): a BACKEND_ENGINE report on each change. since:
 * kb->up_gen when the failed connection began; a connection older than the engine's last return is not
 * news (another watch saw it back meanwhile). */
void kube_engine_up(struct kube_backend *kb);
void kube_engine_down(struct kube_backend *kb, const struct api_status *st, uint64_t since);
void *kube_job_watch_main(void *arg);
void *kube_pod_watch_main(void *arg);
/* Adopt: follow uid (ref "ns/name") again and report its Job and pods as they are. Sender thread. Returns
 * 0, or -1 when the cluster did not answer (retried). */
int kube_adopt_now(struct kube_backend *kb, const char *uid, const char *ref);

/* kube_send.c (sender thread; mu not held). Each returns 0 when done, -1 to be retried later. */
int kube_send_now(struct kube_backend *kb, const char *uid, json_t *manifest);
int kube_remove_now(struct kube_backend *kb, const char *uid, const char *ref, bool stop);
int kube_act_now(struct kube_backend *kb, const char *uid, const char *ref, enum backend_action action);
/* The backend for a kubeconfig already read (kube_backend_open reads the file: adapters/objects/
 * kube_backend_open.c); opt may be NULL (10 s requests, 3 s connects) or carry the tests' recorder. */
int kube_backend_start(const struct kubeconfig *kc, const struct backend_host *host,
                       const struct kube_client_options *opt, struct backend **out, struct api_status *st);

#endif
