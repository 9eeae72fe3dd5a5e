/* Kubeflow's runPolicy on a Volcano Job: backoffLimit as maxRetry, the TTL, the deadline on every pod,
 * cleanPodPolicy as the Volcano Job's caldera.io/clean-pod-policy, schedulingPolicy as the PodGroup's fields. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/kubeflow/kubeflow.h"
#include "adapters/dialects/volcano/job.h"
#include "adapters/objects/object_meta.h"
#include "adapters/objects/pod_template.h"

/* The Volcano Job's annotation holding the PodGroup's minResources (compact JSON, quantities as text). */
#define MIN_RESOURCES_ANNOTATION "caldera.io/pod-group-min-resources"
#define TRAINING_OPERATOR "kubeflow.org/training-operator"

static const char *const run_policy_fields[] = {"cleanPodPolicy",
                                                "ttlSecondsAfterFinished",
                                                "activeDeadlineSeconds",
                                                "backoffLimit",
                                                "schedulingPolicy",
                                                "suspend",
                                                "managedBy",
                                                NULL};
static const char *const scheduling_fields[] = {"minAvailable",           "queue", "minResources", "priorityClass",
                                                "scheduleTimeoutSeconds", NULL};

/* The Volcano Job's annotations, made when missing. */
static json_t *volcano_annotations(struct kubeflow_job *j)
{
    json_t *meta = json_object_get(j->volcano, "metadata");
    json_t *annotations = json_object_get(meta, "annotations");
    if (!json_is_object(annotations)) {
        annotations = json_object();
        json_object_set_new(meta, "annotations", annotations);
    }
    return annotations;
}

/* The training operator deletes pods when the job has finished: None deletes nothing (the
 * default of every kind: PyTorchJob, TFJob, MPIJob, XGBoostJob, PaddleJob), Running the running and
 * pending ones, All every one. The Volcano Job carries it for the controller. */
void kubeflow_clean_pod_policy(struct kubeflow_job *j, json_t *holder, const char *path)
{
    const char *policy = NULL;
    if (!field_string(j->f, holder, "cleanPodPolicy", path, false, &policy) || !policy)
        return;
    if (strcmp(policy, "None") != 0 && strcmp(policy, "Running") != 0 && strcmp(policy, "All") != 0) {
        field_unsupported(j->f, holder, "cleanPodPolicy", path, "supported values: \"All\", \"Running\", \"None\"");
        return;
    }
    json_object_set_new(volcano_annotations(j), CLEAN_POD_POLICY_ANNOTATION, json_string(policy));
}

/* An integer of runPolicy into the Volcano spec under vkey, with the path map. Returns whether it was
 * there and valid (then *out holds it). */
static bool copy_int(struct kubeflow_job *j, json_t *holder, const char *key, const char *parent, int64_t min,
                     const char *vkey, int64_t *out)
{
    char path[FIELD_PATH_MAX], vpath[FIELD_PATH_MAX];
    field_path(path, parent, key);
    if (!field_int(j->f, holder, key, path, false, min, INT32_MAX, out) || !json_object_get(holder, key))
        return false;
    json_object_set_new(j->vspec, vkey, json_integer(*out));
    field_path(vpath, "spec", vkey);
    dialect_map_path(j->out, vpath, path);
    return true;
}

static void copy_string(struct kubeflow_job *j, json_t *holder, const char *key, const char *parent, const char *vkey)
{
    char path[FIELD_PATH_MAX], vpath[FIELD_PATH_MAX];
    const char *v = NULL;
    field_path(path, parent, key);
    if (!field_string(j->f, holder, key, path, false, &v) || !v)
        return;
    json_object_set_new(j->vspec, vkey, json_string(v));
    field_path(vpath, "spec", vkey);
    dialect_map_path(j->out, vpath, path);
}

/* minResources, each quantity checked, as the annotation the PodGroup reads. */
static void min_resources(struct kubeflow_job *j, json_t *sp, const char *parent)
{
    char path[FIELD_PATH_MAX];
    struct resvec parsed;
    field_path(path, parent, "minResources");
    json_t *map = json_object_get(sp, "minResources");
    if (!resource_map_parse(j->f, sp, "minResources", path, false, &parsed) || !json_is_object(map))
        return;
    json_t *text = json_object();
    const char *name;
    json_t *v;
    json_object_foreach(map, name, v)
    {
        char quantity[128];
        if (intake_scalar_text(v, quantity, sizeof quantity))
            json_object_set_new(text, name, json_string(quantity));
    }
    char *dump = json_dumps(text, JSON_COMPACT);
    json_decref(text);
    if (dump)
        json_object_set_new(volcano_annotations(j), MIN_RESOURCES_ANNOTATION, json_string(dump));
    free(dump);
}

