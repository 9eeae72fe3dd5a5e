/* KubeRay's RayJob (ray.io/v1) as a Volcano Job: what the files of the translation share
 * (rayjob.c the spec, cluster.c the head and worker groups, submitter.c the submitter). */
#ifndef CALDERA_RAYJOB_H
#define CALDERA_RAYJOB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "adapters/dialects/dialect.h"

#define RAY_HEAD_TASK "head"
#define RAY_SUBMITTER_TASK "submitter"
/* Ray's own defaults, which KubeRay keeps: fixed so the submitter can name the dashboard. */
#define RAY_GCS_PORT 6379
#define RAY_DASHBOARD_PORT 8265
#define RAY_CLIENT_PORT 10001

extern const struct dialect dialect_rayjob;

/* What the cluster part hands the rest of the translation. */
struct rayjob_cluster {
    int32_t gcs_port, dashboard_port, client_port;
    const char *head_image; /* the head container's image, or NULL */
    int32_t min_members;    /* the head and the workers' minimum: the gang */
};

/* The address of the head's dashboard, "<job>-head-0.<job>:<port>". */
void rayjob_dashboard_host(const char *job, int32_t port, char *buf, size_t len);

/* Checks spec.rayClusterSpec and appends the head task and the worker task (at most one group: the
 * Volcano ray plugin starts one worker task) to tasks, the ray plugin's arguments to plugins, and the
 * path maps. deadline: activeDeadlineSeconds, 0 when none. Returns false after adding causes. */
bool rayjob_cluster(struct fields *f, json_t *spec, int64_t deadline, json_t *tasks, json_t *plugin_args,
                    struct rayjob_cluster *out, struct dialect_translation *t);

/* Checks the submission fields (entrypoint, runtimeEnvYAML, metadata, entrypoint*, jobId,
 * submitterPodTemplate, submitterConfig) and appends the submitter task: `ray job submit` against the
 * head's dashboard, whose completion completes the job shutdown_after seconds later (-1: never, the
 * cluster stays up). task_index: its place in spec.tasks (for the path maps). Returns false after
 * adding causes. */
bool rayjob_submitter(struct fields *f, json_t *spec, const char *job, const struct rayjob_cluster *cluster,
                      int64_t shutdown_after, int64_t deadline, size_t task_index, json_t *tasks,
                      struct dialect_translation *t);

/* The submission id: spec.jobId, else the RayJob's name. */
const char *rayjob_submission_id(const json_t *source);

/* The RayJob status from the rendered Volcano Job. */
json_t *rayjob_render_status(const json_t *source, const json_t *volcano_job);

#endif
