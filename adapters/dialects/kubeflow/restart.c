/* A Kubeflow replica's restartPolicy (Always | OnFailure | Never | ExitCode) as Volcano expresses it:
 * the pod restarts nothing itself (restartPolicy Never) and the task's policies decide, per exit. */
#include <string.h>

#include "adapters/dialects/fields.h"
#include "adapters/dialects/kubeflow/kubeflow.h"

/* Kubeflow's ExitCode rule: 1-127 are the program's own verdict (permanent), 128-255 a signal or the
 * system's (retryable). */
#define LAST_PERMANENT_EXIT_CODE 127

static const char *const restart_policies[] = {"Always", "OnFailure", "Never", "ExitCode"};

bool kubeflow_restart_policy_valid(struct kubeflow_job *j, const struct kubeflow_replica *r)
{
    char path[FIELD_PATH_MAX];
    field_path(path, r->path, "restartPolicy");
    const char *policy = NULL;
    if (!field_string(j->f, r->spec, "restartPolicy", path, false, &policy) || !policy)
        return false;
    for (size_t i = 0; i < sizeof restart_policies / sizeof *restart_policies; i++)
        if (strcmp(policy, restart_policies[i]) == 0)
            return true;
    field_unsupported(j->f, r->spec, "restartPolicy", path,
                      "supported values: \"Always\", \"OnFailure\", \"Never\", \"ExitCode\"");
    return false;
}

/* The template the task runs. Kubeflow overrides the pod's restartPolicy with the replica's (ExitCode
 * giving Never); here every replica policy becomes Volcano policies over pods that restart nothing
 * themselves, so the pod's restartPolicy must be Never (Volcano's default when unset). The template is
 * shared with the source, so that its positions serve the causes found inside it; only when a pod field
 * must change (a restartPolicy other than Never, runPolicy.activeDeadlineSeconds) are its top level and
 * its spec copied, shallowly: what lies deeper (the containers) stays shared, with its positions; the
 * template's and its spec's own scalar fields lose theirs. */
json_t *kubeflow_task_template(const struct kubeflow_job *j, const struct kubeflow_replica *r)
{
    json_t *spec = json_object_get(r->template, "spec");
    json_t *restart = json_object_get(spec, "restartPolicy");
    bool set_restart = restart && !(json_is_string(restart) && strcmp(json_string_value(restart), "Never") == 0);
    if (!json_is_object(spec) || (!set_restart && j->active_deadline == 0))
        return json_incref(r->template);
    json_t *template = dialect_template_cow(r->template);
    if (!template)
        return NULL;
    if (set_restart)
        json_object_set_new(json_object_get(template, "spec"), "restartPolicy", json_string("Never"));
    /* Kubeflow counts activeDeadlineSeconds from the job's start and then fails the whole job; the pod
     * field counts from each pod's own start, so a pod started later (a retry) gets the full time again. */
    dialect_template_deadline(template, j->active_deadline);
    return template;
}

static void add_event_policy(json_t *policies, const char *event, const char *action)
{
    json_array_append_new(policies, json_pack("{s:s, s:s}", "event", event, "action", action));
}

/* Volcano takes the first policy that matches, in order. A failed pod:
 *   Never:             TerminateJob. Kubeflow fails the job when a replica fails and may not restart;
 *                      Terminated (final, unlike AbortJob's Aborted) reads as Failed in the status.
 *   OnFailure, Always: RestartPod, each restart counted against spec.maxRetry (runPolicy.backoffLimit),
 *                      the job Failed past it. Kubelet would restart the container in place; the pod
 *                      is created again instead. Always does not rerun a pod that succeeded: the job's
 *                      success is judged by its replicas', which a rerun would never let end.
 *   ExitCode:          exit codes 1-127 TerminateJob, one policy each (a Volcano policy holds one
 *                      exitCode), then any other failure (128-255: signals, OOM kills) RestartPod.
 * The leading replica (master, chief, launcher) succeeding completes the job, as in Kubeflow, whose
 * other pods (parameter servers, MPI workers' sshd) may never end by themselves. */
json_t *kubeflow_task_policies(const struct kubeflow_replica *r)
{
    json_t *policies = json_array();
    if (strcmp(r->restart, "Never") == 0) {
        add_event_policy(policies, "PodFailed", "TerminateJob");
    } else {
        if (strcmp(r->restart, "ExitCode") == 0)
            for (int code = 1; code <= LAST_PERMANENT_EXIT_CODE; code++)
                json_array_append_new(policies, json_pack("{s:i, s:s}", "exitCode", code, "action", "TerminateJob"));
        add_event_policy(policies, "PodFailed", "RestartPod");
    }
    if (r->lead)
        add_event_policy(policies, "TaskCompleted", "CompleteJob");
    return policies;
}
