/* The Spark operator's SparkApplication (sparkoperator.k8s.io/v1beta2, sparkapplications) checked
 * field by field and turned into a Volcano Job: a driver task, then an executor task, gang-sized so the
 * PodGroup's minResources covers the driver and the minimum executors (seed 002). */
#include "adapters/dialects/spark/spark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/fields.h"

#define JVM_OVERHEAD_FACTOR 0.1     /* spark.kubernetes.memoryOverheadFactor's default */
#define NON_JVM_OVERHEAD_FACTOR 0.4 /* Python and R applications */
#define DEFAULT_INSTANCES 1         /* the operator's default executor.instances */
#define MAX_REPLICAS 100000

static const char *const spec_fields[] = {"type",
                                          "sparkVersion",
                                          "mode",
                                          "proxyUser",
                                          "image",
                                          "imagePullPolicy",
                                          "imagePullSecrets",
                                          "mainClass",
                                          "mainApplicationFile",
                                          "arguments",
                                          "sparkConf",
                                          "hadoopConf",
                                          "driver",
                                          "executor",
                                          "deps",
                                          "restartPolicy",
                                          "nodeSelector",
                                          "pythonVersion",
                                          "memoryOverheadFactor",
                                          "batchScheduler",
                                          "timeToLiveSeconds",
                                          "batchSchedulerOptions",
                                          "dynamicAllocation",
                                          NULL};
static const struct field_refusal spec_refusals[] = {
    {"sparkConfigMap", "the process runtime mounts no ConfigMaps: give the settings in sparkConf"},
    {"hadoopConfigMap", "the process runtime mounts no ConfigMaps: give the settings in hadoopConf"},
    {"volumes", "the process runtime mounts no Kubernetes volumes"},
    {"failureRetries", "give the retries in restartPolicy.onFailureRetries"},
    {"retryInterval", "give the interval in restartPolicy.onFailureRetryInterval"},
    {"monitoring", "no Prometheus JMX exporter is set up"},
    {"sparkUIOptions", "no Service or Ingress is created: the UI is <name>-driver-0.<name>:4040"},
    {"driverIngressOptions", "no Service or Ingress is created"},
    {NULL, NULL}};
static const char *const restart_fields[] = {"type",
                                             "onFailureRetries",
                                             "onFailureRetryInterval",
                                             "onSubmissionFailureRetries",
                                             "onSubmissionFailureRetryInterval",
                                             NULL};
static const char *const allocation_fields[] = {"enabled",      "initialExecutors",       "minExecutors",
                                                "maxExecutors", "shuffleTrackingTimeout", NULL};
static const char *const options_fields[] = {"queue", "priorityClassName", NULL};
static const struct field_refusal options_refusals[] = {
    {"resources", "the PodGroup's minResources is computed: the driver and the minimum executors"}, {NULL, NULL}};

static bool parse_factor(const char *text, double *out)
{
    char *end = NULL;
    double v = text ? strtod(text, &end) : 0;
    if (!text || end == text || *end || !(v > 0 && v <= 100))
        return false;
    *out = v;
    return true;
}

/* A port from sparkConf (spark.driver.port, ...), else dflt. */
static int64_t conf_port(struct fields *f, json_t *conf, const char *key, int64_t dflt)
{
    const char *text = json_string_value(json_object_get(conf, key));
    char *end = NULL, path[FIELD_PATH_MAX];
    long v = text ? strtol(text, &end, 10) : dflt;
    if (text && (end == text || *end || v < 1 || v > 65535)) {
        snprintf(path, sizeof path, "spec.sparkConf[%s]", key);
        field_invalid(f, conf, key, path, "must be a port between 1 and 65535 (the executors connect to it)");
        return dflt;
    }
    return v;
}

