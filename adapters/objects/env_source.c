/* env[].valueFrom as Kubernetes' validation (ValidateEnv, validateEnvVarValueFrom) reads it and the
 * kubelet resolves it: fieldRef paths from its list, metadata.labels['k'] and annotations['k'];
 * resourceFieldRef limits and requests of cpu, memory, ephemeral-storage with their divisors, an
 * unset limit being the node's allocatable (MergeContainerResourceLimits), values rounded up. */
#include "adapters/objects/env_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/meta_limits.h"
#include "adapters/objects/config_object.h"
#include "model/quantity.h"
#include "model/resource.h"

/* validEnvDownwardAPIFieldPathExpressions, with the two subscripted ones last. */
static const char *const field_paths[] = {
    "metadata.name",           "metadata.namespace", "metadata.uid",         "spec.nodeName",
    "spec.serviceAccountName", "status.hostIP",      "status.hostIPs",       "status.podIP",
    "status.podIPs",           "metadata.labels",    "metadata.annotations", NULL};
#define FIELD_PATHS_LIST                                                                                           \
    "\"metadata.annotations\", \"metadata.labels\", \"metadata.name\", \"metadata.namespace\", \"metadata.uid\", " \
    "\"spec.nodeName\", \"spec.serviceAccountName\", \"status.hostIP\", \"status.hostIPs\", \"status.podIP\", "    \
    "\"status.podIPs\""

static const char *const resource_paths[] = {"limits.cpu",
                                             "limits.memory",
                                             "limits.ephemeral-storage",
                                             "requests.cpu",
                                             "requests.memory",
                                             "requests.ephemeral-storage",
                                             NULL};
#define RESOURCE_PATHS_LIST                                                               \
    "\"limits.cpu\", \"limits.ephemeral-storage\", \"limits.memory\", \"requests.cpu\", " \
    "\"requests.ephemeral-storage\", \"requests.memory\""

static const char *const memory_divisors[] = {"1",   "1k",  "1M",  "1G",  "1T",  "1P",  "1E",
                                              "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei", NULL};

static bool in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

/* "metadata.labels['key']" → base "metadata.labels" and key; false when path has no subscript. */
static bool split_subscript(const char *path, char *base, size_t base_len, char *key, size_t key_len)
{
    const char *open = strstr(path, "['");
    size_t n = strlen(path);
    if (!open || n < 2 || strcmp(path + n - 2, "']") != 0 || open + 2 > path + n - 2)
        return false;
    snprintf(base, base_len, "%.*s", (int)(open - path), path);
    snprintf(key, key_len, "%.*s", (int)(path + n - 2 - (open + 2)), open + 2);
    return true;
}

static bool parse_field_ref(struct fields *f, json_t *ref, const char *path, char **out)
{
    static const char *const known[] = {"apiVersion", "fieldPath", NULL};
    const char *api = NULL, *fp = NULL;
    char p[FIELD_PATH_MAX];
    bool ok = field_check_known(f, ref, path, known);
    if (!field_string_in(f, ref, "apiVersion", path, false, &api) ||
        !field_string_in(f, ref, "fieldPath", path, true, &fp))
        return false;
    if (api && *api && strcmp(api, "v1") != 0) {
        field_path(p, path, "apiVersion");
        field_unsupported(f, ref, "apiVersion", p, "supported values: \"v1\"");
        ok = false;
    }
    field_path(p, path, "fieldPath");
    char base[128], key[512];
    if (split_subscript(fp, base, sizeof base, key, sizeof key)) {
        if (strcmp(base, "metadata.labels") != 0 && strcmp(base, "metadata.annotations") != 0) {
            field_unsupported(f, ref, "fieldPath", p, "supported values: " FIELD_PATHS_LIST);
            return false;
        }
        const char *why[4];
        char buf[256];
        int n = meta_qualified_name_problems(key, why, buf, sizeof buf);
        for (int i = 0; i < n; i++)
            field_invalid(f, ref, "fieldPath", p, why[i]);
        if (n > 0)
            return false;
    } else if (!in_list(fp, field_paths) || strcmp(fp, "metadata.labels") == 0 ||
               strcmp(fp, "metadata.annotations") == 0) {
        field_unsupported(f, ref, "fieldPath", p, "supported values: " FIELD_PATHS_LIST);
        return false;
    }
    *out = strdup(fp);
    return ok;
}

