/* The core's private state, shared by its loop (core.c) and its request handlers (requests.c and
 * the files beside it): the mailbox, the controller, the process table. */
#ifndef CALDERA_CORE_INTERNAL_H
#define CALDERA_CORE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "common/metrics.h"
#include "common/sbuf.h"
#include "scheduler/controller/controller.h"
#include "scheduler/core/cycle.h"
#include "scheduler/core/request.h"
#include "runtime/process.h"

/* A running attempt's process, found by the epoll tag of its pidfd. */
struct proc_slot {
    struct job *job; /* NULL when the slot is free */
    int flat;        /* the replica */
    struct process proc;
    int64_t kill_at_ms;   /* monotonic time to send SIGKILL, 0 when no stop is pending */
    struct gpu_usage gpu; /* its GPUs' samples so far (gpu_usage.c) */
    int next_free;
    bool starting;  /* ordered from the launcher, not yet started: no pid to signal */
    bool elsewhere; /* watched and reaped by the launcher's reaper (proc.pidfd is -1 here) */
};

struct core {
    pthread_t thread;
    bool thread_started;
    int epfd, mailbox_fd, timer_fd;

    pthread_mutex_t lock; /* guards the mailbox fields below */
    struct core_request *head, *tail;
    bool stop_requested;
    int posted; /* core_post_event requests in the mailbox (bounded) */
    /* What the backends reported, in order, until the loop takes it (backends.c): never dropped. */
    struct backend_update **updates;
    int nupdates, updates_cap;

    /* Owned by the core thread from core_start on. */
    struct cluster cluster;
    struct controller ctl;
    struct sched_conf conf;
    struct zone_table *zones;
    struct store *store;
    char *data_dir;
    int period_ms;
    bool stopping;                     /* shutdown in progress: new requests get 503 */
    int64_t stop_deadline_ms;          /* monotonic: SIGKILL whatever is left after this */
    bool kick;                         /* schedule at the end of this loop iteration */
    bool keep_tasks;                   /* a stop leaves running tasks for the next server to adopt */
    struct watch_demand *watch_demand; /* from the config: render watch objects while wanted */
    int adopted;                       /* tasks of the last run watched again at start-up */
    struct process_census *census;     /* while recovery adopts them: what ran then (runtime/census.h) */
    struct proc_slot *slots;
    int nslots, free_slot, live_slots, pending_kills;
    struct launcher *launcher;    /* starts and reaps off this thread (runtime/launcher.h); NULL: here */
    int starting, live_elsewhere; /* slots ordered and not yet started; live ones the reaper watches */
    struct gpu_sample *gpu_last;  /* this machine's GPUs as last sampled (gpu_usage.c), for /metrics */
    int ngpu_last;
    int64_t waste_checked_ms;               /* the WatchDog's waste check last ran (waste.c) */
    struct metrics_histogram cycle_seconds; /* schedule_cycle() durations (observed and read here only) */

    /* The start (startup.c): until it is over (`warming`, core thread), requests wait in `parked`
     * but the GETs core_answer_early takes. start_state (under lock, `started` signalled): 0 while
     * warming, 1 once over, -1 refused (the checks failed, or the stop came first: `refusal` says). */
    bool warming;
    struct core_request *parked_head, *parked_tail;
    _Atomic int start_state; /* read without the lock for the common case: over */
    char refusal[512];
    pthread_cond_t started;
    int64_t started_ms, awake_ms, asleep_ms; /* monotonic: core_start began; the awake, the sleeping jobs read */
    struct stored_token {
        char *name, *json;
    } * tokens; /* the gateway's, as the awake load read them, until core_take_stored_tokens */
    int ntokens, tokens_cap;
};

/* startup.c. core_load_awake: before the core thread, the awake jobs (STORE_LOAD_AWAKE), then the
 * store's checks started; on a failure the checks' refusal, when they refuse, is the one in err. On
 * the core thread: core_load_asleep reads the sleeping jobs (beside the checks); core_answer_early
 * answers req (true) when it is a GET of a job the rest of the start leaves as it was;
 * core_finish_start, once the checks are over, does the rest (the checks confirmed, the last run's
 * tasks recovered, the writer started, the orphans swept); core_start_settled tells core_wait_ready
 * how it ended (refusal NULL: ready). */
int core_load_awake(struct core *c, char *err, size_t errlen);
int core_load_asleep(struct core *c, char *err, size_t errlen);
bool core_answer_early(struct core *c, struct core_request *req);
int core_finish_start(struct core *c, char *err, size_t errlen);
void core_start_settled(struct core *c, const char *refusal);

/* Backends (backends.c): opened for every kind the routes name, before the store loads (recovery
 * adopts through them); their reports taken by the loop; closed once the core thread has stopped. */
int core_backends_open(struct core *c, const struct backend_conf *conf, char *err, size_t errlen);
/* Applies what the backends reported since the last call. Returns how many reports. */
int core_backends_drain(struct core *c);
void core_backends_close(struct core *c);

/* Answers one request on the core thread. */
void core_handle_request(struct core *c, struct core_request *req);
/* Answers (answer.c): a success with its body, to be shown once durable_seq is committed
 * (a NULL body becomes a 500); a Kubernetes list at the current sequence number; a deletion's
 * Success Status; a 404 NotFound Status. */
void core_answer(struct core_request *req, int code, json_t *body, uint64_t durable_seq);
void core_answer_list(struct core *c, struct core_request *req, const char *api_version, const char *kind,
                      json_t *items);
