/* A Volcano Job manifest as one Slurm job (pure): the tasks as components (a heterogeneous job when their
 * resources differ), and the batch script whose one srun step runs every replica through a rank wrapper. */
#ifndef CALDERA_SLURM_SCRIPT_H
#define CALDERA_SLURM_SCRIPT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/backend.h"
#include "runtime/slurm/slurm_rest.h"

#define SLURM_PLAN_MAX_TASKS 16

/* One Volcano task: its replicas are the Slurm ranks first_rank .. first_rank + replicas - 1. */
struct slurm_task_plan {
    char name[BACKEND_NAME_MAX];
    int replicas;
    int first_rank;
    int component; /* its component of a heterogeneous job; 0 otherwise */
};

struct slurm_plan {
    char job_name[BACKEND_NAME_MAX]; /* metadata.name */
    char ns[BACKEND_NAME_MAX];       /* metadata.namespace */
    struct slurm_task_plan tasks[SLURM_PLAN_MAX_TASKS];
    int ntasks;
    struct slurm_component components[SLURM_PLAN_MAX_TASKS];
    char name[160];             /* the Slurm job's name: "<namespace>.<name>" */
    char comment[160];          /* "caldera.io/uid=<uid>/<attempt>": how a resend finds what was sent */
    char cwd[512];              /* <workDir>/<uid> */
    char std_out[560];          /* the batch script's own output: <workDir>/<uid>/slurm-%j.out */
    char *script;               /* heap */
    char **env;                 /* heap, NULL-terminated */
    struct slurm_job_spec spec; /* points into the above */
};

struct slurm_plan_opts {
    const char *uid;
    uint32_t attempt;       /* the how-many-th send of the uid: 1, 2, ... */
    const char *work_dir;   /* shared by the nodes */
    const char *partition;  /* NULL: the default */
    const char *const *env; /* the job's base environment, NULL-terminated ("PATH=..."); NULL: PATH only */
};

/* The plan for a manifest (the Volcano Job, or a v1 List holding it: companions do not run on Slurm).
 * Returns 0, or -1 with a sentence naming the field in err (the job cannot run on Slurm as it is). */
int slurm_plan_build(const json_t *manifest, const struct slurm_plan_opts *opts, struct slurm_plan *out, char *err,
                     size_t errlen);
void slurm_plan_free(struct slurm_plan *p);

/* The Volcano Job inside a manifest (itself, or the Job item of a List); NULL when there is none. */
const json_t *slurm_manifest_job(const json_t *manifest);
/* The tasks of a manifest's Job in order, their replicas and first ranks (what the poller needs after
 * an adopt). Returns the count, or -1 with err. */
int slurm_plan_tasks(const json_t *manifest, struct slurm_task_plan *tasks, int max, char *err, size_t errlen);

/* Where a replica's files are: <workDir>/<uid>/<slurm job id>/rank-<task>-<index> (its status lines)
 * and <task>-<index>.out (its output). */
void slurm_rank_path(const char *work_dir, const char *uid, const char *job_id, const char *task, int index, char *buf,
                     size_t len);
void slurm_output_path(const char *work_dir, const char *uid, const char *job_id, const char *task, int index,
                       char *buf, size_t len);

#endif
