/* Volcano's JobFlow and JobTemplate (flow.volcano.sh/v1alpha1): a template is a Volcano Job spec
 * kept by name; a flow runs templates as jobs in the order their dependencies give. */
#ifndef CALDERA_MODEL_JOBFLOW_H
#define CALDERA_MODEL_JOBFLOW_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/uuid.h"

/* Volcano's JobFlow phases (state.phase). */
enum flow_phase { FLOW_PENDING, FLOW_RUNNING, FLOW_SUCCEED, FLOW_FAILED, FLOW_TERMINATING };

/* Caldera's bound on one output's value, and on a step's outputs. */
#define FLOW_OUTPUT_MAX 4096
#define FLOW_OUTPUTS_MAX 16

struct job_template {
    char *ns;
    char *name;
    char uid[UUID_STR_LEN];
    int64_t created_ms;
    uint64_t resource_version;
    json_t *manifest; /* metadata + spec (a Volcano JobSpec) as accepted (owned) */
};

/* dependsOn.probe.taskStatusList: a target's task having a pod in this phase. */
struct flow_task_probe {
    char *task;
    char *phase; /* a pod phase: Pending, Running, Succeeded, Failed */
};

/* dependsOn.probe.httpGetList / tcpSocketList: a target's task having a Running pod and answering on
 * 127.0.0.1:port, to a GET of path with the header (2xx/3xx), or to a TCP connect (path NULL). */
struct flow_net_probe {
    char *task;
    int port;      /* 1-65535 */
    char *path;    /* starts with '/'; NULL for tcpSocket */
    char *header;  /* "Name: value", or NULL */
    uint64_t id;   /* while the probe thread polls it (> 0), else 0 */
    bool answered; /* the probe thread saw it pass (reset when the step waits again) */
};

struct flow_output {
    char *name; /* [A-Za-z0-9_-], becomes part of CALDERA_INPUT_<STEP>_<NAME> */
    char *path; /* relative to the job's working directory, no "..", no leading "/" */
};

/* What the controller last saw of a step's job, kept in status.jobStatusList. */
enum step_state { STEP_WAITING, STEP_CREATED, STEP_COMPLETED, STEP_FAILED };

struct flow_step {
    char *name; /* the JobTemplate's name */
    char **targets;
    int *target_idx; /* each target's step index, -1 for none (flow_dag_resolve) */
    int ntargets;
    struct flow_task_probe *probes;
    int nprobes;
    struct flow_net_probe *nets; /* httpGetList, then tcpSocketList */
    int nnets;
    struct flow_output *outputs;
    int noutputs;
    /* status */
    uint8_t state;  /* enum step_state */
    char phase[16]; /* the job's phase last seen ("" before it exists) */
    char job_uid[UUID_STR_LEN];
    int64_t start_ms, end_ms;
    int32_t restart_count;
    json_t *histories; /* runningHistories (owned) */
    json_t *values;    /* the outputs read at completion: name -> value (owned, or NULL) */
};

struct job_flow {
    char *ns;
    char *name;
    char uid[UUID_STR_LEN];
    int64_t created_ms;
    uint64_t resource_version;
    bool delete_jobs; /* jobRetainPolicy: delete */
    struct flow_step *steps;
    int nsteps;
    json_t *manifest; /* metadata + spec as accepted (owned) */
    /* status (the core's) */
    uint8_t phase;   /* enum flow_phase */
    char *message;   /* why it failed, naming the step (owned, or NULL) */
    int32_t retries; /* how many times it was retried */
    /* the controller's */
    bool active;         /* a job of it may still change, or steps wait: synced each iteration */
    bool adopt;          /* restored: its next sync takes the jobs its steps made before the restart */
    bool dirty;          /* a change not recorded yet */
    int64_t recorded_ms; /* when it was last recorded */
};

const char *flow_phase_name(enum flow_phase p);
void job_template_free(struct job_template *t);
void job_flow_free(struct job_flow *f);
/* The index of the step named name, or -1. */
int job_flow_step_index(const struct job_flow *f, const char *name);
/* Whether s waits on a probe (any list) rather than its targets' completion. */
bool flow_step_probed(const struct flow_step *s);

#endif