/* type, mode, sparkVersion, pythonVersion, memoryOverheadFactor and the image fields. */
static void app_fields(struct fields *f, json_t *spec, struct spark_app *app)
{
    static const char *const types = "supported values: \"Java\", \"Scala\", \"Python\", \"R\"";
    const char *mode = NULL, *version = NULL, *python = NULL, *factor = NULL, *s = NULL;
    if (field_string(f, spec, "type", "spec.type", true, &app->type) && app->type && strcmp(app->type, "Java") != 0 &&
        strcmp(app->type, "Scala") != 0 && strcmp(app->type, "Python") != 0 && strcmp(app->type, "R") != 0)
        field_unsupported(f, spec, "type", "spec.type", types);
    if (field_string(f, spec, "mode", "spec.mode", false, &mode) && mode && strcmp(mode, "cluster") != 0)
        field_unsupported(f, spec, "mode", "spec.mode",
                          "supported values: \"cluster\" (the driver runs in the Volcano Job's driver task)");
    if (!mode)
        json_object_set_new(spec, "mode", json_string("cluster"));
    field_string(f, spec, "sparkVersion", "spec.sparkVersion", true, &version);
    if (field_string(f, spec, "pythonVersion", "spec.pythonVersion", false, &python) && python &&
        strcmp(python, "2") != 0 && strcmp(python, "3") != 0)
        field_unsupported(f, spec, "pythonVersion", "spec.pythonVersion", "supported values: \"2\", \"3\"");
    field_string(f, spec, "image", "spec.image", false, &s);
    field_string(f, spec, "imagePullPolicy", "spec.imagePullPolicy", false, &s);
    char **secrets = NULL;
    field_string_list(f, spec, "imagePullSecrets", "spec.imagePullSecrets", &secrets);
    for (size_t i = 0; secrets && secrets[i]; i++)
        free(secrets[i]);
    free(secrets);
    json_t *selector;
    field_string_map(f, spec, "nodeSelector", "spec.nodeSelector", &selector);
    bool jvm = !app->type || (strcmp(app->type, "Python") != 0 && strcmp(app->type, "R") != 0);
    app->overhead_factor = jvm ? JVM_OVERHEAD_FACTOR : NON_JVM_OVERHEAD_FACTOR;
    const char *conf_factor = json_string_value(
        json_object_get(app->spark_conf, "spark.kubernetes.memoryOverheadFactor"));
    if (field_string(f, spec, "memoryOverheadFactor", "spec.memoryOverheadFactor", false, &factor) && factor) {
        if (!parse_factor(factor, &app->overhead_factor))
            field_invalid(f, spec, "memoryOverheadFactor", "spec.memoryOverheadFactor",
                          "must be a number greater than 0, such as 0.1");
    } else if (conf_factor && !parse_factor(conf_factor, &app->overhead_factor)) {
        field_invalid(f, app->spark_conf, "spark.kubernetes.memoryOverheadFactor",
                      "spec.sparkConf[spark.kubernetes.memoryOverheadFactor]", "must be a number greater than 0");
    }
    app->driver_port = conf_port(f, app->spark_conf, "spark.driver.port", SPARK_DRIVER_PORT);
    app->block_manager_port = conf_port(f, app->spark_conf, "spark.driver.blockManager.port", SPARK_BLOCK_MANAGER_PORT);
}

