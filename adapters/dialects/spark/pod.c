/* A SparkApplication's driver and executor as Volcano pod templates: cores and memory as Spark on
 * Kubernetes sizes the pods, env, labels and placement carried over, every other field refused by name. */
#include <stdio.h>
#include <string.h>

#include "adapters/dialects/fields.h"
#include "adapters/dialects/spark/spark.h"
#include "model/resource.h"

#define DEFAULT_MEMORY "1g" /* spark.driver.memory and spark.executor.memory */

static const char *const driver_fields[] = {"cores",
                                            "coreLimit",
                                            "coreRequest",
                                            "memory",
                                            "memoryOverhead",
                                            "gpu",
                                            "image",
                                            "env",
                                            "envVars",
                                            "labels",
                                            "annotations",
                                            "affinity",
                                            "tolerations",
                                            "podSecurityContext",
                                            "securityContext",
                                            "schedulerName",
                                            "hostNetwork",
                                            "nodeSelector",
                                            "terminationGracePeriodSeconds",
                                            "serviceAccount",
                                            "javaOptions",
                                            "ports",
                                            "priorityClassName",
                                            "kubernetesMaster",
                                            NULL};
static const char *const executor_fields[] = {"cores",
                                              "coreLimit",
                                              "coreRequest",
                                              "memory",
                                              "memoryOverhead",
                                              "gpu",
                                              "image",
                                              "env",
                                              "envVars",
                                              "labels",
                                              "annotations",
                                              "affinity",
                                              "tolerations",
                                              "podSecurityContext",
                                              "securityContext",
                                              "schedulerName",
                                              "hostNetwork",
                                              "nodeSelector",
                                              "terminationGracePeriodSeconds",
                                              "serviceAccount",
                                              "javaOptions",
                                              "ports",
                                              "priorityClassName",
                                              "instances",
                                              NULL};
static const struct field_refusal pod_refusals[] = {
    {"template", "give the pod's settings in the driver/executor fields (cores, memory, env, nodeSelector, ...)"},
    {"configMaps", "the process runtime mounts no ConfigMaps"},
    {"secrets", "the process runtime mounts no Secrets"},
    {"envFrom", "the process runtime takes literal env values only"},
    {"envSecretKeyRefs", "the process runtime takes literal env values only"},
    {"volumeMounts", "the process runtime mounts no Kubernetes volumes"},
    {"sidecars", "the process runtime runs one container per pod"},
    {"initContainers", "the process runtime runs one container per pod"},
    {"dnsConfig", "pods resolve names through the job's hosts file"},
    {"hostAliases", "pods resolve names through the job's hosts file"},
    {"shareProcessNamespace", "the process runtime runs one container per pod"},
    {"runtimeClassName", "the process runtime has no runtime classes"},
    {"lifecycle", "the process runtime runs no lifecycle hooks"},
    {"podName", "only mode cluster is supported: the driver pod is <name>-driver-0"},
    {"serviceAnnotations", "no Service is created: the driver is reached as <name>-driver-0.<name>"},
    {"serviceLabels", "no Service is created: the driver is reached as <name>-driver-0.<name>"},
    {"deleteOnTermination", "executor pods are kept as the Volcano Job keeps its pods"},
    {NULL, NULL}};

/* A cpu quantity field, checked where the user wrote it. */
static bool cpu_field(struct fields *f, json_t *pod, const char *key, const char *path)
{
    const char *text = NULL;
    char p[FIELD_PATH_MAX];
    field_path(p, path, key);
    if (!field_string(f, pod, key, p, false, &text) || !text)
        return text == NULL && f->st->code == 0;
    int64_t milli;
    const char *why = NULL;
    if (resource_parse(RES_CPU, text, &milli, &why) != 0 || milli <= 0) {
        field_invalid(f, pod, key, p, why ? why : "must be a positive cpu quantity such as 500m or 2");
        return false;
    }
    return true;
}

