/* Reading a training request's fields: every field checked with its own path (and line and column for
 * YAML), every problem a cause, fields a framework does not use refused by name, unknown ones too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/training/training.h"
#include "adapters/intake/meta_limits.h"
#include "common/sbuf.h"
#include "common/strv.h"
#include "model/resource.h"

#define MAX_WORKERS 100000
#define MAX_PS 10000
#define MAX_SLOTS 1024
#define SHARD_ENV_PREFIX "CALDERA_SHARD_"

const char *const training_framework_names[FW_COUNT] = {"pytorch", "tensorflow", "mpi",  "horovod",
                                                        "spark",   "ray",        "batch"};

/* Every top-level field of the request; the metadata ones are read by training.c. */
static const char *const known_fields[] = {
    "apiVersion",
    "kind",
    "metadata",
    "name",
    "generateName",
    "labels",
    "annotations",
    "framework",
    "command",
    "args",
    "image",
    "env",
    "workingDir",
    "workers",
    "ps",
    "slotsPerWorker",
    "resources",
    "taskResources",
    "workerCommand",
    "nodeSelector",
    "queue",
    "priorityClassName",
    "schedulerName",
    "maxRetry",
    "ttlSecondsAfterFinished",
    "minAvailable",
    "companions",
    "autoMemoryScale",
    NULL,
};

static bool in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

static void refuse_unknown(struct fields *f, const json_t *req) { field_check_known(f, req, "", known_fields); }

/* A field only some frameworks read: refused by name for the others. */
static bool only_for(struct fields *f, const json_t *req, const char *key, const struct training *t, const char *which)
{
    if (!json_object_get(req, key))
        return true;
    char detail[160];
    snprintf(detail, sizeof detail, "Forbidden: only for framework %s, not %s", which,
             training_framework_names[t->framework]);
    field_error(f, req, key, key, "FieldValueForbidden", "%s", detail);
    return false;
}

/* A list of strings, or one string run by sh -c. A new list in *out; false after a cause. */
static bool read_argv(struct fields *f, const json_t *req, const char *key, bool required, json_t **out)
{
    json_t *v = json_object_get(req, key);
    *out = NULL;
    if (!v || json_is_null(v)) {
        if (required)
            field_required(f, req, key, key);
        return !required;
    }
    if (json_is_string(v)) {
        if (!*json_string_value(v)) {
            field_invalid(f, req, key, key, "must not be empty");
            return false;
        }
        *out = json_pack("[s,s,O]", "sh", "-c", v);
        return true;
    }
    char **argv = NULL;
    if (!json_is_array(v)) {
        field_invalid(f, req, key, key, "must be a list of strings, or a string run by sh -c");
        return false;
    }
    if (!field_string_list(f, req, key, key, &argv))
        return false;
    bool ok = argv && argv[0] && *argv[0];
    if (!ok)
        field_invalid(f, req, key, key, "must name a program: the list is empty or starts with an empty string");
    else
        *out = json_array();
    for (size_t i = 0; ok && argv[i]; i++)
        json_array_append_new(*out, json_string(argv[i]));
    strv_free(argv);
    return ok;
}

/* env: {NAME: value}; numbers and booleans are taken as their text. */
static bool read_env(struct fields *f, const json_t *req, struct training *t)
{
    json_t *env;
    if (!field_object(f, req, "env", "env", false, &env))
        return false;
    t->env = json_array();
    if (!env)
        return true;
    bool ok = true;
    const char *name;
    json_t *v;
    json_object_foreach(env, name, v)
    {
        char path[FIELD_PATH_MAX], text[4096];
        snprintf(path, sizeof path, "env[%s]", name);
        if (json_is_boolean(v))
            snprintf(text, sizeof text, "%s", json_is_true(v) ? "true" : "false");
        else if (!intake_scalar_text(v, text, sizeof text)) {
            field_invalid(f, env, name, path, "must be a string, a number or a boolean");
            ok = false;
            continue;
        }
        if (!*name || strchr(name, '=')) {
            field_error(f, env, name, path, "FieldValueInvalid",
                        "Invalid value: \"%s\": a variable name must not be "
                        "empty or contain '='",
                        name);
            ok = false;
        } else if (t->framework == FW_BATCH && strncmp(name, SHARD_ENV_PREFIX, strlen(SHARD_ENV_PREFIX)) == 0) {
            field_error(f, env, name, path, "FieldValueForbidden",
                        "Forbidden: %s: set by the batch framework (the replica's shard)", name);
            ok = false;
        } else {
            json_array_append_new(t->env, json_pack("{s:s,s:s}", "name", name, "value", text));
        }
    }
    return ok;
}