/* executor.instances, or dynamicAllocation's bounds: the executor task's replicas and minAvailable. */
static void executor_counts(struct fields *f, json_t *spec, struct spark_app *app, struct dialect_translation *t)
{
    json_t *da, *executor = json_object_get(spec, "executor");
    int64_t instances = DEFAULT_INSTANCES, min = 0, max = 0, initial = -1, timeout = 0;
    bool has_instances = json_is_object(executor) && json_object_get(executor, "instances");
    if (json_is_object(executor))
        field_int(f, executor, "instances", "spec.executor.instances", false, 1, MAX_REPLICAS, &instances);
    const char *conf = json_string_value(json_object_get(app->spark_conf, "spark.executor.instances"));
    if (!has_instances && conf) { /* the operator reads sparkConf's count when the field is absent */
        char *end = NULL;
        long n = strtol(conf, &end, 10);
        if (end == conf || *end || n < 1 || n > MAX_REPLICAS)
            field_invalid(f, app->spark_conf, "spark.executor.instances", "spec.sparkConf[spark.executor.instances]",
                          "must be a whole number of executors, at least 1");
        else
            instances = n, has_instances = true;
    }
    if (field_object(f, spec, "dynamicAllocation", "spec.dynamicAllocation", false, &da) && da) {
        dialect_refuse_fields(f, da, "spec.dynamicAllocation", allocation_fields, NULL);
        field_bool(f, da, "enabled", "spec.dynamicAllocation.enabled", &app->dynamic);
        field_int(f, da, "initialExecutors", "spec.dynamicAllocation.initialExecutors", false, 0, MAX_REPLICAS,
                  &initial);
        field_int(f, da, "minExecutors", "spec.dynamicAllocation.minExecutors", false, 0, MAX_REPLICAS, &min);
        field_int(f, da, "shuffleTrackingTimeout", "spec.dynamicAllocation.shuffleTrackingTimeout", false, 0, INT64_MAX,
                  &timeout);
        if (field_int(f, da, "maxExecutors", "spec.dynamicAllocation.maxExecutors", app->dynamic, 1, MAX_REPLICAS,
                      &max) &&
            app->dynamic && max > 0 && min > max)
            field_invalid(f, da, "minExecutors", "spec.dynamicAllocation.minExecutors",
                          "must be less than or equal to maxExecutors");
        else if (app->dynamic && max > 0 && initial >= 0 && (initial < min || initial > max))
            field_invalid(f, da, "initialExecutors", "spec.dynamicAllocation.initialExecutors",
                          "must be between minExecutors and maxExecutors");
    }
    if (app->dynamic) {
        /* Every executor Spark may ask for is a replica; the gang holds the minimum. */
        app->executors = max;
        app->min_executors = min;
        dialect_map_path(t, "spec.tasks[1].replicas", "spec.dynamicAllocation.maxExecutors");
        dialect_map_path(t, "spec.tasks[1].minAvailable", "spec.dynamicAllocation.minExecutors");
        return;
    }
    if (!has_instances && json_is_object(executor))
        json_object_set_new(executor, "instances", json_integer(instances));
    app->executors = app->min_executors = instances;
    dialect_map_path(t, "spec.tasks[1].replicas", "spec.executor.instances");
}

/* restartPolicy: the driver's end decides the job. Volcano fails the job once retryCount reaches
 * maxRetry, counting the restart that reaches it, so N retries need maxRetry N + 1. Submission
 * failures cannot happen after admission (a pod Caldera would refuse is refused at the POST), so
 * onSubmissionFailureRetries and its interval are checked and have nothing to retry. */
