/* A RayJob's submission as a Volcano task, like KubeRay's submitter pod: wait for the head's dashboard,
 * then `ray job submit -- <entrypoint>`, whose end ends the job when shutdownAfterJobFinishes is set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/dialects/fields.h"
#include "adapters/dialects/ray/rayjob.h"
#include "common/sbuf.h"

#define SUBMITTER_CONTAINER "ray-job-submitter" /* KubeRay's names and sizes for its default submitter */
#define DEFAULT_SUBMITTER_BACKOFF 2
#define TEMPLATE_PATH "spec.submitterPodTemplate"

void rayjob_dashboard_host(const char *job, int32_t port, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%s-0.%s:%d", job, RAY_HEAD_TASK, job, port);
}

const char *rayjob_submission_id(const json_t *source)
{
    const char *id = json_string_value(json_object_get(json_object_get(source, "spec"), "jobId"));
    if (id && *id)
        return id;
    const char *name = json_string_value(json_object_get(json_object_get(source, "metadata"), "name"));
    return name ? name : "";
}

static const char *const config_fields[] = {"backoffLimit", NULL};

/* s in single quotes for sh: ' becomes '\''. */
static void sh_quote(struct sbuf *b, const char *s)
{
    sbuf_puts(b, "'");
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            sbuf_puts(b, "'\\''");
        else
            sbuf_append(b, p, 1);
    }
    sbuf_puts(b, "'");
}

/* runtimeEnvYAML as the JSON `ray job submit --runtime-env-json` takes (KubeRay converts it the same
 * way); NULL when absent, or after a cause. */
static char *runtime_env_json(struct fields *f, json_t *spec)
{
    const char *yaml = NULL;
    if (!field_string(f, spec, "runtimeEnvYAML", "spec.runtimeEnvYAML", false, &yaml) || !yaml || !*yaml)
        return NULL;
    struct intake in = {0};
    struct api_status st = {0};
    char *json = NULL;
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) != 0)
        field_invalid(f, spec, "runtimeEnvYAML", "spec.runtimeEnvYAML", st.message);
    else if (in.ndocs != 1 || !json_is_object(in.docs[0].root))
        field_invalid(f, spec, "runtimeEnvYAML", "spec.runtimeEnvYAML", "must be one YAML mapping (a runtime_env)");
    else
        json = json_dumps(in.docs[0].root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    intake_free(&in);
    return json;
}

/* entrypointNumCpus / entrypointNumGpus: non-negative numbers; the text for the flag, or "" for none. */
static bool entrypoint_number(struct fields *f, json_t *spec, const char *key, char *text, size_t len)
{
    char path[FIELD_PATH_MAX];
    json_t *v = json_object_get(spec, key);
    text[0] = 0;
    field_path(path, "spec", key);
    if (!v || json_is_null(v))
        return true;
    if (!json_is_number(v) || json_number_value(v) < 0 || !intake_scalar_text(v, text, len)) {
        text[0] = 0;
        field_invalid(f, spec, key, path, "must be a number greater than or equal to 0");
        return false;
    }
    if (json_number_value(v) == 0)
        text[0] = 0; /* KubeRay passes only positive amounts */
    return true;
}

/* entrypointResources: a JSON object of resource amounts, as KubeRay checks it. */
static const char *entrypoint_resources(struct fields *f, json_t *spec)
{
    const char *text = NULL;
    if (!field_string(f, spec, "entrypointResources", "spec.entrypointResources", false, &text) || !text || !*text)
        return NULL;
    json_t *parsed = json_loads(text, 0, NULL);
    bool ok = json_is_object(parsed);
    const char *k;
    json_t *v;
    json_object_foreach(parsed, k, v) ok = ok && json_is_number(v);
    json_decref(parsed);
    if (!ok) {
        field_invalid(f, spec, "entrypointResources", "spec.entrypointResources",
                      "must be a JSON object of resource names to numbers, such as {\"Custom_1\": 1}");
        return NULL;
    }
    return text;
}

/* The submitter's shell script: KubeRay's wait for the dashboard, then a blocking `ray job submit`,
 * which exits 0 when the Ray job succeeded and 1 when it failed. The entrypoint is shell text, as
 * KubeRay places it. NULL after a cause. */
