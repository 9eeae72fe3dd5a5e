/* A Kubeflow training job into a Volcano Job, the part every kind shares: metadata, the replica specs
 * as tasks (templates shared, so causes inside them keep their lines), runPolicy, the kind's hooks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "adapters/dialects/kubeflow/kubeflow.h"
#include "adapters/objects/object_meta.h"
#include "adapters/dialects/volcano/job.h"

static const char *const top_fields[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
static const char *const replica_fields[] = {"replicas", "template", "restartPolicy", NULL};

/* --- metadata ----------------------------------------------------------------------------------------- */

/* Kubeflow's name rule (a DNS-1035 label: a letter first), checked here so the cause has its line. */
static void check_name(struct kubeflow_job *j, json_t *meta)
{
    const char *name = NULL, *gen = NULL;
    field_string(j->f, meta, "name", "metadata.name", false, &name);
    field_string(j->f, meta, "generateName", "metadata.generateName", false, &gen);
    if (name && *name && (!dns1123_label(name) || !(name[0] >= 'a' && name[0] <= 'z')))
        field_invalid(j->f, meta, "name", "metadata.name",
                      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                      "alphabetic character, and end with an alphanumeric character (at most 63 characters)");
    else if ((!name || !*name) && gen && *gen && !(gen[0] >= 'a' && gen[0] <= 'z'))
        field_invalid(j->f, meta, "generateName", "metadata.generateName", "must start with an alphabetic character");
}

/* The Volcano Job's metadata: copies of the source's own fields (the annotations get runPolicy's). */
static json_t *copy_metadata(struct kubeflow_job *j)
{
    json_t *meta, *labels, *annotations;
    json_t *out = json_object();
    if (!field_object(j->f, j->source, "metadata", "metadata", true, &meta) || !meta)
        return out;
    check_name(j, meta);
    field_string_map(j->f, meta, "labels", "metadata.labels", &labels);
    field_string_map(j->f, meta, "annotations", "metadata.annotations", &annotations);
    static const char *const copied[] = {"name", "generateName", "namespace", "labels", "annotations"};
    for (size_t i = 0; i < sizeof copied / sizeof *copied; i++) {
        json_t *v = json_object_get(meta, copied[i]);
        if (v)
            json_object_set_new(out, copied[i], json_deep_copy(v));
    }
    return out;
}

/* --- replica specs ------------------------------------------------------------------------------------ */

static const struct kubeflow_replica_type *type_named(const struct kubeflow_kind *k, const char *key)
{
    for (int t = 0; t < k->ntypes; t++)
        if (strcasecmp(k->types[t].name, key) == 0)
            return &k->types[t];
    return NULL;
}

static void supported_types(const struct kubeflow_kind *k, char *buf, size_t len)
{
    buf[0] = 0;
    for (int t = 0; t < k->ntypes; t++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s\"%s\"", t ? ", " : "", k->types[t].name);
}

/* Kubeflow runs the container it names ("pytorch"); the process runtime runs a pod's only container, so
 * that one must carry the name. Structural problems are the Volcano validation's to report. */
static void check_container_name(struct kubeflow_job *j, const struct kubeflow_replica *r)
{
    json_t *containers = json_object_get(json_object_get(r->template, "spec"), "containers");
    json_t *c0 = json_array_get(containers, 0);
    if (!json_is_object(c0))
        return;
    char path[FIELD_PATH_MAX];
    snprintf(path, sizeof path, "%s.template.spec.containers[0].name", r->path);
    const char *name = json_string_value(json_object_get(c0, "name"));
    if (!name || !*name)
        field_required(j->f, c0, "name", path);
    else if (j->kind->container && strcmp(name, j->kind->container) != 0) {
        char detail[160];
        snprintf(detail, sizeof detail, "%s runs the container named \"%s\"", j->kind->kind, j->kind->container);
        field_invalid(j->f, c0, "name", path, detail);
    }
}

/* One replica spec: its fields, with Kubeflow's defaults written back into the source as its admission
 * writes them. */
static void parse_replica(struct kubeflow_job *j, struct kubeflow_replica *r)
{
    struct fields *f = j->f;
    char p[FIELD_PATH_MAX];
    if (!json_is_object(r->spec)) {
        field_invalid(f, j->spec ? json_object_get(j->spec, j->kind->specs_key) : NULL, r->key, r->path,
                      "a replica spec must be an object");
        return;
    }
    field_check_known(f, r->spec, r->path, replica_fields);
    r->replicas = r->type->default_replicas;
    field_path(p, r->path, "replicas");
    if (!json_object_get(r->spec, "replicas"))
        json_object_set_new(r->spec, "replicas", json_integer(r->replicas));
    else if (field_int(f, r->spec, "replicas", p, false, 0, INT32_MAX, &r->replicas) && r->type->single &&
             r->replicas != 1) {
        char detail[96];
        snprintf(detail, sizeof detail, "there must be only 1 %s replica", r->type->task);
        field_invalid(f, r->spec, "replicas", p, detail);
    }
    if (!json_object_get(r->spec, "restartPolicy"))
        json_object_set_new(r->spec, "restartPolicy", json_string(j->kind->default_restart));
    if (kubeflow_restart_policy_valid(j, r))
        r->restart = json_string_value(json_object_get(r->spec, "restartPolicy"));
    field_path(p, r->path, "template");
    if (field_object(f, r->spec, "template", p, true, &r->template) && r->template)
        check_container_name(j, r);
}