static void restart_policy(struct fields *f, json_t *spec, json_t *vspec, json_t **driver_policies,
                           struct dialect_translation *t)
{
    json_t *rp;
    const char *type = "Never";
    int64_t retries = 0, interval = 0, ignored;
    if (field_object(f, spec, "restartPolicy", "spec.restartPolicy", false, &rp) && rp) {
        dialect_refuse_fields(f, rp, "spec.restartPolicy", restart_fields, NULL);
        if (field_string(f, rp, "type", "spec.restartPolicy.type", false, &type) && type &&
            strcmp(type, "Never") != 0 && strcmp(type, "OnFailure") != 0 && strcmp(type, "Always") != 0)
            field_unsupported(f, rp, "type", "spec.restartPolicy.type",
                              "supported values: \"Never\", \"OnFailure\", \"Always\"");
        type = type ? type : "Never";
        field_int(f, rp, "onFailureRetries", "spec.restartPolicy.onFailureRetries", false, 0, INT32_MAX - 1, &retries);
        field_int(f, rp, "onFailureRetryInterval", "spec.restartPolicy.onFailureRetryInterval", false, 1, 86400 * 365,
                  &interval);
        field_int(f, rp, "onSubmissionFailureRetries", "spec.restartPolicy.onSubmissionFailureRetries", false, 0,
                  INT32_MAX, &ignored);
        field_int(f, rp, "onSubmissionFailureRetryInterval", "spec.restartPolicy.onSubmissionFailureRetryInterval",
                  false, 1, 86400 * 365, &ignored);
    } else if (!rp) {
        json_object_set_new(spec, "restartPolicy", json_pack("{s:s}", "type", "Never"));
    }
    bool always = strcmp(type, "Always") == 0, never = strcmp(type, "Never") == 0;
    json_object_set_new(vspec, "maxRetry", json_integer(always ? INT32_MAX : never ? 1 : retries + 1));
    if (!always && !never)
        dialect_map_path(t, "spec.maxRetry", "spec.restartPolicy.onFailureRetries");
    json_t *failure = json_pack("{s:[s,s], s:s}", "events", "PodFailed", "PodEvicted", "action", "RestartJob");
    if (!never && interval > 0)
        json_object_set_new(failure, "timeout", json_sprintf("%llds", (long long)interval));
    if (always)
        json_array_append_new(json_object_get(failure, "events"), json_string("TaskCompleted"));
    *driver_policies = json_pack("[o]", failure);
    if (!always)
        json_array_append_new(*driver_policies,
                              json_pack("{s:s, s:s}", "event", "TaskCompleted", "action", "CompleteJob"));
}

/* batchScheduler (Volcano only), its queue and priority class, the TTL and the pods' scheduler. */
static void scheduling(struct fields *f, json_t *spec, const struct spark_app *app, json_t *vspec,
                       struct dialect_translation *t)
{
    const char *scheduler = NULL, *s = NULL;
    json_t *options;
    int64_t ttl = 0;
    if (field_string(f, spec, "batchScheduler", "spec.batchScheduler", false, &scheduler) && scheduler &&
        strcmp(scheduler, "volcano") != 0)
        field_unsupported(f, spec, "batchScheduler", "spec.batchScheduler", "supported values: \"volcano\"");
    if (field_object(f, spec, "batchSchedulerOptions", "spec.batchSchedulerOptions", false, &options) && options) {
        dialect_refuse_fields(f, options, "spec.batchSchedulerOptions", options_fields, options_refusals);
        if (field_string(f, options, "queue", "spec.batchSchedulerOptions.queue", false, &s) && s) {
            json_object_set_new(vspec, "queue", json_string(s));
            dialect_map_path(t, "spec.queue", "spec.batchSchedulerOptions.queue");
        }
        if (field_string(f, options, "priorityClassName", "spec.batchSchedulerOptions.priorityClassName", false, &s) &&
            s) {
            json_object_set_new(vspec, "priorityClassName", json_string(s));
            dialect_map_path(t, "spec.priorityClassName", "spec.batchSchedulerOptions.priorityClassName");
        }
    }
    if (field_int(f, spec, "timeToLiveSeconds", "spec.timeToLiveSeconds", false, 0, INT32_MAX, &ttl) &&
        json_object_get(spec, "timeToLiveSeconds")) {
        json_object_set_new(vspec, "ttlSecondsAfterFinished", json_integer(ttl));
        dialect_map_path(t, "spec.ttlSecondsAfterFinished", "spec.timeToLiveSeconds");
    }
    const char *ds = json_string_value(json_object_get(app->driver.pod, "schedulerName"));
    const char *es = json_string_value(json_object_get(app->executor.pod, "schedulerName"));
    if (ds && es && strcmp(ds, es) != 0)
        field_invalid(f, app->executor.pod, "schedulerName", "spec.executor.schedulerName",
                      "must be the driver's: a Volcano Job has one scheduler");
    else if (ds || es) {
        json_object_set_new(vspec, "schedulerName", json_string(ds ? ds : es));
        dialect_map_path(t, "spec.schedulerName", ds ? "spec.driver.schedulerName" : "spec.executor.schedulerName");
    }
}

