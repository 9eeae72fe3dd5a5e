/* The job plugins by name, and job_plugins.h on top of them: admission of spec.plugins with Volcano's
 * default plugins, the port block's layout (plugins in registry order), the job's files, one replica's env. */
#include <stdio.h>
#include <string.h>

#include "common/strv.h"
#include "scheduler/controller/job_plugins/internal.h"

/* Registry order: the order of each replica's variables and of the plugins' parts of the port block. */
static const struct plugin_def *const plugin_defs[PLUGIN_COUNT] = {
    &plugin_env, &plugin_svc, &plugin_ssh, &plugin_pytorch, &plugin_tensorflow, &plugin_mpi, &plugin_ray,
};

#define SUPPORTED_PLUGINS "env, svc, ssh, pytorch, tensorflow, mpi, ray"

static const struct plugin_def *plugin_by_name(const char *name)
{
    for (int i = 0; i < PLUGIN_COUNT; i++)
        if (strcmp(plugin_defs[i]->name, name) == 0)
            return plugin_defs[i];
    return NULL;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "a list";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* Volcano's patchDefaultPlugins: the frameworks need svc (their pods find each other by name), mpi
 * needs ssh too. Added as empty argument lists, so the stored Job shows them. */
static void add_default_plugins(json_t *plugins, const struct plugin_config *cfg)
{
    if ((cfg->on[PLUGIN_TENSORFLOW] || cfg->on[PLUGIN_MPI] || cfg->on[PLUGIN_PYTORCH] || cfg->on[PLUGIN_RAY]) &&
        !json_object_get(plugins, "svc"))
        json_object_set_new(plugins, "svc", json_array());
    if (cfg->on[PLUGIN_MPI] && !json_object_get(plugins, "ssh"))
        json_object_set_new(plugins, "ssh", json_array());
}

bool job_plugins_admit(struct fields *f, json_t *spec)
{
    json_t *plugins = json_object_get(spec, "plugins");
    if (!plugins || json_is_null(plugins))
        return true;
    int causes_before = f->st->ncauses;
    if (!json_is_object(plugins)) {
        field_error(f, spec, "plugins", "spec.plugins", "FieldValueInvalid",
                    "Invalid value: must be an object of plugin name to arguments, not %s", type_name(plugins));
        return false;
    }
    struct plugin_config cfg;
    memset(&cfg, 0, sizeof cfg);
    bool parsed[PLUGIN_COUNT] = {false};
    const char *name;
    json_t *args;
    json_object_foreach(plugins, name, args) {
        char path[FIELD_PATH_MAX];
        snprintf(path, sizeof path, "spec.plugins[%.64s]", name);
        const struct plugin_def *def = plugin_by_name(name);
        if (!def) {
            field_error(f, plugins, name, path, "FieldValueNotSupported",
                        "Unsupported value: \"%.64s\": supported plugins: " SUPPORTED_PLUGINS, name);
            continue;
        }
        cfg.on[def->id] = true;
        if (!json_is_array(args) && !json_is_null(args)) {
            field_error(f, plugins, name, path, "FieldValueInvalid",
                        "Invalid value: must be a list of string arguments, not %s", type_name(args));
            continue;
        }
        struct plugin_flag_error err;
        if (plugin_flags_parse(def->flags, def->nflags, args, &cfg, &err) != 0) {
            char arg_path[FIELD_PATH_MAX];
            field_path_index(arg_path, path, err.index);
            field_error_at_index(f, args, err.index, arg_path, err.reason, "%s", err.message);
            continue;
        }
        parsed[def->id] = true;
    }
    for (int i = 0; i < PLUGIN_COUNT; i++)
        if (parsed[plugin_defs[i]->id] && plugin_defs[i]->admit)
            plugin_defs[i]->admit(f, plugins, spec, &cfg);
    add_default_plugins(plugins, &cfg);
    return f->st->ncauses == causes_before;
}

/* The plugins of an admitted job and their arguments (pointing into its manifest). */
static int load_config(const struct job *job, struct plugin_config *cfg, char *why, size_t why_len)
{
    memset(cfg, 0, sizeof *cfg);
    json_t *plugins = json_object_get(json_object_get(job->manifest, "spec"), "plugins");
    const char *name;
    json_t *args;
    json_object_foreach(plugins, name, args) {
        const struct plugin_def *def = plugin_by_name(name);
        struct plugin_flag_error err;
        if (!def) {
            snprintf(why, why_len, "spec.plugins[%.64s]: not a plugin", name);
            return -1;
        }
        if (plugin_flags_parse(def->flags, def->nflags, args, cfg, &err) != 0) {
            snprintf(why, why_len, "spec.plugins[%.64s][%zu]: %s", name, err.index, err.message);
            return -1;
        }
        cfg->on[def->id] = true;
    }
    return 0;
}

static int32_t ports_of(const struct plugin_def *def, const struct job *job, const struct plugin_config *cfg)
{
    return cfg->on[def->id] && def->ports_needed ? def->ports_needed(job, cfg) : 0;
}

int32_t job_plugins_ports_needed(const struct job *job)
{
    struct plugin_config cfg;
    char why[256];
    if (load_config(job, &cfg, why, sizeof why) != 0)
        return 0;
    int32_t total = 0;
    for (int i = 0; i < PLUGIN_COUNT; i++)
        total += ports_of(plugin_defs[i], job, &cfg);
    return total;
}

int job_plugins_prepare(const struct job *job, const char *job_dir, char *why, size_t why_len)
{
    struct plugin_config cfg;
    why[0] = '\0';
    if (load_config(job, &cfg, why, why_len) != 0)
        return -1;
    for (int i = 0; i < PLUGIN_COUNT; i++) {
        const struct plugin_def *def = plugin_defs[i];
        if (cfg.on[def->id] && def->prepare && def->prepare(job, &cfg, job_dir, why, why_len) != 0) {
            if (!why[0])
                snprintf(why, why_len, "%s plugin: out of memory", def->name);
            return -1;
        }
    }
    return 0;
}

int job_plugins_attempt(const struct job *job, int task, int index, const char *job_dir, struct plugin_attempt *out,
                        char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    why[0] = '\0';
    if (task < 0 || task >= job->ntasks || index < 0 || index >= job->tasks[task].replicas) {
        snprintf(why, why_len, "no replica %d of task %d in job %s", index, task, job->name);
        return -1;
    }
    struct plugin_config cfg;
    if (load_config(job, &cfg, why, why_len) != 0)
        return -1;
    cfg.on[PLUGIN_ENV] = true; /* VK_TASK_INDEX and VC_TASK_INDEX always */
    int32_t offset = 0;
    for (int i = 0; i < PLUGIN_COUNT; i++) {
        const struct plugin_def *def = plugin_defs[i];
        int32_t first_port = job->port_base > 0 ? job->port_base + offset : 0;
        offset += ports_of(def, job, &cfg);
        if (!cfg.on[def->id] || !def->attempt)
            continue;
        if (def->attempt(job, &cfg, task, index, job_dir, first_port, out, why, why_len) != 0) {
            if (!why[0])
                snprintf(why, why_len, "%s plugin: out of memory", def->name);
            plugin_attempt_free(out);
            return -1;
        }
    }
    return 0;
}

void plugin_attempt_free(struct plugin_attempt *pa)
{
    strv_free(pa->env);
    strv_free(pa->argv);
    memset(pa, 0, sizeof *pa);
}