static bool parse_resource_ref(struct fields *f, json_t *ref, const char *path, const char *container, char **out,
                               int64_t *divisor)
{
    static const char *const known[] = {"containerName", "resource", "divisor", NULL};
    const char *cname = NULL, *res = NULL;
    char p[FIELD_PATH_MAX];
    bool ok = field_check_known(f, ref, path, known);
    if (!field_string_in(f, ref, "containerName", path, false, &cname) ||
        !field_string_in(f, ref, "resource", path, true, &res))
        return false;
    if (cname && *cname && strcmp(cname, container) != 0) {
        field_path(p, path, "containerName");
        field_invalid(f, ref, "containerName", p, "must be the name of a container in the pod");
        ok = false;
    }
    if (!in_list(res, resource_paths)) {
        field_path(p, path, "resource");
        field_unsupported(f, ref, "resource", p, "supported values: " RESOURCE_PATHS_LIST);
        return false;
    }
    bool cpu = strstr(res, ".cpu") != NULL;
    json_t *d = json_object_get(ref, "divisor");
    char text[32];
    if (json_is_integer(d))
        snprintf(text, sizeof text, "%lld", (long long)json_integer_value(d));
    else
        snprintf(text, sizeof text, "%s", json_is_string(d) ? json_string_value(d) : "1");
    field_path(p, path, "divisor");
    if (d && !json_is_string(d) && !json_is_integer(d)) {
        field_invalid(f, ref, "divisor", p, "must be a quantity");
        return false;
    }
    if (cpu ? strcmp(text, "1") != 0 && strcmp(text, "1m") != 0 : !in_list(text, memory_divisors)) {
        field_invalid(f, ref, "divisor", p,
                      cpu ? "only divisor's values 1m and 1 are supported with the cpu resource"
                          : "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are "
                            "supported with the memory resource");
        return false;
    }
    if (quantity_parse(text, cpu ? 3 : 0, divisor) != QTY_OK || *divisor <= 0)
        return false; /* every listed divisor parses */
    *out = strdup(res);
    return ok;
}

/* A configMapKeyRef or secretKeyRef (ConfigMapKeySelector, SecretKeySelector): name and key
 * required, key a config key, optional a bool. */
static bool parse_key_ref(struct fields *f, json_t *ref, const char *path, char **name, char **key, bool *optional)
{
    static const char *const known[] = {"name", "key", "optional", NULL};
    const char *n = NULL, *k = NULL, *why;
    char p[FIELD_PATH_MAX];
    bool ok = field_check_known(f, ref, path, known);
    if (!field_string_in(f, ref, "name", path, true, &n) || !field_string_in(f, ref, "key", path, true, &k) ||
        !field_bool_in(f, ref, "optional", path, optional))
        return false;
    if (!*n) {
        field_path(p, path, "name");
        field_error(f, ref, "name", p, "FieldValueRequired", "Required value");
        ok = false;
    }
    if (!config_key_valid(k, &why)) {
        field_path(p, path, "key");
        field_invalid(f, ref, "key", p, why);
        ok = false;
    }
    if (ok && (!(*name = strdup(n)) || !(*key = strdup(k)))) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return false;
    }
    return ok;
}