static json_t *tasks(json_t *spec, const struct spark_app *app, json_t *driver_command, json_t *driver_policies,
                     struct dialect_translation *t)
{
    json_t *driver = spark_role_template(spec, app, &app->driver, driver_command, spark_role_env(&app->driver, NULL), 0,
                                         t);
    json_t *executor = spark_role_template(spec, app, &app->executor, spark_executor_command(app),
                                           spark_role_env(&app->executor, spark_executor_env(app)), 1, t);
    /* Spark gives up after max(2 * executors, 3) executor failures (spark.executor.maxNumFailures). */
    int64_t failures = 2 * app->executors > 3 ? 2 * app->executors : 3;
    return json_pack("[{s:s, s:i, s:i, s:o, s:o}, {s:s, s:I, s:I, s:I, s:o, s:[{s:s, s:s}]}]", "name",
                     SPARK_DRIVER_TASK, "replicas", 1, "minAvailable", 1, "template", driver, "policies",
                     driver_policies, "name", SPARK_EXECUTOR_TASK, "replicas", (json_int_t)app->executors,
                     "minAvailable", (json_int_t)app->min_executors, "maxRetry", (json_int_t)failures, "template",
                     executor, "policies", "event", "TaskFailed", "action", "RestartJob");
}

static int spark_translate(struct fields *f, json_t *source, const char *ns, struct dialect_translation *out)
{
    struct spark_app app = {.ns = ns};
    app.driver = (struct spark_role){.task = SPARK_DRIVER_TASK, .path = "spec.driver"};
    app.executor = (struct spark_role){.task = SPARK_EXECUTOR_TASK, .path = "spec.executor"};
    json_t *spec, *vspec = json_object(), *driver_policies = NULL, *command = NULL;
    json_t *meta = dialect_volcano_metadata(f, source,
                                            "a SparkApplication needs its name (generateName is not supported): "
                                            "the driver's address <name>-driver-0.<name> is made from it",
                                            &app.name);
    if (meta && field_object(f, source, "spec", "spec", true, &spec) && spec) {
        dialect_refuse_fields(f, spec, "spec", spec_fields, spec_refusals);
        field_string_map(f, spec, "sparkConf", "spec.sparkConf", &app.spark_conf);
        app.app_id = spark_app_id(source, app.app_id_buf, sizeof app.app_id_buf);
        app_fields(f, spec, &app);
        executor_counts(f, spec, &app, out);
        bool roles = spark_role_read(f, spec, &app, &app.driver);
        roles = spark_role_read(f, spec, &app, &app.executor) && roles;
        restart_policy(f, spec, vspec, &driver_policies, out);
        scheduling(f, spec, &app, vspec, out);
        command = roles ? spark_driver_command(f, spec, &app) : NULL;
    }
    if (!meta || !command || f->st->code != 0 || f->st->ncauses > 0) {
        json_decref(meta);
        json_decref(vspec);
        json_decref(driver_policies);
        json_decref(command);
        return -1;
    }
    json_object_set_new(vspec, "minAvailable", json_integer(1 + app.min_executors));
    json_object_set_new(vspec, "plugins", json_pack("{s:[]}", "svc"));
    json_object_set_new(vspec, "tasks", tasks(spec, &app, command, driver_policies, out));
    return dialect_volcano_job(f, meta, vspec, out);
}

const struct dialect dialect_spark = {
    .group = "sparkoperator.k8s.io",
    .version = "v1beta2",
    .kind = "SparkApplication",
    .plural = "sparkapplications",
    .translate = spark_translate,
    .render_status = spark_render_status,
    .short_names = "sparkapp",
};