/* One quantity map ({cpu: "2", memory: "4Gi"}) checked with resource_parse; into *values by index. */
static bool read_quantities(struct fields *f, json_t *map, const char *path, int64_t *values, bool *given)
{
    bool ok = true;
    const char *name;
    json_t *v;
    json_object_foreach(map, name, v)
    {
        char sub[FIELD_PATH_MAX], text[128];
        field_path(sub, path, name);
        int index = resource_index(name);
        if (index < 0 || index == RES_PODS) {
            struct sbuf known = {0};
            for (int i = 0; i < resource_count(); i++)
                if (i != RES_PODS)
                    sbuf_printf(&known, "%s%s", known.len ? ", " : "", resource_name(i));
            field_error(f, map, name, sub, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": not a resource Caldera knows (%s)", name, sbuf_str(&known));
            sbuf_free(&known);
            ok = false;
            continue;
        }
        const char *why = NULL;
        if (!intake_scalar_text(v, text, sizeof text)) {
            field_invalid(f, map, name, sub, "invalid quantity: must be a string or a number");
            ok = false;
        } else if (resource_parse(index, text, &values[index], &why) != 0) {
            field_error(f, map, name, sub, "FieldValueInvalid", "Invalid value: invalid quantity \"%s\": %s", text,
                        why);
            ok = false;
        } else {
            given[index] = true;
        }
    }
    return ok;
}

/* resources as a quantity map (requests = limits) or as {requests, limits} (limits default to the
 * requests, requests to the limits). *out: a new {requests, limits}; *requests: the requests by index. */
static bool read_resources(struct fields *f, json_t *holder, const char *key, const char *path, json_t **out,
                           int64_t *requests)
{
    json_t *res;
    *out = NULL;
    if (!field_object(f, holder, key, path, false, &res) || !res)
        return res == NULL;
    json_t *req = json_object_get(res, "requests"), *lim = json_object_get(res, "limits");
    bool split = req || lim;
    if (split && json_object_size(res) != (size_t)(req != NULL) + (lim != NULL)) {
        field_invalid(f, holder, key, path, "either a map of quantities or {requests, limits}, not both");
        return false;
    }
    int64_t rv[RES_MAX] = {0}, lv[RES_MAX] = {0};
    bool rgiven[RES_MAX] = {false}, lgiven[RES_MAX] = {false};
    char rp[FIELD_PATH_MAX], lp[FIELD_PATH_MAX];
    field_path(rp, path, "requests");
    field_path(lp, path, "limits");
    bool ok = true;
    if (!split) {
        ok = read_quantities(f, res, path, rv, rgiven);
        req = lim = res;
    } else {
        json_t *ignored;
        ok = field_object(f, res, "requests", rp, false, &ignored) &&
             field_object(f, res, "limits", lp, false, &ignored);
        if (ok && req)
            ok = read_quantities(f, req, rp, rv, rgiven);
        if (ok && lim)
            ok = read_quantities(f, lim, lp, lv, lgiven) && ok;
        for (int i = 0; ok && i < RES_MAX; i++) {
            if (rgiven[i] && lgiven[i] && rv[i] > lv[i]) {
                char sub[FIELD_PATH_MAX], detail[96];
                field_path(sub, rp, resource_name(i));
                snprintf(detail, sizeof detail, "must be less than or equal to %s limit", resource_name(i));
                field_invalid(f, req, resource_name(i), sub, detail);
                ok = false;
            }
        }
    }
    if (!ok)
        return false;
    json_t *requests_map = json_deep_copy(req ? req : lim), *limits_map = json_deep_copy(lim ? lim : req);
    *out = json_pack("{s:o,s:o}", "requests", requests_map, "limits", limits_map);
    for (int i = 0; requests && i < RES_MAX; i++)
        requests[i] = rgiven[i] ? rv[i] : lv[i];
    return *out != NULL;
}

