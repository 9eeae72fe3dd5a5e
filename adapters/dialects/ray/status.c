/* A RayJob's status in KubeRay's shape (jobStatus, jobDeploymentStatus, dashboardURL, ...), read from
 * the Volcano Job it became: the job's phase and retries, and its submitter task's pods. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/ray/rayjob.h"

struct ray_view {
    const char *phase; /* the Volcano Job's */
    int64_t retries;
    int64_t submitter_succeeded, submitter_running;
};

static bool phase_is(const struct ray_view *v, const char *phase) { return strcmp(v->phase, phase) == 0; }

/* The Ray job's own status (Ray's JobStatus): what the submitter says of it. */
static const char *job_status(const struct ray_view *v)
{
    if (phase_is(v, "Completed") || phase_is(v, "Completing") || v->submitter_succeeded > 0)
        return "SUCCEEDED";
    if (phase_is(v, "Failed") || phase_is(v, "Restarting"))
        return "FAILED";
    if (phase_is(v, "Terminating") || phase_is(v, "Terminated") || phase_is(v, "Aborting") || phase_is(v, "Aborted"))
        return "STOPPED";
    return v->submitter_running > 0 ? "RUNNING" : "PENDING";
}

/* KubeRay's JobDeploymentStatus: the cluster and the submission together. A Volcano abort is a
 * suspension; with shutdownAfterJobFinishes false the cluster stays up after a successful submission,
 * and the deployment is Complete while the Volcano Job still runs. */
static const char *deployment_status(const struct ray_view *v)
{
    static const char *const by_phase[][2] = {
        {"Pending", "Initializing"}, {"Restarting", "Retrying"},  {"Completing", "Complete"},
        {"Completed", "Complete"},   {"Failed", "Failed"},        {"Aborting", "Suspending"},
        {"Aborted", "Suspended"},    {"Terminating", "Complete"}, {"Terminated", "Complete"}};
    if (phase_is(v, "Running"))
        return v->submitter_succeeded > 0 ? "Complete" : "Running";
    for (size_t i = 0; i < sizeof by_phase / sizeof by_phase[0]; i++)
        if (phase_is(v, by_phase[i][0]))
            return by_phase[i][1];
    return "Initializing";
}

/* The dashboard port the job's ray plugin was given ("--dashboardPort=N"). */
static int dashboard_port(const json_t *volcano_job)
{
    const json_t *args = json_object_get(json_object_get(json_object_get(volcano_job, "spec"), "plugins"), "ray");
    size_t i;
    const json_t *arg;
    json_array_foreach(args, i, arg)
    {
        const char *s = json_string_value(arg);
        if (s && strncmp(s, "--dashboardPort=", 16) == 0)
            return atoi(s + 16);
    }
    return RAY_DASHBOARD_PORT;
}

json_t *rayjob_render_status(const json_t *source, const json_t *volcano_job)
{
    const json_t *vstatus = json_object_get(volcano_job, "status"), *state = json_object_get(vstatus, "state");
    const json_t *vmeta = json_object_get(volcano_job, "metadata");
    const json_t *counts = json_object_get(
        json_object_get(json_object_get(vstatus, "taskStatusCount"), RAY_SUBMITTER_TASK), "phase");
    const char *phase = json_string_value(json_object_get(state, "phase"));
    struct ray_view v = {phase ? phase : "Pending", json_integer_value(json_object_get(vstatus, "retryCount")),
                         json_integer_value(json_object_get(counts, "Succeeded")),
                         json_integer_value(json_object_get(counts, "Running"))};
    const char *name = json_string_value(json_object_get(vmeta, "name"));
    char dashboard[FIELD_PATH_MAX];
    rayjob_dashboard_host(name ? name : "", dashboard_port(volcano_job), dashboard, sizeof dashboard);
    const char *js = job_status(&v);
    /* Every failed attempt is a retry (RestartJob), the last one included; a failure that did not go
     * through a retry counts once. */
    int64_t failed = v.retries + (phase_is(&v, "Failed") && v.retries == 0 ? 1 : 0);
    json_t *status = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I}", "jobId", rayjob_submission_id(source),
                               "rayClusterName", name ? name : "", "dashboardURL", dashboard, "jobStatus", js,
                               "jobDeploymentStatus", deployment_status(&v), "succeeded",
                               (json_int_t)(strcmp(js, "SUCCEEDED") == 0), "failed", (json_int_t)failed);
    if (!status)
        return NULL;
    json_t *created = json_object_get(vmeta, "creationTimestamp"),
           *changed = json_object_get(state, "lastTransitionTime");
    if (created)
        json_object_set(status, "startTime", created);
    if (changed && (phase_is(&v, "Completed") || phase_is(&v, "Failed") || phase_is(&v, "Terminated")))
        json_object_set(status, "endTime", changed);
    json_t *message = json_object_get(state, "message");
    if (json_is_string(message) && *json_string_value(message))
        json_object_set(status, "message", message);
    return status;
}
