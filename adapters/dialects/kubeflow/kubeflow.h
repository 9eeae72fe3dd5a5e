/* Inside the Kubeflow training-operator dialects (kubeflow.org/v1 PyTorchJob, TFJob, MPIJob): what
 * each kind is, and the parts of their translation to a Volcano Job that the kubeflow*.c files share. */
#ifndef CALDERA_KUBEFLOW_H
#define CALDERA_KUBEFLOW_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "adapters/dialects/dialect.h"
#include "adapters/intake/fields.h"

#define KUBEFLOW_MAX_TYPES 5

/* One replica type of a kind ("Master" of PyTorchJob). */
struct kubeflow_replica_type {
    const char *name;         /* "Master": the key under the kind's replica specs */
    const char *task;         /* "master": the Volcano task it becomes */
    int32_t default_replicas; /* Kubeflow's default when replicas is unset */
    bool single;              /* Kubeflow's validation: exactly one replica */
    bool can_lead;            /* the first present type that can lead decides the job's success */
};

struct kubeflow_job;

struct kubeflow_kind {
    const char *kind;            /* "PyTorchJob" */
    const char *specs_key;       /* "pytorchReplicaSpecs" */
    const char *container;       /* the container Kubeflow requires by name ("pytorch"); NULL: any named one */
    const char *default_restart; /* the replica specs' default restartPolicy */
    const struct kubeflow_replica_type *types; /* in Volcano task order: the leader first */
    int ntypes;
    const char *const *spec_fields; /* every field of the kind's spec (NULL-ended); others are refused */
    /* The kind's own spec fields besides the replica specs and runPolicy, honoured or refused, and
     * the replica types it needs. */
    void (*check_spec)(struct kubeflow_job *j);
    /* spec.plugins of the Volcano Job: the framework's wiring (a new object). */
    json_t *(*plugins)(struct kubeflow_job *j);
};

/* A replica spec the source has, in task order. */
struct kubeflow_replica {
    const struct kubeflow_replica_type *type;
    const char *key;           /* the user's key: Kubeflow takes "worker" for "Worker" */
    char path[FIELD_PATH_MAX]; /* "spec.pytorchReplicaSpecs.Worker" */
    json_t *spec;              /* the replica spec (borrowed) */
    json_t *template;          /* its pod template (borrowed; shared with the Volcano task, never changed) */
    int64_t replicas;
    const char *restart; /* restartPolicy, Kubeflow's default applied */
    bool lead;           /* its task's success completes the job */
};

/* One translation in progress. */
struct kubeflow_job {
    const struct kubeflow_kind *kind;
    struct fields *f;
    json_t *source, *spec; /* the document and its spec */
    char specs_path[FIELD_PATH_MAX];
    struct kubeflow_replica replicas[KUBEFLOW_MAX_TYPES];
    int nreplicas;
    int64_t total_replicas;
    int64_t active_deadline; /* runPolicy.activeDeadlineSeconds; 0 when unset */
    int64_t max_retry;       /* runPolicy.backoffLimit + 1 (Volcano counts the restart that
                                reaches maxRetry), 0 when absent */
    json_t *volcano;         /* the Volcano Job being built */
    json_t *vspec;           /* its spec */
    struct dialect_translation *out;
};

/* translate.c: the translation every kind shares, with the kind's hooks. */
int kubeflow_translate(const struct kubeflow_kind *kind, struct fields *f, json_t *source,
                       struct dialect_translation *out);
/* The replica spec of the named type, or NULL when the source has none. */
const struct kubeflow_replica *kubeflow_replica(const struct kubeflow_job *j, const char *type);
/* The port named port_name on the replica's container (Kubeflow's "pytorchjob-port"): 1 and *port
 * when declared, 0 when not, -1 after a cause for a bad one. */
int kubeflow_declared_port(struct kubeflow_job *j, const struct kubeflow_replica *r, const char *port_name,
                           int64_t *port);
/* Appends "--flag=value" to args. */
void kubeflow_arg(json_t *args, const char *flag, const char *value);

/* run_policy.c: spec.runPolicy into the Volcano Job's spec and metadata. */
void kubeflow_run_policy(struct kubeflow_job *j);
/* A cleanPodPolicy field (runPolicy's, or MPIJob's older spec.cleanPodPolicy): honoured or refused. */
void kubeflow_clean_pod_policy(struct kubeflow_job *j, json_t *holder, const char *path);

/* restart.c: a replica's restartPolicy as its task's template and Volcano policies. */
bool kubeflow_restart_policy_valid(struct kubeflow_job *j, const struct kubeflow_replica *r);
/* The task's template: the replica's own, shared, or a copy-on-write of its top levels when the
 * translation must set a pod field. A new reference, or NULL (out of memory). */
json_t *kubeflow_task_template(const struct kubeflow_job *j, const struct kubeflow_replica *r);
/* The task's policies (a new array). */
json_t *kubeflow_task_policies(const struct kubeflow_replica *r);

/* status.c: the Kubeflow JobStatus read from the rendered Volcano Job. */
json_t *kubeflow_render_status(const struct kubeflow_kind *kind, const json_t *source, const json_t *volcano_job);

#endif
