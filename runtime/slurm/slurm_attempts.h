/* What became of one replica's attempt on Slurm (pure): its rank wrapper's status lines read together with
 * the Slurm job's state, in Kubernetes' words for the pod it stands for. */
#ifndef CALDERA_SLURM_ATTEMPTS_H
#define CALDERA_SLURM_ATTEMPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/backend.h"
#include "runtime/slurm/slurm_rest.h"

/* A rank file: "start <ms> <node>" when the command starts, "end <ms> <exit status>" when it ends. */
struct slurm_rank_file {
    bool started, ended;
    int64_t start_ms, end_ms;
    char node[BACKEND_NAME_MAX];
    int status; /* the shell's $?: the exit code, 128 + n for a signal */
};

/* Reads the lines (text may be NULL: no file yet). */
void slurm_rank_file_parse(const char *text, struct slurm_rank_file *out);

/* A replica as a pod would show it. */
struct slurm_replica_view {
    enum backend_pod_phase phase;
    char node[BACKEND_NAME_MAX];
    int64_t start_ms, end_ms;
    int exit_code, term_signal;
    char reason[BACKEND_NAME_MAX];
    char message[160];
};

/* The replica from its rank file and its component's job info (NULL: Slurm does not know the job).
 * stopping: Caldera cancelled the job, so a rank ended by the cancel waits for the job's final state
 * to be reported with its reason. */
void slurm_replica_view(const struct slurm_rank_file *rf, const struct slurm_job_info *job, bool stopping,
                        struct slurm_replica_view *out);

/* Kubernetes' word for how a final Slurm state ended a pod: "OOMKilled", "DeadlineExceeded", "NodeLost",
 * "Evicted", "Cancelled", "Error", "Completed". */
const char *slurm_state_reason(enum slurm_state s);

/* Whether two views differ in what a report says (phase, node, exit). */
bool slurm_replica_view_changed(const struct slurm_replica_view *a, const struct slurm_replica_view *b);

/* The update for a view. NULL when out of memory. */
struct backend_update *slurm_replica_update(const char *uid, const char *ref, const char *task, int index,
                                            uint32_t attempt, const struct slurm_replica_view *v);

#endif