bool env_source_parse(struct fields *f, json_t *item, const char *path, const char *name, const char *container,
                      struct task_spec *ts)
{
    static const char *const known[] = {"fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", NULL};
    char p[FIELD_PATH_MAX], sub[FIELD_PATH_MAX];
    json_t *from;
    field_path(p, path, "valueFrom");
    if (!field_object_in(f, item, "valueFrom", path, true, &from) || !field_check_known(f, from, p, known))
        return false;
    const char *value = json_string_value(json_object_get(item, "value"));
    if (value && *value) {
        field_invalid(f, item, "valueFrom", p, "may not be specified when `value` is not empty");
        return false;
    }
    size_t sources = 0;
    for (const char *const *k = known; *k; k++)
        sources += json_object_get(from, *k) != NULL;
    if (sources != 1) {
        field_invalid(f, item, "valueFrom", p,
                      sources ? "may not have more than one field specified at a time"
                              : "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or "
                                "`secretKeyRef`");
        return false;
    }
    struct task_env_ref ref = {.name = NULL, .field_path = NULL, .resource = false, .divisor = 1};
    json_t *obj;
    bool ok;
    if (json_object_get(from, "configMapKeyRef") || json_object_get(from, "secretKeyRef")) {
        bool secret = json_object_get(from, "secretKeyRef") != NULL;
        const char *key = secret ? "secretKeyRef" : "configMapKeyRef";
        field_path(sub, p, key);
        ref.config = (uint8_t)(1 + (secret ? CONFIG_SECRET : CONFIG_MAP));
        ok = field_object_in(f, from, key, p, true, &obj) &&
             parse_key_ref(f, obj, sub, &ref.object_name, &ref.key, &ref.optional);
    } else if (json_object_get(from, "fieldRef")) {
        field_path(sub, p, "fieldRef");
        ok = field_object_in(f, from, "fieldRef", p, true, &obj) && parse_field_ref(f, obj, sub, &ref.field_path);
    } else {
        field_path(sub, p, "resourceFieldRef");
        ref.resource = true;
        ok = field_object_in(f, from, "resourceFieldRef", p, true, &obj) &&
             parse_resource_ref(f, obj, sub, container, &ref.field_path, &ref.divisor);
    }
    if (!ok || (!ref.field_path && !ref.config)) {
        free(ref.field_path), free(ref.object_name), free(ref.key);
        return false;
    }
    struct task_env_ref *grown = realloc(ts->env_refs, (size_t)(ts->nenv_refs + 1) * sizeof *grown);
    if (grown)
        ts->env_refs = grown;
    ref.name = strdup(name);
    if (!grown || !ref.name) {
        free(ref.name);
        free(ref.field_path), free(ref.object_name), free(ref.key);
        api_fail(f->st, 500, "InternalError", "out of memory");
        return false;
    }
    ts->env_refs[ts->nenv_refs++] = ref;
    return true;
}

/* ceil(value / divisor), as convertResourceCPUToString and convertResourceMemoryToString round. */
static int64_t divide_up(int64_t value, int64_t divisor) { return value <= 0 ? 0 : (value - 1) / divisor + 1; }