static void scheduling_policy(struct kubeflow_job *j, json_t *rp)
{
    const char *parent = "spec.runPolicy.schedulingPolicy";
    json_t *sp;
    if (!field_object(j->f, rp, "schedulingPolicy", parent, false, &sp) || !sp)
        return;
    field_check_known(j->f, sp, parent, scheduling_fields);
    char path[FIELD_PATH_MAX];
    field_path(path, parent, "minAvailable");
    int64_t min_available = 0;
    if (copy_int(j, sp, "minAvailable", parent, 0, "minAvailable", &min_available) &&
        min_available > j->total_replicas) {
        char detail[128];
        snprintf(detail, sizeof detail, "must not be greater than the replicas of all replica specs (%lld)",
                 (long long)j->total_replicas);
        field_invalid(j->f, sp, "minAvailable", path, detail);
    }
    copy_string(j, sp, "queue", parent, "queue");
    copy_string(j, sp, "priorityClass", parent, "priorityClassName");
    min_resources(j, sp, parent);
    field_path(path, parent, "scheduleTimeoutSeconds");
    if (json_object_get(sp, "scheduleTimeoutSeconds"))
        field_unsupported(j->f, sp, "scheduleTimeoutSeconds", path,
                          "Volcano's PodGroup has no scheduling timeout; a job waits in its queue until it fits");
}

void kubeflow_run_policy(struct kubeflow_job *j)
{
    json_t *rp;
    const char *parent = "spec.runPolicy";
    char path[FIELD_PATH_MAX];
    json_t *annotations = volcano_annotations(j);
    if (!json_object_get(annotations, CLEAN_POD_POLICY_ANNOTATION)) /* the operator's default */
        json_object_set_new(annotations, CLEAN_POD_POLICY_ANNOTATION, json_string("None"));
    if (!field_object(j->f, j->spec, "runPolicy", parent, false, &rp) || !rp)
        return;
    field_check_known(j->f, rp, parent, run_policy_fields);
    field_path(path, parent, "cleanPodPolicy");
    kubeflow_clean_pod_policy(j, rp, path);
    int64_t ignored, backoff;
    /* backoffLimit retries: Volcano fails the job once retryCount reaches maxRetry, counting the
     * restart that reaches it, so maxRetry is backoffLimit + 1, on the job and on every task (a task
     * past its own maxRetry raises TaskFailed) */
    field_path(path, parent, "backoffLimit");
    if (field_int(j->f, rp, "backoffLimit", path, false, 0, INT32_MAX, &backoff) &&
        json_object_get(rp, "backoffLimit")) {
        j->max_retry = backoff < INT32_MAX ? backoff + 1 : INT32_MAX;
        json_object_set_new(j->vspec, "maxRetry", json_integer(j->max_retry));
        dialect_map_path(j->out, "spec.maxRetry", path);
    }
    copy_int(j, rp, "ttlSecondsAfterFinished", parent, 0, "ttlSecondsAfterFinished", &ignored);
    field_path(path, parent, "activeDeadlineSeconds");
    field_int(j->f, rp, "activeDeadlineSeconds", path, false, 1, INT64_MAX, &j->active_deadline);
    bool suspend = false;
    field_path(path, parent, "suspend");
    if (field_bool(j->f, rp, "suspend", path, &suspend) && suspend)
        field_unsupported(j->f, rp, "suspend", path,
                          "a Volcano Job cannot be created suspended; submit it when it is to run");
    const char *managed_by = NULL;
    field_path(path, parent, "managedBy");
    if (field_string(j->f, rp, "managedBy", path, false, &managed_by) && managed_by &&
        strcmp(managed_by, TRAINING_OPERATOR) != 0)
        field_unsupported(j->f, rp, "managedBy", path, "supported values: \"" TRAINING_OPERATOR "\"");
    scheduling_policy(j, rp);
}
