/* Inside Caldera's simple training request (caldera.io/v1 Training, training.c): the request
 * as read and checked, and the frameworks' layouts that turn it into Volcano tasks and job plugins. */
#ifndef CALDERA_TRAINING_H
#define CALDERA_TRAINING_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "adapters/dialects/dialect.h"
#include "adapters/intake/fields.h"

enum training_framework { FW_PYTORCH, FW_TENSORFLOW, FW_MPI, FW_HOROVOD, FW_SPARK, FW_RAY, FW_BATCH, FW_COUNT };

#define TRAINING_MAX_TASKS 4

/* The request after its checks. json_t members are new references (or NULL when not given). */
struct training {
    enum training_framework framework;
    json_t *command; /* the user's argv: a list of strings ("command": "text" is ["sh","-c",text]) */
    json_t *args;    /* list of strings */
    const char *image, *working_dir;
    json_t *env; /* [{name, value}], the user's env in its order */
    int64_t workers, ps, slots_per_worker;
    json_t *resources;      /* {requests, limits} of one worker, or NULL */
    json_t *task_resources; /* task name -> {requests, limits}: overrides per task */
    json_t *worker_command; /* mpi, horovod: what the workers run */
    json_t *node_selector;
    json_t *auto_memory_scale; /* passed to spec.autoMemoryScale as given (Volcano's checks) */
    const char *queue, *priority_class, *scheduler_name;
    int64_t max_retry, ttl_seconds, min_available;    /* -1: not given */
    char *companions;                                 /* comma-joined, or NULL */
    int64_t gpus_per_worker;                          /* nvidia.com/gpu of one worker's requests */
    int64_t cpu_millis_per_worker, memory_per_worker; /* 0 when not given */
};

/* One task of the layout a framework gives. */
struct training_task {
    const char *name; /* also the container's name (the ray plugin matches it) */
    int64_t replicas;
    int64_t min_available;  /* -1: Volcano's default, the replicas */
    json_t *command;        /* owned */
    bool with_user_args;    /* the request's args follow the command */
    bool completes_job;     /* TaskCompleted -> CompleteJob */
    const char *depends_on; /* a task whose pods must run first, or NULL */
    bool no_resources;      /* a launcher: nothing unless taskResources names it */
    json_t *extra_env;      /* owned: [{name, value}] after the user's, or NULL */
};

struct training_layout {
    int ntasks;
    struct training_task tasks[TRAINING_MAX_TASKS];
    json_t *plugins;       /* owned: spec.plugins */
    json_t *policies;      /* owned: spec.policies */
    int64_t min_available; /* -1: Volcano's default (every replica) */
    int64_t min_success;   /* 0: none */
};

/* The dialect (listed in adapters/dialects.c). */
extern const struct dialect training_dialect;

extern const char *const training_framework_names[FW_COUNT];

/* Reads and checks every field of the request (causes in f, with the request's own paths). Returns
 * false when it added causes or failed the status; t must be freed with training_free either way. */
bool training_read(struct fields *f, json_t *req, struct training *t);
void training_free(struct training *t);

/* The task names a framework uses (NULL-ended), for checking taskResources. */
const char *const *training_task_names(enum training_framework fw);

/* The framework's tasks, plugins and policies for t. Returns 0 or -1 (out of memory). */
int training_layout(const struct training *t, struct training_layout *out);
void training_layout_free(struct training_layout *l);

/* The dialect's render_status: phase, reason, message, job, startTime, completionTime, retryCount,
 * tasks{task:{pending, running, succeeded, failed}} from the rendered Volcano Job. */
json_t *training_render_status(const json_t *source, const json_t *volcano_job);

#endif
