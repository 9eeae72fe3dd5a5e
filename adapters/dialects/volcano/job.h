/* Volcano Job (batch.volcano.sh/v1alpha1) <-> the job model: parse and validate a submitted Job
 * with Volcano's admission defaults, render a job back as the Job object with its status. */
#ifndef CALDERA_VOLCANO_JOB_H
#define CALDERA_VOLCANO_JOB_H

#include <jansson.h>

#include "adapters/dialects/volcano/pod_group.h"
#include "adapters/intake/intake.h"
#include "common/api_status.h"
#include "model/job.h"

#define VOLCANO_JOB_API_VERSION "batch.volcano.sh/v1alpha1"
/* What the job's own end does to its pods: None, Running (the default) or All (enum clean_pods). */
#define CLEAN_POD_POLICY_ANNOTATION "caldera.io/clean-pod-policy"

struct fields;

/* How big a submitted Job may be, so that a request of a few hundred bytes cannot make the server
 * hold gigabytes (its replicas, their pods in lists). The server's options set them once, before
 * any thread reads them; stored jobs are read back as admitted, whatever the limits are now. */
struct job_limits {
    int32_t replicas_per_task; /* --max-replicas-per-task */
    int32_t replicas_per_job;  /* --max-replicas-per-job */
    int32_t tasks_per_job;     /* --max-tasks-per-job */
};
#define JOB_LIMITS_DEFAULT ((struct job_limits){100000, 100000, 10000})
void volcano_job_set_limits(struct job_limits limits);
struct job_limits volcano_job_limits(void);

/* Turns a Job document into a job: apiVersion/kind checked (400), fields validated with their
 * paths and positions (422), Volcano's defaults applied (queue "default", maxRetry 3, task names
 * "default<i>", task minAvailable = replicas, job minAvailable = their sum) and written into the
 * manifest, as Volcano's admission webhook does. url_ns is the namespace from the request path.
 * The job's uid and creation time are left for the core to assign. Returns 0 or -1. */
int volcano_job_from_doc(const struct intake_doc *doc, const char *url_ns, struct job **out, struct api_status *st);

/* The same for a Job read back from the store: it was admitted once, so fields and value forms a
 * stricter server would refuse now pass (struct fields.admitted); defaults are already in it. */
int volcano_job_from_admitted_doc(const struct intake_doc *doc, const char *ns, struct job **out,
                                  struct api_status *st);
/* The Job object: manifest + metadata (uid, resourceVersion, creationTimestamp) + status. */
json_t *volcano_job_render(const struct job *job);
/* Just the status object (also what the store keeps per job). */
json_t *volcano_job_render_status(const struct job *job);
/* Restores phase, reason, message, transition time, retryCount and version from a stored status. */
int volcano_job_restore_status(struct job *job, const char *status_json);
/* autoMemoryScale: task's memory request and limit (0: none) become these, in the job and in a new
 * manifest (the old one may still be shared by renderings). Returns 0 or -1 (out of memory). */
int volcano_job_set_task_memory(struct job *job, int task, int64_t request, int64_t limit);
/* An update (PUT) of job to upd: the same name and tasks, and a spec that differs only where
 * Volcano's webhook lets it (minAvailable, priorityClassName, tasks' replicas and minAvailable).
 * Returns 0, or -1 with a 422 in st. */
int volcano_job_check_update(const struct job *job, const struct job *upd, struct api_status *st);
/* job takes upd's manifest, keeping its uid, namespace and creation time; generation goes up. */
void volcano_job_adopt_manifest(struct job *job, const struct job *upd);
/* Every task's pods get activeDeadlineSeconds `seconds` (a debug session's extension): the tasks and a
 * new manifest (generation up) with new templates. Returns 0, or -1 when memory runs out (nothing
 * changed then). */
int volcano_job_set_deadline(struct job *job, int64_t seconds);
/* Records uid, namespace and creationTimestamp in the manifest's metadata (done once, at admission
 * or recovery, before the manifest is shared). */
int volcano_job_stamp_metadata(struct job *job);

#endif