/* The replica specs the source has, in the kind's task order; unknown and repeated types refused. */
static void parse_replica_specs(struct kubeflow_job *j)
{
    const struct kubeflow_kind *k = j->kind;
    json_t *specs;
    field_path(j->specs_path, "spec", k->specs_key);
    if (!field_object(j->f, j->spec, k->specs_key, j->specs_path, true, &specs) || !specs)
        return;
    if (json_object_size(specs) == 0) {
        field_required(j->f, j->spec, k->specs_key, j->specs_path);
        return;
    }
    const char *found[KUBEFLOW_MAX_TYPES] = {0};
    const char *key;
    json_t *v;
    json_object_foreach(specs, key, v)
    {
        char path[FIELD_PATH_MAX], supported[128];
        field_path(path, j->specs_path, key);
        const struct kubeflow_replica_type *type = type_named(k, key);
        int t = type ? (int)(type - k->types) : -1;
        if (!type) {
            supported_types(k, supported, sizeof supported);
            field_error(j->f, specs, key, path, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": supported replica types: %s", key, supported);
        } else if (found[t]) {
            field_error(j->f, specs, key, path, "FieldValueDuplicate",
                        "Duplicate value: \"%s\": the replica type %s is given as \"%s\" already", key, type->name,
                        found[t]);
        } else {
            found[t] = key;
        }
    }
    for (int t = 0; t < k->ntypes; t++) {
        if (!found[t])
            continue;
        struct kubeflow_replica *r = &j->replicas[j->nreplicas++];
        r->type = &k->types[t];
        r->key = found[t];
        r->spec = json_object_get(specs, found[t]);
        field_path(r->path, j->specs_path, found[t]);
        parse_replica(j, r);
        j->total_replicas += r->replicas;
    }
    for (int i = 0; i < j->nreplicas; i++) {
        if (j->replicas[i].type->can_lead) {
            j->replicas[i].lead = true;
            break;
        }
    }
}

const struct kubeflow_replica *kubeflow_replica(const struct kubeflow_job *j, const char *type)
{
    for (int i = 0; i < j->nreplicas; i++)
        if (strcmp(j->replicas[i].type->name, type) == 0)
            return &j->replicas[i];
    return NULL;
}

int kubeflow_declared_port(struct kubeflow_job *j, const struct kubeflow_replica *r, const char *port_name,
                           int64_t *port)
{
    json_t *c0 = json_array_get(json_object_get(json_object_get(r->template, "spec"), "containers"), 0);
    json_t *ports = json_object_get(c0, "ports");
    size_t i;
    json_t *item;
    json_array_foreach(ports, i, item)
    {
        const char *name = json_string_value(json_object_get(item, "name"));
        if (!name || strcmp(name, port_name) != 0)
            continue;
        char path[FIELD_PATH_MAX];
        snprintf(path, sizeof path, "%s.template.spec.containers[0].ports[%zu].containerPort", r->path, i);
        return field_int(j->f, item, "containerPort", path, true, 1, 65535, port) ? 1 : -1;
    }
    return 0;
}

void kubeflow_arg(json_t *args, const char *flag, const char *value)
{
    char arg[160];
    snprintf(arg, sizeof arg, "--%s=%s", flag, value);
    json_array_append_new(args, json_string(arg));
}

/* --- the Volcano Job ---------------------------------------------------------------------------------- */

/* Each replica spec as a task named by its lower-cased type, its causes named in the user's terms. */
static void build_tasks(struct kubeflow_job *j)
{
    json_t *tasks = json_array();
    json_object_set_new(j->vspec, "tasks", tasks);
    for (int i = 0; i < j->nreplicas; i++) {
        const struct kubeflow_replica *r = &j->replicas[i];
        json_t *task = json_object();
        json_object_set_new(task, "name", json_string(r->type->task));
        json_object_set_new(task, "replicas", json_integer(r->replicas));
        if (r->template)
            json_object_set_new(task, "template", kubeflow_task_template(j, r));
        if (r->restart)
            json_object_set_new(task, "policies", kubeflow_task_policies(r));
        if (j->max_retry > 0)
            json_object_set_new(task, "maxRetry", json_integer(j->max_retry));
        json_array_append_new(tasks, task);
        char vpath[FIELD_PATH_MAX], spath[FIELD_PATH_MAX];
        field_path_index(vpath, "spec.tasks", (size_t)i);
        dialect_map_path(j->out, vpath, r->path);
        field_path(vpath, vpath, "policies");
        field_path(spath, r->path, "restartPolicy");
        dialect_map_path(j->out, vpath, spath);
    }
}

static bool failed(const struct kubeflow_job *j) { return j->f->st->code != 0 || j->f->st->ncauses > 0; }

int kubeflow_translate(const struct kubeflow_kind *kind, struct fields *f, json_t *source,
                       struct dialect_translation *out)
{
    struct kubeflow_job j = {.kind = kind, .f = f, .source = source, .out = out};
    field_check_known(f, source, "", top_fields);
    j.volcano = json_pack("{s:s, s:s}", "apiVersion", VOLCANO_JOB_API_VERSION, "kind", "Job");
    j.vspec = json_object();
    json_object_set_new(j.volcano, "metadata", copy_metadata(&j));
    json_object_set_new(j.volcano, "spec", j.vspec);
    if (field_object(f, source, "spec", "spec", true, &j.spec) && j.spec) {
        field_check_known(f, j.spec, "spec", kind->spec_fields);
        parse_replica_specs(&j);
        kind->check_spec(&j);
        kubeflow_run_policy(&j);
    }
    if (failed(&j)) {
        json_decref(j.volcano);
        return -1;
    }
    build_tasks(&j);
    json_object_set_new(j.vspec, "plugins", kind->plugins(&j));
    dialect_map_path(out, "spec.plugins", j.specs_path);
    out->volcano = j.volcano;
    return 0;
}