void core_answer_deleted(struct core_request *req, const char *resource, const char *group, const char *uid,
                         uint64_t seq);
void core_not_found(struct core_request *req, const char *resource, const char *group, const char *name);

/* companions.c: CORE_COMPANION_*. */
void core_handle_companion_request(struct core *c, struct core_request *req);
/* metrics.c: CORE_METRICS, the live part of GET /metrics in O(queues + active jobs). */
void core_handle_metrics(struct core *c, struct core_request *req);

/* gpu_usage.c: CORE_GPU_SAMPLES, one round into every live attempt holding GPUs and the samples kept;
 * core_render_gpu_metrics the DCGM exporter's families for them (with the pod holding each). */
void core_handle_gpu_samples(struct core *c, struct core_request *req);
void core_render_gpu_metrics(struct core *c, struct sbuf *out);
/* gpu_health.c: CORE_GPU_HEALTH into the controller; core_render_gpu_health_metrics each node
 * device's last Xid (the DCGM exporter's DCGM_FI_DEV_XID_ERRORS) and whether it is healthy. */
void core_handle_gpu_health(struct core *c, struct core_request *req);
void core_render_gpu_health_metrics(struct core *c, struct sbuf *out);

/* waste.c: once a second at most, running jobs whose waste period ended are read and told of when
 * they used under the WatchDog's fraction of their request. */
void core_waste_tick(struct core *c);

/* Answers the requests about queues, priority classes and quotas (objects.c). */
void core_handle_object_request(struct core *c, struct core_request *req);
/* CronJobs (cronjobs.c); ConfigMaps and Secrets go to core_handle_config_request, anything else to
 * core_handle_jobflow_request. */
void core_handle_cronjob_request(struct core *c, struct core_request *req);
/* configs.c: ConfigMaps and Secrets. */
void core_handle_config_request(struct core *c, struct core_request *req);
/* JobTemplates and JobFlows (jobflows.c); anything else is answered 500. */
void core_handle_jobflow_request(struct core *c, struct core_request *req);
/* records.c: CORE_RECORD_PUT, CORE_RECORD_DELETE and CORE_RECORD_EVENT (record.reason and
 * record.message may be NULL: empty). */
void core_handle_record(struct core *c, struct core_request *req);
/* jobs.c: create, get, list, update and delete jobs, in the Volcano view or a dialect's. */
void core_handle_job_request(struct core *c, struct core_request *req);
/* withdraw.c: CORE_JOB_WITHDRAW, a creation its client will be told did not happen. */
void core_handle_withdraw(struct core *c, struct core_request *req);
/* withdraw.c: before each iteration's timers and cycle, whether attempts may start: none while
 * the store cannot record them (ctl.starts_held says why). */
void core_check_store(struct core *c);
/* answer.c: whether the request may see namespace ns (its namespace when it names one, and one
 * of the caller's visible namespaces); whether a job is live and seen so; whether labels satisfy
 * the request's labelSelector. */
bool core_sees_namespace(const struct core_request *req, const char *ns);
bool core_in_namespace(const struct job *job, const struct core_request *req);
/* List pages (core.h: limit, after, more, page_end), in the cluster's job order. True when the job lies
 * wholly before the page: itself the cursor in a list of jobs, before it in a list of pods. */
bool core_page_before(const struct core_request *req, const struct job *job, bool pods);
/* name_eq (core.h) leaves this job out of a list of jobs or PodGroups, or all of its pods out of a
 * list of pods (none is named "<job>-..."). */
bool core_name_excludes(const struct core_request *req, const struct job *job, bool pods);
/* The labelSelector leaves every pod of the job out by a label the job itself sets on each pod
 * (volcano.sh/job-name, job-namespace, queue-name), which a sleeping job's stub holds: no need to
 * wake it to know (a restart's `jobctl get JOB` asked for its pods and woke all 90,000 sleeping jobs). */
bool core_pod_labels_exclude(const struct core_request *req, const struct job *job);
/* In a list of pods: the first index of the job's task to show (past the cursor's pod). */
int32_t core_page_first_index(const struct core_request *req, const struct job *job, int task);
/* Whether one more item belongs in a page holding count; false (and `more` set) when it is full. */
bool core_page_room(struct core_request *req, size_t count);
/* The item just added is the page's last so far (task and index -1 for a job). */
void core_page_last(struct core_request *req, const struct job *job, int32_t task, int32_t index);
/* A page of Jobs or PodGroups is full before job: with req->count_rest, req->remaining = how many
 * of job and those after it the list would still show (counted without waking dormant jobs). */
void core_page_count_rest(struct core_request *req, struct job *job);
bool core_labels_match(const json_t *labels, const struct core_request *req);
/* job_table.c: the job, its PodGroup or a pod as one row of a Table (request.h: as_table), appended to b. */
void core_job_table_row(struct sbuf *b, const struct job *job, const struct core_request *req, int64_t now_ms);
void core_podgroup_table_row(struct sbuf *b, const struct job *job, const struct core_request *req, int64_t now_ms);
/* A pod on node (NULL: none) with meta its metadata (adapters/objects/pod.h). */
void core_pod_table_row(struct sbuf *b, const struct job *job, int task, int index, const struct node *node,
                        const json_t *meta, const struct core_request *req, int64_t now_ms);

#endif