/* A Spark size (memory, memoryOverhead) from the role, else from sparkConf[conf_key], else dflt. */
static bool size_field(struct fields *f, json_t *pod, const char *key, const char *path, json_t *conf,
                       const char *conf_key, const char *dflt, const char **text, int64_t *mib)
{
    char p[FIELD_PATH_MAX];
    field_path(p, path, key);
    *text = NULL;
    json_t *holder = pod;
    if (!field_string(f, pod, key, p, false, text))
        return false;
    if (!*text && json_is_string(json_object_get(conf, conf_key))) {
        *text = json_string_value(json_object_get(conf, conf_key));
        holder = conf;
        snprintf(p, sizeof p, "spec.sparkConf[%s]", conf_key);
        key = conf_key;
    }
    if (!*text) {
        *text = dflt;
        if (!dflt)
            return true;
    }
    const char *why = NULL;
    if (!spark_size_mib(*text, 'm', mib, &why)) {
        field_invalid(f, holder, key, p, why);
        return false;
    }
    return true;
}

static bool gpu_field(struct fields *f, json_t *pod, const char *path)
{
    json_t *gpu;
    char p[FIELD_PATH_MAX], q[FIELD_PATH_MAX];
    field_path(p, path, "gpu");
    if (!field_object(f, pod, "gpu", p, false, &gpu) || !gpu)
        return gpu == NULL && f->st->code == 0;
    const char *name = NULL;
    int64_t quantity = 0;
    field_path(q, p, "name");
    bool ok = field_string(f, gpu, "name", q, true, &name);
    if (name && resource_index(name) < 0) {
        field_unsupported(f, gpu, "name", q, "no node offers this resource");
        ok = false;
    }
    field_path(q, p, "quantity");
    return field_int(f, gpu, "quantity", q, true, 0, INT32_MAX, &quantity) && ok;
}

/* The fields carried into the template as they are: their types checked here. */
static bool carried_fields(struct fields *f, json_t *pod, const char *path)
{
    static const struct {
        const char *key;
        json_type type;
    } carried[] = {{"image", JSON_STRING},
                   {"env", JSON_ARRAY},
                   {"affinity", JSON_OBJECT},
                   {"tolerations", JSON_ARRAY},
                   {"podSecurityContext", JSON_OBJECT},
                   {"securityContext", JSON_OBJECT},
                   {"serviceAccount", JSON_STRING},
                   {"hostNetwork", JSON_TRUE},
                   {"ports", JSON_ARRAY},
                   {"priorityClassName", JSON_STRING},
                   {"javaOptions", JSON_STRING},
                   {"schedulerName", JSON_STRING},
                   {"kubernetesMaster", JSON_STRING}};
    bool ok = true;
    for (size_t i = 0; i < sizeof carried / sizeof carried[0]; i++) {
        char p[FIELD_PATH_MAX];
        json_t *v;
        const char *s;
        bool b;
        field_path(p, path, carried[i].key);
        switch (carried[i].type) {
        case JSON_STRING: ok = field_string(f, pod, carried[i].key, p, false, &s) && ok; break;
        case JSON_ARRAY: ok = field_array(f, pod, carried[i].key, p, false, &v) && ok; break;
        case JSON_OBJECT: ok = field_object(f, pod, carried[i].key, p, false, &v) && ok; break;
        default: ok = field_bool(f, pod, carried[i].key, p, &b) && ok; break;
        }
    }
    static const char *const maps[] = {"envVars", "labels", "annotations", "nodeSelector"};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        char p[FIELD_PATH_MAX];
        json_t *v;
        field_path(p, path, maps[i]);
        ok = field_string_map(f, pod, maps[i], p, &v) && ok;
    }
    int64_t grace = 0;
    char p[FIELD_PATH_MAX];
    field_path(p, path, "terminationGracePeriodSeconds");
    return field_int(f, pod, "terminationGracePeriodSeconds", p, false, 0, 86400 * 7, &grace) && ok;
}