static char *submit_script(struct fields *f, json_t *spec, const char *address, const char *submission_id)
{
    const char *entrypoint = NULL;
    json_t *metadata = NULL;
    char cpus[64], gpus[64];
    bool ok = field_string(f, spec, "entrypoint", "spec.entrypoint", true, &entrypoint);
    if (ok && entrypoint && entrypoint[strspn(entrypoint, " \t\r\n")] == 0) {
        field_required(f, spec, "entrypoint", "spec.entrypoint");
        ok = false;
    }
    const char *job_id = NULL;
    ok = field_string(f, spec, "jobId", "spec.jobId", false, &job_id) && ok;
    ok = field_string_map(f, spec, "metadata", "spec.metadata", &metadata) && ok;
    ok = entrypoint_number(f, spec, "entrypointNumCpus", cpus, sizeof cpus) && ok;
    ok = entrypoint_number(f, spec, "entrypointNumGpus", gpus, sizeof gpus) && ok;
    int before = f->st->ncauses;
    const char *resources = entrypoint_resources(f, spec);
    char *runtime_env = runtime_env_json(f, spec);
    if (!ok || f->st->ncauses > before || f->st->code != 0) {
        free(runtime_env);
        return NULL;
    }
    struct sbuf b = {0};
    sbuf_printf(&b,
                "until ray job list --address http://%s >/dev/null 2>&1; do "
                "echo \"Waiting for the Ray dashboard at http://%s ...\"; sleep 2; done; "
                "ray job submit --address http://%s --submission-id ",
                address, address, address);
    sh_quote(&b, submission_id);
    if (runtime_env) {
        sbuf_puts(&b, " --runtime-env-json ");
        sh_quote(&b, runtime_env);
    }
    if (json_object_size(metadata) > 0) {
        char *m = json_dumps(metadata, JSON_COMPACT | JSON_SORT_KEYS);
        sbuf_puts(&b, " --metadata-json ");
        sh_quote(&b, m ? m : "{}");
        free(m);
    }
    if (cpus[0])
        sbuf_printf(&b, " --entrypoint-num-cpus %s", cpus);
    if (gpus[0])
        sbuf_printf(&b, " --entrypoint-num-gpus %s", gpus);
    if (resources) {
        sbuf_puts(&b, " --entrypoint-resources ");
        sh_quote(&b, resources);
    }
    sbuf_printf(&b, " -- %s", entrypoint);
    free(runtime_env);
    return b.failed ? (sbuf_free(&b), NULL) : sbuf_take(&b);
}

