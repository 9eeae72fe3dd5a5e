/* The commands of a SparkApplication's pods: the driver runs spark-submit in client mode inside its
 * pod (as the operator's driver pod does), executors run Spark's executor backend pointed at it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/fields.h"
#include "adapters/dialects/spark/spark.h"
#include "common/sbuf.h"

#define DEFAULT_MASTER "k8s://https://kubernetes.default.svc:443"
#define EXECUTOR_BACKEND "org.apache.spark.executor.CoarseGrainedExecutorBackend"

static const char *const deps_fields[] = {"jars",         "files",    "pyFiles", "packages", "excludePackages",
                                          "repositories", "archives", NULL};
static const char *const deps_flags[] = {
    "--jars", "--files", "--py-files", "--packages", "--exclude-packages", "--repositories", "--archives"};

void spark_driver_host(const char *job, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%s-0.%s", job, SPARK_DRIVER_TASK, job);
}

const char *spark_app_id(const json_t *source, char *buf, size_t len)
{
    const json_t *spec = json_object_get(source, "spec");
    const char *own = json_string_value(json_object_get(json_object_get(spec, "sparkConf"), "spark.app.id"));
    if (own && *own)
        return own;
    const char *name = json_string_value(json_object_get(json_object_get(source, "metadata"), "name"));
    snprintf(buf, len, "spark-%s", name ? name : "");
    return buf;
}

static void push(json_t *argv, const char *s) { json_array_append_new(argv, json_string(s)); }

static void push_conf(json_t *argv, const char *key, const char *value)
{
    push(argv, "--conf");
    json_array_append_new(argv, json_sprintf("%s=%s", key, value));
}

static void push_conf_int(json_t *argv, const char *key, long long value)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", value);
    push_conf(argv, key, text);
}

/* deps: each list joined by commas after its spark-submit flag. */
static bool deps(struct fields *f, json_t *spec, json_t *argv)
{
    json_t *d;
    if (!field_object(f, spec, "deps", "spec.deps", false, &d) || !d)
        return d == NULL && f->st->code == 0;
    dialect_refuse_fields(f, d, "spec.deps", deps_fields, NULL);
    bool ok = true;
    for (size_t i = 0; deps_fields[i]; i++) {
        char p[FIELD_PATH_MAX], **list = NULL;
        field_path(p, "spec.deps", deps_fields[i]);
        if (!field_string_list(f, d, deps_fields[i], p, &list)) {
            ok = false;
            continue;
        }
        if (list && list[0]) {
            struct sbuf b = {0};
            for (size_t k = 0; list[k]; k++)
                sbuf_printf(&b, "%s%s", k ? "," : "", list[k]);
            push(argv, deps_flags[i]);
            push(argv, sbuf_str(&b));
            sbuf_free(&b);
        }
        for (size_t k = 0; list && list[k]; k++)
            free(list[k]);
        free(list);
    }
    return ok;
}

/* sparkConf and hadoopConf (prefixed spark.hadoop.), in the document's order. */
static bool user_conf(struct fields *f, json_t *spec, json_t *argv)
{
    json_t *spark, *hadoop;
    bool ok = field_string_map(f, spec, "sparkConf", "spec.sparkConf", &spark);
    ok = field_string_map(f, spec, "hadoopConf", "spec.hadoopConf", &hadoop) && ok;
    if (!ok)
        return false;
    const char *key;
    json_t *v;
    json_object_foreach(spark, key, v) push_conf(argv, key, json_string_value(v));
    json_object_foreach(hadoop, key, v)
    {
        char k[256];
        snprintf(k, sizeof k, "spark.hadoop.%s", key);
        push_conf(argv, k, json_string_value(v));
    }
    return true;
}

/* What Caldera's layout fixes, after the user's sparkConf so these win: the driver's address, its
 * pod, the application id, and the sizes the pods were given. */