bool spark_role_read(struct fields *f, json_t *spec, struct spark_app *app, struct spark_role *role)
{
    bool driver = strcmp(role->task, SPARK_DRIVER_TASK) == 0;
    int before = f->st->ncauses;
    if (!field_object(f, spec, driver ? "driver" : "executor", role->path, true, &role->pod) || !role->pod)
        return false;
    json_t *pod = role->pod;
    dialect_refuse_fields(f, pod, role->path, driver ? driver_fields : executor_fields, pod_refusals);
    char p[FIELD_PATH_MAX], conf_key[64];
    role->cores = 1;
    field_path(p, role->path, "cores");
    field_int(f, pod, "cores", p, false, 1, 1024, &role->cores);
    cpu_field(f, pod, "coreRequest", role->path);
    cpu_field(f, pod, "coreLimit", role->path);
    gpu_field(f, pod, role->path);
    snprintf(conf_key, sizeof conf_key, "spark.%s.memory", role->task);
    size_field(f, pod, "memory", role->path, app->spark_conf, conf_key, DEFAULT_MEMORY, &role->memory,
               &role->memory_mib);
    const char *overhead = NULL;
    int64_t overhead_mib = 0;
    snprintf(conf_key, sizeof conf_key, "spark.%s.memoryOverhead", role->task);
    size_field(f, pod, "memoryOverhead", role->path, app->spark_conf, conf_key, NULL, &overhead, &overhead_mib);
    role->overhead_mib = overhead ? overhead_mib : spark_overhead_mib(role->memory_mib, app->overhead_factor);
    carried_fields(f, pod, role->path);
    role->java_options = json_string_value(json_object_get(pod, "javaOptions"));
    if (json_object_get(pod, "nodeSelector") && json_object_get(spec, "nodeSelector")) {
        field_path(p, role->path, "nodeSelector");
        field_invalid(f, pod, "nodeSelector", p, "spec.nodeSelector and the pod's nodeSelector are mutually exclusive");
    }
    return f->st->ncauses == before && f->st->code == 0;
}

/* --- the template ----------------------------------------------------------------------------------- */

static void copy_member(json_t *to, const char *to_key, const json_t *from, const char *key)
{
    json_t *v = json_object_get(from, key);
    if (v && !json_is_null(v))
        json_object_set(to, to_key, v);
}

static void set_memory(json_t *map, int64_t mib)
{
    char text[64];
    resource_format(RES_MEMORY, mib * 1024 * 1024, text, sizeof text);
    json_object_set_new(map, "memory", json_string(text));
}

/* Spark sizes a pod: cpu requested as coreRequest or cores, limited by coreLimit; memory requested
 * and limited at heap + overhead; a GPU limited (and so requested) at its quantity. */
static json_t *resources(const struct spark_role *role)
{
    json_t *requests = json_object(), *limits = json_object();
    const json_t *pod = role->pod;
    if (json_is_string(json_object_get(pod, "coreRequest")))
        copy_member(requests, "cpu", pod, "coreRequest");
    else
        json_object_set_new(requests, "cpu", json_sprintf("%lld", (long long)role->cores));
    copy_member(limits, "cpu", pod, "coreLimit");
    set_memory(requests, role->memory_mib + role->overhead_mib);
    set_memory(limits, role->memory_mib + role->overhead_mib);
    const json_t *gpu = json_object_get(pod, "gpu");
    if (json_is_string(json_object_get(gpu, "name")))
        json_object_set(limits, json_string_value(json_object_get(gpu, "name")), json_object_get(gpu, "quantity"));
    return json_pack("{s:o, s:o}", "requests", requests, "limits", limits);
}

static json_t *pod_labels(const struct spark_app *app, const struct spark_role *role)
{
    json_t *labels = json_object();
    json_object_update(labels, json_object_get(role->pod, "labels"));
    json_object_set_new(labels, "spark-role", json_string(role->task));
    json_object_set_new(labels, "spark-app-selector", json_string(app->app_id));
    json_object_set_new(labels, "sparkoperator.k8s.io/app-name", json_string(app->name));
    json_object_set_new(labels, "sparkoperator.k8s.io/launched-by-spark-operator", json_string("true"));
    return labels;
}

