/* Inside the Slurm backend: its state, shared by the thread that sends and cancels (slurm_backend.c), the
 * poller (slurm_poll.c), the log reader (slurm_logs.c) and the reports and work-dir files (slurm_state.c). */
#ifndef CALDERA_SLURM_INTERNAL_H
#define CALDERA_SLURM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/backend.h"
#include "runtime/slurm/slurm_attempts.h"
#include "runtime/slurm/slurm_rest.h"
#include "runtime/slurm/slurm_script.h"

#define SLURM_POLL_MS 200       /* while jobs are followed */
#define SLURM_IDLE_PING_MS 2000 /* while slurmrestd is unreachable */
#define SLURM_LOG_MAX (64 << 20)

/* One Slurm job the poller follows: one send of one uid. */
struct slurm_tracked {
    char uid[UUID_STR_LEN];
    char ref[BACKEND_REF_MAX]; /* the job id as text */
    uint32_t job_id;
    uint32_t attempt;
    struct slurm_task_plan tasks[SLURM_PLAN_MAX_TASKS];
    int ntasks, nranks;
    struct slurm_replica_view *views; /* per rank: what was last reported */
    bool *reported, *running_reported;
    bool stopping;    /* Caldera cancelled it (stop or remove): its vanishing is no BACKEND_GONE */
    bool cancel_owed; /* the cancel did not reach slurmrestd yet */
    int missing;      /* polls in a row without it in GET /jobs */
    struct slurm_tracked *next;
};

struct slurm_backend {
    struct backend base;
    struct backend_host host;
    char *url, *user, *token, *work_dir, *partition;
    char **env; /* the jobs' base environment */
    struct slurm_rest rest;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct backend_op *head, *tail; /* queued by the core thread */
    bool closing;
    /* the backend thread's own */
    struct backend_op *retry; /* ops that met an unreachable slurmrestd: tried again each tick */
    struct slurm_tracked *jobs;
    int reachable; /* -1 unknown, 0 no, 1 yes */
};

/* slurm_state.c */
void slurm_post(struct slurm_backend *b, struct backend_update *u);
/* Notes a REST call's outcome: BACKEND_ENGINE when reachability changes (not for a first contact that
 * answers). */
void slurm_note_reach(struct slurm_backend *b, int rc, const char *err);

/* The per-uid files: <workDir>/<uid>/job.json (the manifest sent), sent ("<attempt> <job id>" per submit),
 * sending (the attempt of a submit not answered yet). */
void slurm_uid_path(const struct slurm_backend *b, const char *uid, const char *file, char *buf, size_t len);
/* The attempt of job_id in the sent file (0: not there), and the count of lines. */
uint32_t slurm_sent_attempt(const struct slurm_backend *b, const char *uid, uint32_t job_id, uint32_t *count);

/* slurm_poll.c */
/* Starts following a job (tasks from its manifest). Returns the entry, or NULL (out of memory). */
struct slurm_tracked *slurm_track(struct slurm_backend *b, const char *uid, uint32_t job_id, uint32_t attempt,
                                  const struct slurm_task_plan *tasks, int ntasks);
struct slurm_tracked *slurm_tracked_find(struct slurm_backend *b, const char *uid, uint32_t job_id);
/* One round: GET /jobs, every followed job's rank files, the reports. */
void slurm_poll(struct slurm_backend *b);
void slurm_tracked_free_all(struct slurm_backend *b);
/* Stops following every job of uid. */
void slurm_untrack_uid(struct slurm_backend *b, const char *uid);

/* slurm_logs.c */
int slurm_backend_logs(void *ctx, const char *job_uid, const char *ref, const struct backend_log_query *q, char **out,
                       size_t *len, struct api_status *st);

#endif