static bool read_task_resources(struct fields *f, const json_t *req, struct training *t)
{
    json_t *map;
    if (!field_object(f, req, "taskResources", "taskResources", false, &map) || !map)
        return map == NULL;
    const char *const *names = training_task_names(t->framework);
    t->task_resources = json_object();
    bool ok = true;
    const char *task;
    json_t *v;
    json_object_foreach(map, task, v)
    {
        char path[FIELD_PATH_MAX];
        field_path(path, "taskResources", task);
        if (!in_list(task, names)) {
            struct sbuf list = {0};
            for (const char *const *n = names; *n; n++)
                sbuf_printf(&list, "%s\"%s\"", n == names ? "" : ", ", *n);
            field_error(f, map, task, path, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": the tasks of a %s training are %s", task,
                        training_framework_names[t->framework], sbuf_str(&list));
            sbuf_free(&list);
            ok = false;
            continue;
        }
        json_t *res = NULL;
        if (!read_resources(f, map, task, path, &res, NULL))
            ok = false;
        else if (res)
            json_object_set_new(t->task_resources, task, res);
    }
    return ok;
}

static bool read_companions(struct fields *f, const json_t *req, struct training *t)
{
    char **list = NULL;
    if (!field_string_list(f, req, "companions", "companions", &list))
        return false;
    json_t *arr = json_object_get(req, "companions");
    struct sbuf joined = {0};
    bool ok = true;
    for (size_t i = 0; list && list[i]; i++) {
        char path[FIELD_PATH_MAX];
        field_path_index(path, "companions", i);
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = strcmp(list[i], list[j]) == 0;
        const char *why[4];
        char buf[128];
        /* a type's name; whether the server has that type is the core's to say (a 422 naming the
         * caldera.io/companions annotation and the type) */
        if (meta_dns1123_label_problems(list[i], why, buf, sizeof buf) > 0) {
            field_error_at_index(f, arr, i, path, "FieldValueInvalid", "Invalid value: \"%s\": %s", list[i], why[0]);
            ok = false;
        } else if (dup) {
            field_error_at_index(f, arr, i, path, "FieldValueDuplicate", "Duplicate value: \"%s\"", list[i]);
            ok = false;
        } else {
            sbuf_printf(&joined, "%s%s", joined.len ? "," : "", list[i]);
        }
    }
    strv_free(list);
    if (ok && joined.len)
        t->companions = sbuf_take(&joined);
    sbuf_free(&joined);
    return ok;
}

static bool read_framework(struct fields *f, const json_t *req, struct training *t)
{
    const char *name = NULL;
    t->framework = FW_BATCH;
    if (!field_string(f, req, "framework", "framework", false, &name) || !name)
        return name == NULL;
    for (int i = 0; i < FW_COUNT; i++)
        if (strcmp(name, training_framework_names[i]) == 0) {
            t->framework = (enum training_framework)i;
            return true;
        }
    field_unsupported(
        f, req, "framework", "framework",
        "supported values: \"pytorch\", \"tensorflow\", \"mpi\", \"horovod\", \"spark\", \"ray\", \"batch\"");
    return false;
}