static void map_member(struct dialect_translation *t, const char *vbase, const char *vkey, const char *sbase,
                       const char *skey)
{
    char v[FIELD_PATH_MAX], s[FIELD_PATH_MAX];
    field_path(v, vbase, vkey);
    field_path(s, sbase, skey);
    dialect_map_path(t, v, s);
}

json_t *spark_role_template(json_t *spec, const struct spark_app *app, const struct spark_role *role, json_t *command,
                            json_t *env, size_t task, struct dialect_translation *t)
{
    const json_t *pod = role->pod;
    char vtask[32], vspec[64], vcontainer[96];
    snprintf(vtask, sizeof vtask, "spec.tasks[%zu]", task);
    snprintf(vspec, sizeof vspec, "%s.template.spec", vtask);
    snprintf(vcontainer, sizeof vcontainer, "%s.containers[0]", vspec);
    dialect_map_path(t, vtask, role->path);

    char container_name[48];
    snprintf(container_name, sizeof container_name, "spark-kubernetes-%s", role->task);
    json_t *container = json_pack("{s:s, s:o, s:o, s:o}", "name", container_name, "command", command, "env", env,
                                  "resources", resources(role));
    const json_t *image_holder = json_object_get(pod, "image") ? pod : spec;
    copy_member(container, "image", image_holder, "image");
    map_member(t, vcontainer, "image", image_holder == pod ? role->path : "spec", "image");
    copy_member(container, "imagePullPolicy", spec, "imagePullPolicy");
    copy_member(container, "securityContext", pod, "securityContext");
    map_member(t, vcontainer, "securityContext", role->path, "securityContext");
    copy_member(container, "ports", pod, "ports");
    map_member(t, vcontainer, "ports", role->path, "ports");
    map_member(t, vcontainer, "env", role->path, "env");

    json_t *pspec = json_pack("{s:[o]}", "containers", container);
    const json_t *selector_holder = json_object_get(pod, "nodeSelector") ? pod : spec;
    copy_member(pspec, "nodeSelector", selector_holder, "nodeSelector");
    map_member(t, vspec, "nodeSelector", selector_holder == pod ? role->path : "spec", "nodeSelector");
    static const char *const same[] = {"affinity", "tolerations", "terminationGracePeriodSeconds", "hostNetwork",
                                       "priorityClassName"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        copy_member(pspec, same[i], pod, same[i]);
        if (json_object_get(pod, same[i]))
            map_member(t, vspec, same[i], role->path, same[i]);
    }
    copy_member(pspec, "securityContext", pod, "podSecurityContext");
    map_member(t, vspec, "securityContext", role->path, "podSecurityContext");
    copy_member(pspec, "serviceAccountName", pod, "serviceAccount");
    if (strcmp(role->task, SPARK_EXECUTOR_TASK) == 0) /* Spark replaces a lost executor: the pod restarts */
        json_object_set_new(pspec, "restartPolicy", json_string("OnFailure"));
    const json_t *secrets = json_object_get(spec, "imagePullSecrets");
    if (json_array_size(secrets) > 0) {
        json_t *refs = json_array();
        size_t i;
        const json_t *s;
        json_array_foreach(secrets, i, s) json_array_append_new(refs, json_pack("{s:O}", "name", s));
        json_object_set_new(pspec, "imagePullSecrets", refs);
    }
    json_t *meta = json_pack("{s:o}", "labels", pod_labels(app, role));
    copy_member(meta, "annotations", pod, "annotations");
    return json_pack("{s:o, s:o}", "metadata", meta, "spec", pspec);
}

json_t *spark_role_env(const struct spark_role *role, json_t *extra)
{
    json_t *env = json_array();
    json_array_extend(env, json_object_get(role->pod, "env"));
    const char *name;
    json_t *value;
    json_object_foreach(json_object_get(role->pod, "envVars"), name, value)
        json_array_append_new(env, json_pack("{s:s, s:O}", "name", name, "value", value));
    if (extra)
        json_array_extend(env, extra);
    json_decref(extra);
    return env;
}
