/* KubeRay's RayJob (ray.io/v1, rayjobs) checked field by field and turned into a Volcano Job with the
 * ray plugin: a head task, a worker task and a submitter task that runs `ray job submit`. */
#include "adapters/dialects/ray/rayjob.h"

#include <stdio.h>
#include <string.h>

#include "adapters/dialects/fields.h"

#define KUBERAY_OPERATOR "ray.io/kuberay-operator"
#define SUBMISSION_MODE "K8sJobMode"
/* KubeRay's labels for the Volcano batch scheduler: the queue and the PodGroup's priority class. */
#define QUEUE_LABEL "volcano.sh/queue-name"
#define PRIORITY_LABEL "ray.io/priority-class-name"

static const char *const spec_fields[] = {"entrypoint",
                                          "rayClusterSpec",
                                          "shutdownAfterJobFinishes",
                                          "ttlSecondsAfterFinished",
                                          "backoffLimit",
                                          "activeDeadlineSeconds",
                                          "runtimeEnvYAML",
                                          "submissionMode",
                                          "suspend",
                                          "jobId",
                                          "metadata",
                                          "entrypointNumCpus",
                                          "entrypointNumGpus",
                                          "entrypointResources",
                                          "submitterPodTemplate",
                                          "submitterConfig",
                                          "managedBy",
                                          NULL};
static const struct field_refusal spec_refusals[] = {
    {"clusterSelector", "Caldera runs a cluster per RayJob (rayClusterSpec); it cannot submit to an existing one"},
    {"deletionStrategy", "the cluster's pods end with the job; shutdownAfterJobFinishes says when"},
    {"schedule", "Caldera does not run RayJobs on a cron schedule"},
    {NULL, NULL}};

/* The Volcano Job's metadata; the labels KubeRay's Volcano integration reads name the queue and the
 * PodGroup's priority class. */
static json_t *volcano_metadata(struct fields *f, json_t *source, json_t *vspec, struct dialect_translation *t,
                                const char **name)
{
    json_t *out = dialect_volcano_metadata(f, source,
                                           "a RayJob needs its name (generateName is not supported): the head's "
                                           "address <name>-head-0.<name> is made from it",
                                           name);
    json_t *labels = json_object_get(out, "labels");
    json_t *queue = json_object_get(labels, QUEUE_LABEL), *pclass = json_object_get(labels, PRIORITY_LABEL);
    if (queue) {
        json_object_set(vspec, "queue", queue);
        dialect_map_path(t, "spec.queue", "metadata.labels[" QUEUE_LABEL "]");
    }
    if (pclass) {
        json_object_set(vspec, "priorityClassName", pclass);
        dialect_map_path(t, "spec.priorityClassName", "metadata.labels[" PRIORITY_LABEL "]");
    }
    return out;
}

/* suspend, submissionMode and managedBy: only the values Caldera runs. */
static void check_modes(struct fields *f, json_t *spec)
{
    bool suspend = false;
    if (field_bool(f, spec, "suspend", "spec.suspend", &suspend) && suspend)
        field_unsupported(f, spec, "suspend", "spec.suspend",
                          "a RayJob runs when it is created; suspend a running job with an AbortJob command");
    const char *mode = NULL, *managed = NULL;
    if (field_string(f, spec, "submissionMode", "spec.submissionMode", false, &mode) && mode &&
        strcmp(mode, SUBMISSION_MODE) != 0)
        field_unsupported(f, spec, "submissionMode", "spec.submissionMode",
                          "supported values: \"K8sJobMode\" (a submitter task runs `ray job submit`)");
    if (!mode)
        json_object_set_new(spec, "submissionMode", json_string(SUBMISSION_MODE));
    if (field_string(f, spec, "managedBy", "spec.managedBy", false, &managed) && managed &&
        strcmp(managed, KUBERAY_OPERATOR) != 0)
        field_unsupported(f, spec, "managedBy", "spec.managedBy", "supported values: \"" KUBERAY_OPERATOR "\"");
}