/* workers, ps, slotsPerWorker, minAvailable and workerCommand: what the framework counts. */
static bool read_counts(struct fields *f, json_t *req, struct training *t)
{
    enum training_framework fw = t->framework;
    int64_t min_workers = fw == FW_RAY ? 0 : 1;
    t->workers = 1;
    bool ok = field_int(f, req, "workers", "workers", false, min_workers, MAX_WORKERS, &t->workers);
    if (fw == FW_TENSORFLOW)
        ok = field_int(f, req, "ps", "ps", false, 0, MAX_PS, &t->ps) && ok;
    else
        ok = only_for(f, req, "ps", t, "tensorflow") && ok;
    if (fw == FW_HOROVOD)
        ok = field_int(f, req, "slotsPerWorker", "slotsPerWorker", false, 1, MAX_SLOTS, &t->slots_per_worker) && ok;
    else
        ok = only_for(f, req, "slotsPerWorker", t, "horovod") && ok;
    if (fw == FW_MPI || fw == FW_HOROVOD)
        ok = read_argv(f, req, "workerCommand", false, &t->worker_command) && ok;
    else
        ok = only_for(f, req, "workerCommand", t, "mpi or horovod") && ok;
    if (fw != FW_BATCH)
        return only_for(f, req, "minAvailable", t, "batch") && ok;
    if (field_int(f, req, "minAvailable", "minAvailable", false, 1, MAX_WORKERS, &t->min_available) &&
        t->min_available > t->workers && ok) {
        field_invalid(f, req, "minAvailable", "minAvailable", "must not be greater than workers");
        ok = false;
    }
    return ok;
}

static bool read_spec_fields(struct fields *f, json_t *req, struct training *t)
{
    bool ok = field_string(f, req, "queue", "queue", false, &t->queue);
    ok = field_string(f, req, "priorityClassName", "priorityClassName", false, &t->priority_class) && ok;
    ok = field_string(f, req, "schedulerName", "schedulerName", false, &t->scheduler_name) && ok;
    ok = field_int(f, req, "maxRetry", "maxRetry", false, 0, INT32_MAX, &t->max_retry) && ok;
    ok = field_int(f, req, "ttlSecondsAfterFinished", "ttlSecondsAfterFinished", false, 0, INT32_MAX,
                   &t->ttl_seconds) &&
         ok;
    json_t *ams, *ns;
    ok = field_object(f, req, "autoMemoryScale", "autoMemoryScale", false, &ams) && ok;
    t->auto_memory_scale = json_incref(ams);
    ok = field_string_map(f, req, "nodeSelector", "nodeSelector", &ns) && ok;
    t->node_selector = json_incref(ns);
    return ok;
}

static bool read_container_fields(struct fields *f, json_t *req, struct training *t)
{
    bool ok = read_argv(f, req, "command", true, &t->command);
    json_t *args = NULL;
    char **list = NULL;
    ok = field_string_list(f, req, "args", "args", &list) && ok;
    if (list) {
        args = json_array();
        for (size_t i = 0; list[i]; i++)
            json_array_append_new(args, json_string(list[i]));
        strv_free(list);
    }
    t->args = args;
    ok = field_string(f, req, "image", "image", false, &t->image) && ok;
    if (field_string(f, req, "workingDir", "workingDir", false, &t->working_dir) && t->working_dir &&
        t->working_dir[0] != '/') {
        field_invalid(f, req, "workingDir", "workingDir", "must be an absolute path");
        ok = false;
    }
    ok = read_env(f, req, t) && ok;
    int64_t requests[RES_MAX] = {0};
    if (read_resources(f, req, "resources", "resources", &t->resources, requests)) {
        t->cpu_millis_per_worker = requests[RES_CPU];
        t->memory_per_worker = requests[RES_MEMORY];
        t->gpus_per_worker = requests[RES_GPU];
    } else {
        ok = false;
    }
    return ok;
}

bool training_read(struct fields *f, json_t *req, struct training *t)
{
    memset(t, 0, sizeof *t);
    t->max_retry = t->ttl_seconds = t->min_available = -1;
    refuse_unknown(f, req);
    bool ok = read_framework(f, req, t);
    if (ok) { /* the checks that depend on the framework mean nothing without one */
        ok = read_counts(f, req, t);
        ok = read_task_resources(f, req, t) && ok;
    }
    ok = read_container_fields(f, req, t) && ok;
    ok = read_spec_fields(f, req, t) && ok;
    ok = read_companions(f, req, t) && ok;
    return ok && f->st->code == 0 && f->st->ncauses == 0;
}

void training_free(struct training *t)
{
    json_decref(t->command);
    json_decref(t->args);
    json_decref(t->env);
    json_decref(t->resources);
    json_decref(t->task_resources);
    json_decref(t->worker_command);
    json_decref(t->node_selector);
    json_decref(t->auto_memory_scale);
    free(t->companions);
    memset(t, 0, sizeof *t);
}