static void layout_conf(json_t *argv, json_t *spec, const struct spark_app *app)
{
    char host[FIELD_PATH_MAX], pod[FIELD_PATH_MAX];
    spark_driver_host(app->name, host, sizeof host);
    snprintf(pod, sizeof pod, "%s-%s-0", app->name, SPARK_DRIVER_TASK);
    push_conf(argv, "spark.app.id", app->app_id);
    push_conf(argv, "spark.driver.host", host);
    push_conf_int(argv, "spark.driver.port", app->driver_port);
    push_conf_int(argv, "spark.driver.blockManager.port", app->block_manager_port);
    push_conf(argv, "spark.kubernetes.namespace", app->ns);
    push_conf(argv, "spark.kubernetes.driver.pod.name", pod);
    push_conf_int(argv, "spark.driver.cores", app->driver.cores);
    push_conf(argv, "spark.driver.memory", app->driver.memory);
    push_conf_int(argv, "spark.executor.cores", app->executor.cores);
    push_conf(argv, "spark.executor.memory", app->executor.memory);
    for (const struct spark_role *r = &app->driver; r; r = r == &app->driver ? &app->executor : NULL) {
        char key[64];
        const char *request = json_string_value(json_object_get(r->pod, "coreRequest"));
        const char *limit = json_string_value(json_object_get(r->pod, "coreLimit"));
        snprintf(key, sizeof key, "spark.kubernetes.%s.request.cores", r->task);
        if (request)
            push_conf(argv, key, request);
        snprintf(key, sizeof key, "spark.kubernetes.%s.limit.cores", r->task);
        if (limit)
            push_conf(argv, key, limit);
    }
    const char *factor = json_string_value(json_object_get(spec, "memoryOverheadFactor"));
    if (factor)
        push_conf(argv, "spark.kubernetes.memoryOverheadFactor", factor);
    for (const struct spark_role *r = &app->driver; r; r = r == &app->driver ? &app->executor : NULL) {
        char key[64];
        const char *overhead = json_string_value(json_object_get(r->pod, "memoryOverhead"));
        snprintf(key, sizeof key, "spark.%s.memoryOverhead", r->task);
        if (overhead)
            push_conf(argv, key, overhead);
        snprintf(key, sizeof key, "spark.%s.extraJavaOptions", r->task);
        if (r->java_options)
            push_conf(argv, key, r->java_options);
    }
    const char *account = json_string_value(json_object_get(app->driver.pod, "serviceAccount"));
    if (account)
        push_conf(argv, "spark.kubernetes.authenticate.driver.serviceAccountName", account);
    const char *python = json_string_value(json_object_get(spec, "pythonVersion"));
    if (python)
        push_conf(argv, "spark.kubernetes.pyspark.pythonVersion", python);
    if (!app->dynamic) {
        push_conf_int(argv, "spark.executor.instances", app->executors);
        return;
    }
    const json_t *da = json_object_get(spec, "dynamicAllocation");
    push_conf(argv, "spark.dynamicAllocation.enabled", "true");
    push_conf(argv, "spark.dynamicAllocation.shuffleTracking.enabled", "true");
    static const char *const counts[][2] = {
        {"initialExecutors", "spark.dynamicAllocation.initialExecutors"},
        {"minExecutors", "spark.dynamicAllocation.minExecutors"},
        {"maxExecutors", "spark.dynamicAllocation.maxExecutors"},
        {"shuffleTrackingTimeout", "spark.dynamicAllocation.shuffleTracking.timeout"}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (json_is_integer(json_object_get(da, counts[i][0])))
            push_conf_int(argv, counts[i][1], (long long)json_integer_value(json_object_get(da, counts[i][0])));
}

json_t *spark_driver_command(struct fields *f, json_t *spec, const struct spark_app *app)
{
    const char *main_file = NULL, *main_class = NULL, *proxy = NULL;
    const char *master = json_string_value(json_object_get(app->driver.pod, "kubernetesMaster"));
    char **args = NULL;
    bool ok = field_string(f, spec, "mainApplicationFile", "spec.mainApplicationFile", true, &main_file);
    ok = field_string(f, spec, "mainClass", "spec.mainClass", false, &main_class) && ok;
    ok = field_string(f, spec, "proxyUser", "spec.proxyUser", false, &proxy) && ok;
    ok = field_string_list(f, spec, "arguments", "spec.arguments", &args) && ok;
    json_t *argv = json_array();
    push(argv, "spark-submit");
    push(argv, "--master");
    if (master)
        json_array_append_new(argv, strncmp(master, "k8s://", 6) == 0 ? json_string(master)
                                                                      : json_sprintf("k8s://%s", master));
    else
        push(argv, DEFAULT_MASTER);
    push(argv, "--deploy-mode");
    push(argv, "client");
    push(argv, "--name");
    push(argv, app->name);
    if (main_class) {
        push(argv, "--class");
        push(argv, main_class);
    }
    if (proxy) {
        push(argv, "--proxy-user");
        push(argv, proxy);
    }
    ok = deps(f, spec, argv) && ok;
    ok = user_conf(f, spec, argv) && ok;
    if (!ok || !main_file || f->st->code != 0) {
        for (size_t i = 0; args && args[i]; i++)
            free(args[i]);
        free(args);
        json_decref(argv);
        return NULL;
    }
    layout_conf(argv, spec, app);
    push(argv, main_file);
    for (size_t i = 0; args && args[i]; i++) {
        push(argv, args[i]);
        free(args[i]);
    }
    free(args);
    return argv;
}

/* The executor id is the replica's index + 1 (Spark numbers executors from 1), known only in the pod:
 * sh computes it from the env plugin's VC_TASK_INDEX. spark-class reads SPARK_EXECUTOR_MEMORY (-Xmx)
 * and SPARK_EXECUTOR_OPTS for this backend. */
json_t *spark_executor_command(const struct spark_app *app)
{
    char script[1024];
    snprintf(script, sizeof script,
             "SPARK_EXECUTOR_ID=$((VC_TASK_INDEX + 1)); SPARK_EXECUTOR_POD_NAME=%s-%s-$VC_TASK_INDEX; "
             "export SPARK_EXECUTOR_ID SPARK_EXECUTOR_POD_NAME; "
             "exec spark-class " EXECUTOR_BACKEND
             " --driver-url \"$SPARK_DRIVER_URL\" --executor-id "
             "\"$SPARK_EXECUTOR_ID\" --hostname \"$SPARK_EXECUTOR_POD_NAME.%s\" --cores \"$SPARK_EXECUTOR_CORES\" "
             "--app-id \"$SPARK_APPLICATION_ID\" --resourceProfileId \"$SPARK_RESOURCE_PROFILE_ID\"",
             app->name, SPARK_EXECUTOR_TASK, app->name);
    return json_pack("[s,s,s]", "sh", "-c", script);
}

json_t *spark_executor_env(const struct spark_app *app)
{
    char host[FIELD_PATH_MAX];
    spark_driver_host(app->name, host, sizeof host);
    json_t *env = json_array();
    json_array_append_new(
        env, json_pack("{s:s, s:o}", "name", "SPARK_DRIVER_URL", "value",
                       json_sprintf("spark://CoarseGrainedScheduler@%s:%lld", host, (long long)app->driver_port)));
    json_array_append_new(env, json_pack("{s:s, s:o}", "name", "SPARK_EXECUTOR_CORES", "value",
                                         json_sprintf("%lld", (long long)app->executor.cores)));
    json_array_append_new(env, json_pack("{s:s, s:s}", "name", "SPARK_EXECUTOR_MEMORY", "value", app->executor.memory));
    json_array_append_new(env, json_pack("{s:s, s:s}", "name", "SPARK_APPLICATION_ID", "value", app->app_id));
    json_array_append_new(env, json_pack("{s:s, s:s}", "name", "SPARK_RESOURCE_PROFILE_ID", "value", "0"));
    if (app->executor.java_options)
        json_array_append_new(
            env, json_pack("{s:s, s:s}", "name", "SPARK_EXECUTOR_OPTS", "value", app->executor.java_options));
    return env;
}