/* backoffLimit, ttlSecondsAfterFinished, shutdownAfterJobFinishes and activeDeadlineSeconds. KubeRay's
 * TTL is the cluster's: it is deleted that long after the Ray job ends, and the RayJob stays; so the
 * submitter's completion completes the job after the TTL (a delayed policy), and the Volcano Job has no
 * TTL of its own (which would delete the RayJob). */
static void check_lifetime(struct fields *f, json_t *spec, json_t *vspec, struct dialect_translation *t, bool *shutdown,
                           int64_t *ttl, int64_t *deadline)
{
    int64_t backoff = 0;
    *shutdown = false;
    *ttl = *deadline = 0;
    field_bool(f, spec, "shutdownAfterJobFinishes", "spec.shutdownAfterJobFinishes", shutdown);
    /* Each retry is a new cluster: RestartJob. Volcano fails the job once retryCount reaches maxRetry,
     * counting the restart that reaches it, so backoffLimit retries need maxRetry backoffLimit + 1. */
    if (field_int(f, spec, "backoffLimit", "spec.backoffLimit", false, 0, INT32_MAX - 1, &backoff)) {
        json_object_set_new(vspec, "maxRetry", json_integer(backoff + 1));
        dialect_map_path(t, "spec.maxRetry", "spec.backoffLimit");
    }
    if (!json_object_get(spec, "backoffLimit"))
        json_object_set_new(spec, "backoffLimit", json_integer(0));
    if (field_int(f, spec, "ttlSecondsAfterFinished", "spec.ttlSecondsAfterFinished", false, 0, INT32_MAX, ttl) &&
        *ttl > 0 && !*shutdown)
        field_invalid(f, spec, "ttlSecondsAfterFinished", "spec.ttlSecondsAfterFinished",
                      "a RayJob with shutdownAfterJobFinishes set to false is not allowed to be set "
                      "TTLSecondsAfterFinished");
    field_int(f, spec, "activeDeadlineSeconds", "spec.activeDeadlineSeconds", false, 1, INT32_MAX, deadline);
}

static int rayjob_translate(struct fields *f, json_t *source, const char *ns, struct dialect_translation *out)
{
    (void)ns;
    json_t *spec, *vspec = json_object(), *tasks = json_array(), *ray_args = json_array();
    const char *name = NULL;
    json_t *meta = volcano_metadata(f, source, vspec, out, &name);
    bool shutdown = false;
    int64_t ttl = 0, deadline = 0;
    struct rayjob_cluster cluster = {0};
    if (meta && field_object(f, source, "spec", "spec", true, &spec) && spec) {
        dialect_refuse_fields(f, spec, "spec", spec_fields, spec_refusals);
        check_modes(f, spec);
        check_lifetime(f, spec, vspec, out, &shutdown, &ttl, &deadline);
        if (rayjob_cluster(f, spec, deadline, tasks, ray_args, &cluster, out))
            rayjob_submitter(f, spec, name, &cluster, shutdown ? ttl : -1, deadline, json_array_size(tasks), tasks,
                             out);
    }
    if (!meta || f->st->code != 0 || f->st->ncauses > 0) {
        json_decref(meta);
        json_decref(vspec);
        json_decref(tasks);
        json_decref(ray_args);
        return -1;
    }
    json_object_set_new(vspec, "minAvailable", json_integer(cluster.min_members));
    json_object_set_new(vspec, "plugins", json_pack("{s:o, s:[]}", "ray", ray_args, "svc"));
    json_object_set_new(vspec, "tasks", tasks);
    return dialect_volcano_job(f, meta, vspec, out);
}

const struct dialect dialect_rayjob = {
    .group = "ray.io",
    .version = "v1",
    .kind = "RayJob",
    .plural = "rayjobs",
    .translate = rayjob_translate,
    .render_status = rayjob_render_status,
};