static bool env_has(const json_t *env, const char *name)
{
    size_t i;
    json_t *item;
    json_array_foreach(env, i, item)
    {
        const char *n = json_string_value(json_object_get(item, "name"));
        if (n && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

/* The container's own env, then what KubeRay gives its submitter (unless the container sets it). */
static json_t *submitter_env(const json_t *own, const char *address, const char *submission_id)
{
    json_t *env = json_array();
    char url[FIELD_PATH_MAX + 16];
    snprintf(url, sizeof url, "http://%s", address);
    const char *const ours[][2] = {
        {"PYTHONUNBUFFERED", "1"}, {"RAY_DASHBOARD_ADDRESS", url}, {"RAY_JOB_SUBMISSION_ID", submission_id}};
    size_t i;
    json_t *item;
    json_array_foreach(own, i, item) json_array_append(env, item);
    for (size_t k = 0; k < sizeof ours / sizeof ours[0]; k++)
        if (!env_has(own, ours[k][0]))
            json_array_append_new(env, json_pack("{s:s, s:s}", "name", ours[k][0], "value", ours[k][1]));
    return env;
}

/* KubeRay's default submitter: the head's image, 500m/200Mi requested, 1 cpu/1Gi at most. */
static json_t *default_template(const char *image, json_t *command, json_t *env)
{
    json_t *container = json_pack("{s:s, s:o, s:o, s:{s:{s:s, s:s}, s:{s:s, s:s}}}", "name", SUBMITTER_CONTAINER,
                                  "command", command, "env", env, "resources", "limits", "cpu", "1", "memory", "1Gi",
                                  "requests", "cpu", "500m", "memory", "200Mi");
    if (image)
        json_object_set_new(container, "image", json_string(image));
    return json_pack("{s:{s:s, s:[o]}}", "spec", "restartPolicy", "OnFailure", "containers", container);
}

/* The user's submitterPodTemplate, copied where it changes: restartPolicy OnFailure (a K8s Job's pod
 * retries, as the task's in-place restarts), KubeRay's env, and the command unless it has its own. */
static json_t *user_template(struct fields *f, json_t *template, json_t *command, const char *address,
                             const char *submission_id)
{
    json_t *spec = json_object_get(template, "spec"), *containers = json_object_get(spec, "containers");
    json_t *c0 = json_array_get(containers, 0);
    if (!json_is_object(spec) || !json_is_object(c0)) {
        field_error(f, json_is_object(spec) ? spec : template, json_is_object(spec) ? "containers" : "spec",
                    json_is_object(spec) ? TEMPLATE_PATH ".spec.containers" : TEMPLATE_PATH ".spec",
                    "FieldValueRequired", "Required value: the submitter's container");
        json_decref(command);
        return NULL;
    }
    const char *restart = json_string_value(json_object_get(spec, "restartPolicy"));
    if (restart && strcmp(restart, "Always") == 0) {
        field_unsupported(f, spec, "restartPolicy", TEMPLATE_PATH ".spec.restartPolicy",
                          "supported values: \"Never\", \"OnFailure\": the submitter's end is the Ray job's end");
        json_decref(command);
        return NULL;
    }
    json_t *copy = dialect_template_cow(template);
    json_t *cspec = json_object_get(copy, "spec");
    json_t *ccontainers = json_copy(containers), *cc0 = json_copy(c0);
    json_object_set_new(cspec, "restartPolicy", json_string("OnFailure"));
    if (!json_object_get(c0, "command"))
        json_object_set(cc0, "command", command);
    json_decref(command);
    json_object_set_new(cc0, "env", submitter_env(json_object_get(c0, "env"), address, submission_id));
    json_array_set_new(ccontainers, 0, cc0);
    json_object_set_new(cspec, "containers", ccontainers);
    return copy;
}

static int64_t submitter_backoff(struct fields *f, json_t *spec)
{
    json_t *config;
    int64_t backoff = DEFAULT_SUBMITTER_BACKOFF;
    if (field_object(f, spec, "submitterConfig", "spec.submitterConfig", false, &config) && config) {
        dialect_refuse_fields(f, config, "spec.submitterConfig", config_fields, NULL);
        field_int(f, config, "backoffLimit", "spec.submitterConfig.backoffLimit", false, 0, INT32_MAX - 1, &backoff);
    }
    return backoff;
}

bool rayjob_submitter(struct fields *f, json_t *spec, const char *job, const struct rayjob_cluster *cluster,
                      int64_t shutdown_after, int64_t deadline, size_t task_index, json_t *tasks,
                      struct dialect_translation *t)
{
    char address[FIELD_PATH_MAX];
    rayjob_dashboard_host(job, cluster->dashboard_port, address, sizeof address);
    const char *job_id = json_string_value(json_object_get(spec, "jobId"));
    const char *submission_id = job_id && *job_id ? job_id : job;
    int64_t backoff = submitter_backoff(f, spec);
    json_t *own;
    bool ok = field_object(f, spec, "submitterPodTemplate", TEMPLATE_PATH, false, &own);
    char *script = submit_script(f, spec, address, submission_id);
    if (!script || !ok)
        return false;
    json_t *command = json_pack("[s,s,s]", "sh", "-c", script);
    free(script);
    json_t *template = own ? user_template(f, own, command, address, submission_id)
                           : default_template(cluster->head_image, command,
                                              submitter_env(NULL, address, submission_id));
    if (!template)
        return false;
    dialect_template_deadline(template, deadline);
    /* The submitter's restarts in place are its K8s Job's retries (backoffLimit + 1: Volcano's task
     * fails when its restarts reach maxRetry); once they are spent, or the pod fails outright (its
     * deadline), the attempt failed and the RayJob retries with a new cluster.
     * With shutdownAfterJobFinishes its success completes the job, ttlSecondsAfterFinished later.
     * Without shutdownAfterJobFinishes the submitter's success ends nothing: the Volcano Job stays
     * Running with the head and workers up (the RayJob's deployment shows Complete) until it is
     * deleted, ended by a command (TerminateJob, AbortJob), or its activeDeadlineSeconds stops the pods. */
    json_t *policies = json_pack("[{s:[s,s], s:s}]", "events", "PodFailed", "TaskFailed", "action", "RestartJob");
    if (shutdown_after >= 0) {
        json_t *complete = json_pack("{s:s, s:s}", "event", "TaskCompleted", "action", "CompleteJob");
        if (shutdown_after > 0) { /* ttlSecondsAfterFinished: the cluster stays that long */
            char vpath[64];
            json_object_set_new(complete, "timeout", json_sprintf("%llds", (long long)shutdown_after));
            snprintf(vpath, sizeof vpath, "spec.tasks[%zu].policies[%zu].timeout", task_index,
                     json_array_size(policies));
            dialect_map_path(t, vpath, "spec.ttlSecondsAfterFinished");
        }
        json_array_append_new(policies, complete);
    }
    json_array_append_new(tasks, json_pack("{s:s, s:i, s:i, s:I, s:o, s:o}", "name", RAY_SUBMITTER_TASK, "replicas", 1,
                                           "minAvailable", 0, "maxRetry", (json_int_t)(backoff + 1), "template",
                                           template, "policies", policies));
    char vpath[48];
    snprintf(vpath, sizeof vpath, "spec.tasks[%zu].maxRetry", task_index);
    dialect_map_path(t, vpath, "spec.submitterConfig.backoffLimit");
    if (own) {
        snprintf(vpath, sizeof vpath, "spec.tasks[%zu].template", task_index);
        dialect_map_path(t, vpath, TEMPLATE_PATH);
    }
    return true;
}
