/* The job plugins by name: admission of spec.plugins with Volcano's default plugins, and the parsed
 * arguments of an admitted job, which the controller's side of the plugins works from. */
#include "adapters/dialects/volcano/job_plugins/job_plugins.h"

#include <stdio.h>
#include <string.h>

#include "adapters/dialects/volcano/job_plugins/internal.h"

#define SUPPORTED_PLUGINS "env, svc, ssh, pytorch, tensorflow, mpi, ray"

static const struct plugin_args *plugin_by_name(const char *name)
{
    for (int i = 0; i < PLUGIN_COUNT; i++)
        if (strcmp(plugin_args[i]->name, name) == 0)
            return plugin_args[i];
    return NULL;
}

const char *job_plugin_name(enum plugin_id id) { return id < PLUGIN_COUNT ? plugin_args[id]->name : ""; }

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
    plugin_config_init(&cfg);
    bool parsed[PLUGIN_COUNT] = {false};
    const char *name;
    json_t *args;
    json_object_foreach(plugins, name, args)
    {
        char path[FIELD_PATH_MAX];
        snprintf(path, sizeof path, "spec.plugins[%.64s]", name);
        const struct plugin_args *def = plugin_by_name(name);
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
        if (parsed[plugin_args[i]->id] && plugin_args[i]->admit)
            plugin_args[i]->admit(f, plugins, spec, &cfg);
    add_default_plugins(plugins, &cfg);
    return f->st->ncauses == causes_before;
}

void plugin_config_init(struct plugin_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->svc.inject_hosts_env = true;
}

int job_plugins_config(const struct job *job, struct plugin_config *cfg, char *why, size_t why_len)
{
    plugin_config_init(cfg);
    json_t *plugins = json_object_get(json_object_get(job_manifest(job), "spec"), "plugins");
    const char *name;
    json_t *args;
    json_object_foreach(plugins, name, args)
    {
        const struct plugin_args *def = plugin_by_name(name);
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