static int resolve_resource(const struct task_env_ref *ref, const struct task_spec *ts, const struct node *node,
                            char *out, size_t len)
{
    bool limit = strncmp(ref->field_path, "limits.", 7) == 0;
    const char *res = strchr(ref->field_path, '.') + 1;
    int index = strcmp(res, "cpu") == 0 ? RES_CPU : strcmp(res, "memory") == 0 ? RES_MEMORY : RES_EPHEMERAL;
    int64_t v = limit ? ts->limit.v[index] : ts->request.v[index];
    if (limit && v == 0 && node) /* no limit: the node's allocatable, as the kubelet merges it */
        v = node->allocatable.v[index];
    int n = snprintf(out, len, "%lld", (long long)divide_up(v, ref->divisor));
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int env_source_resolve(const struct task_env_ref *ref, const struct task_spec *ts, json_t *pod, const struct node *node,
                       char *out, size_t len)
{
    if (ref->resource)
        return resolve_resource(ref, ts, node, out, len);
    char base[128], key[512];
    const char *value = NULL;
    if (split_subscript(ref->field_path, base, sizeof base, key, sizeof key)) {
        json_t *map = json_object_get(json_object_get(pod, "metadata"), strchr(base, '.') + 1);
        value = json_string_value(json_object_get(map, key));
    } else {
        char section[32];
        const char *dot = strchr(ref->field_path, '.');
        snprintf(section, sizeof section, "%.*s", (int)(dot - ref->field_path), ref->field_path);
        const char *field = dot + 1;
        char single[32];
        size_t fl = strlen(field);
        if (fl > 3 && strcmp(field + fl - 3, "IPs") == 0) /* one address: podIPs is podIP */
            snprintf(single, sizeof single, "%.*s", (int)(fl - 1), field), field = single;
        value = json_string_value(json_object_get(json_object_get(pod, section), field));
        if (!value && strcmp(ref->field_path, "spec.serviceAccountName") == 0) {
            value = json_string_value(json_object_get(json_object_get(pod, "spec"), "serviceAccount"));
            value = value ? value : "default"; /* the ServiceAccount admission's default */
        }
    }
    int n = snprintf(out, len, "%s", value ? value : "");
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* One envFrom item: prefix, and exactly one of configMapRef and secretRef (name, optional). */
static bool parse_env_from_item(struct fields *f, json_t *item, const char *path, struct task_env_from *out)
{
    static const char *const known[] = {"prefix", "configMapRef", "secretRef", NULL};
    static const char *const ref_known[] = {"name", "optional", NULL};
    const char *prefix = NULL, *name = NULL;
    char p[FIELD_PATH_MAX];
    if (!field_check_known(f, item, path, known) || !field_string_in(f, item, "prefix", path, false, &prefix))
        return false;
    if (prefix && strchr(prefix, '=')) {
        field_path(p, path, "prefix");
        field_invalid(f, item, "prefix", p,
                      "a valid environment variable name must consist only of printable "
                      "ASCII characters other than '='");
        return false;
    }
    bool cm = json_object_get(item, "configMapRef") != NULL, secret = json_object_get(item, "secretRef") != NULL;
    if (cm == secret) {
        field_error(f, item, NULL, path, cm ? "FieldValueForbidden" : "FieldValueRequired",
                    cm ? "Forbidden: may not have more than one field specified at a time"
                       : "Required value: must specify one of: `configMapRef` or `secretRef`");
        return false;
    }
    const char *key = cm ? "configMapRef" : "secretRef";
    json_t *ref;
    field_path(p, path, key);
    if (!field_object_in(f, item, key, path, true, &ref) || !field_check_known(f, ref, p, ref_known) ||
        !field_string_in(f, ref, "name", p, true, &name) || !field_bool_in(f, ref, "optional", p, &out->optional))
        return false;
    if (!*name) {
        char np[FIELD_PATH_MAX];
        field_path(np, p, "name");
        field_error(f, ref, "name", np, "FieldValueRequired", "Required value");
        return false;
    }
    out->kind = (uint8_t)(cm ? CONFIG_MAP : CONFIG_SECRET);
    out->name = strdup(name);
    out->prefix = strdup(prefix ? prefix : "");
    if (!out->name || !out->prefix) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return false;
    }
    return true;
}

bool env_from_parse(struct fields *f, json_t *container, const char *path, struct task_spec *ts)
{
    json_t *list;
    char sub[FIELD_PATH_MAX];
    if (!field_array_in(f, container, "envFrom", path, false, &list))
        return false;
    if (!list || json_array_size(list) == 0)
        return true;
    field_path(sub, path, "envFrom");
    ts->env_from = calloc(json_array_size(list), sizeof *ts->env_from);
    if (!ts->env_from) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return false;
    }
    bool ok = true;
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item)
    {
        char p[FIELD_PATH_MAX];
        if (!field_each_object(f, list, i, sub, p, "must be an object")) {
            ok = false;
            continue;
        }
        struct task_env_from *e = &ts->env_from[ts->nenv_from++];
        ok = parse_env_from_item(f, item, p, e) && ok;
    }
    return ok;
}
