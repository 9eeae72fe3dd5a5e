/* Slurm's REST API (slurmrestd, OpenAPI v0.0.38 as Debian 12's Slurm 22.05 serves it): the job submit
 * body built from a small struct, job answers parsed into one, and thin libcurl calls with JWT auth. */
#ifndef CALDERA_SLURM_REST_H
#define CALDERA_SLURM_REST_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define SLURM_REST_API "v0.0.38"

/* One component of a job: the whole job, or one part of a heterogeneous job (a Volcano task). */
struct slurm_component {
    int nodes;               /* exact node count; 0: Slurm's choice */
    int tasks;               /* tasks (replicas) of the component; 0: 1 */
    int cpus_per_task;       /* 0: unset */
    long memory_per_node_mb; /* 0: unset */
    long memory_per_cpu_mb;  /* 0: unset (a replica's memory over its cpus: exact when replicas share nodes) */
    int gpus_per_task;       /* --gpus-per-task; 0: none */
    const char *gres;        /* --gres, e.g. "gpu:2"; NULL: none */
};

struct slurm_job_spec {
    const char *name;
    const char *comment;    /* free text kept with the job (Caldera's uid); NULL: none */
    const char *script;     /* the batch script, "#!/bin/sh\n..." */
    const char *cwd;        /* current_working_directory; required by slurmrestd */
    const char *std_out;    /* standard_output pattern (%j, %t...); NULL: Slurm's default */
    const char *std_err;    /* NULL: with std_out */
    const char *partition;  /* NULL: the default one */
    const char *const *env; /* NULL-terminated "NAME=VALUE"; slurmrestd starts from an empty environment */
    const struct slurm_component *components;
    size_t ncomponents; /* 1: one job; more: a heterogeneous job, allocated all at once */
};

/* Slurm's base states (JOB_STATE_BASE), from the job_state string. */
enum slurm_state {
    SLURM_STATE_UNKNOWN,
    SLURM_STATE_PENDING,
    SLURM_STATE_RUNNING,
    SLURM_STATE_SUSPENDED,
    SLURM_STATE_COMPLETED,
    SLURM_STATE_CANCELLED,
    SLURM_STATE_FAILED,
    SLURM_STATE_TIMEOUT,
    SLURM_STATE_NODE_FAIL,
    SLURM_STATE_PREEMPTED,
    SLURM_STATE_BOOT_FAIL,
    SLURM_STATE_DEADLINE,
    SLURM_STATE_OUT_OF_MEMORY,
};

struct slurm_job_info {
    uint32_t job_id;
    uint32_t het_job_id;     /* 0 unless part of a heterogeneous job */
    uint32_t het_job_offset; /* the component's index */
    enum slurm_state state;
    char state_name[32];                       /* as Slurm says it: "COMPLETED" */
    char reason[64];                           /* state_reason: "None", "NonZeroExitCode", "Resources"... */
    int exit_status;                           /* the exit code of a normal exit, else -1 */
    int term_signal;                           /* the signal that ended it, else 0 */
    int64_t submit_time, start_time, end_time; /* Unix seconds; 0: not yet */
    char nodes[256];                           /* the allocation: "n[1-2]" */
    char std_out[512];
    char std_err[512];
    char name[128];
    char comment[256];
};

/* Whether a state is final (no further change but a requeue). */
int slurm_state_final(enum slurm_state s);
enum slurm_state slurm_state_parse(const char *name);

/* The body of POST /slurm/v0.0.38/job/submit. Returns a new object, or NULL with a sentence in err. */
json_t *slurm_submit_body(const struct slurm_job_spec *spec, char *err, size_t errlen);

/* The job_id of a submit answer. Returns 0, or -1 with Slurm's errors (or why) in err. */
int slurm_parse_submit(const char *body, uint32_t *job_id, char *err, size_t errlen);

/* GET /job/{id} answers one entry per component. Fills up to max infos; returns how many the answer
 * holds (may exceed max), or -1 with Slurm's errors (or why) in err. */
int slurm_parse_jobs(const char *body, struct slurm_job_info *infos, int max, char *err, size_t errlen);

/* Where slurmrestd is and who asks: X-SLURM-USER-NAME / X-SLURM-USER-TOKEN (rest_auth/jwt). */
struct slurm_rest {
    const char *url;   /* http://127.0.0.1:6820 */
    const char *user;  /* the user the token was made for */
    const char *token; /* a JWT: `scontrol token username=U`, or signed with the cluster's jwt_key */
    long timeout_ms;   /* each call; 0: 10 s */
};

/* The calls: each returns 0, or -1 with a sentence in err (an HTTP status or Slurm's errors: slurmrestd
 * answered), or SLURM_REST_UNREACHABLE (no connection, a timeout, HTTP 5xx: whether a submit was taken
 * is unknown). */
#define SLURM_REST_UNREACHABLE (-2)
int slurm_rest_ping(const struct slurm_rest *r, char *err, size_t errlen);
int slurm_rest_submit(const struct slurm_rest *r, const struct slurm_job_spec *spec, uint32_t *job_id, char *err,
                      size_t errlen);
/* Fills infos as slurm_parse_jobs does; returns their count or -1. */
int slurm_rest_job(const struct slurm_rest *r, uint32_t job_id, struct slurm_job_info *infos, int max, char *err,
                   size_t errlen);
/* GET /jobs: every job slurmctld still holds (MinJobAge keeps finished ones a while). *infos (heap,
 * caller frees) gets them; returns their count or a negative value as above. */
int slurm_rest_jobs(const struct slurm_rest *r, struct slurm_job_info **infos, char *err, size_t errlen);
/* DELETE /job/{id}: signal 0 cancels (scancel), else sends that signal to the job's steps. */
int slurm_rest_cancel(const struct slurm_rest *r, uint32_t job_id, int signal, char *err, size_t errlen);

#endif
