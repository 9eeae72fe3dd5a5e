/* Caldera's simple training request (caldera.io/v1 Training, POST .../namespaces/{ns}/trainings): a
 * flat JSON or YAML object for platforms that want no Kubernetes objects, turned into a Volcano Job. */
#include <stdio.h>
#include <string.h>

#include "adapters/intake/meta_limits.h"
#include "adapters/dialects/training/training.h"

/*
 * The request (apiVersion caldera.io/v1 and kind Training may be given; everything else is refused by
 * name as an "unknown field"):
 *
 *   name             the job's name (DNS-1123 label); or generateName; neither: "<framework>-" + 5 chars.
 *                    metadata {name, generateName, namespace, labels, annotations} is accepted too.
 *   labels, annotations   the Volcano Job's.
 *   framework        pytorch | tensorflow | mpi | horovod | spark | ray | batch (default batch).
 *   command          the program: a list of strings, or one string run by `sh -c`. Required.
 *   args             appended to the command.
 *   image            the container image (the process runtime runs the command on the host).
 *   env              {NAME: value}; numbers and booleans are taken as their text.
 *   workingDir       an absolute path.
 *   workers          how many processes run the command (default 1), per framework:
 *                      pytorch     WORLD_SIZE: task master (1, RANK 0) + task worker (workers - 1);
 *                      tensorflow  task worker (workers) + task ps (`ps`, default 0); TF_CONFIG;
 *                      mpi         task worker (workers, the hosts in MPI_HOST) + the launcher, task
 *                                  master (1), which runs the command (`mpirun --host $MPI_HOST ...`);
 *                      horovod     as mpi; master runs `horovodrun -np <workers x slots> -H
 *                                  <host:slots,...> <command>` (slotsPerWorker, default the GPUs of a
 *                                  worker, else 1);
 *                      spark       task executor (workers: standalone Spark workers) + task driver (1),
 *                                  which starts the standalone master (port 7077) and runs the command
 *                                  with MASTER=spark://<driver>:7077 (read by spark-submit);
 *                      ray         task worker (workers, may be 0) + task head (1), both running what the
 *                                  ray plugin gives them, + task driver (1) running the command once the
 *                                  head runs, with RAY_ADDRESS=auto;
 *                      batch       task worker (workers), each replica one shard (seed 000, scheme 2):
 *                                  CALDERA_SHARD_INDEX (= VC_TASK_INDEX) and CALDERA_SHARD_COUNT.
 *   ps               tensorflow only.  slotsPerWorker  horovod only.
 *   workerCommand    mpi and horovod: what the workers run (default `sleep infinity`: they hold their
 *                    slots while the launcher reaches them over ssh; in an image, e.g. /usr/sbin/sshd -D).
 *   resources        one worker's: {cpu: "2", memory: "4Gi", nvidia.com/gpu: 1} (requests = limits) or
 *                    {requests: {...}, limits: {...}}; names as model/resource.h knows them.
 *                    Every task gets them except the launchers (mpi/horovod master, ray driver).
 *   taskResources    {<task>: resources}: one task's own (e.g. {"ps": {"cpu": "1"}}).
 *   nodeSelector     {label: value} for every task.
 *   queue, priorityClassName, schedulerName, ttlSecondsAfterFinished, autoMemoryScale: the Volcano
 *                    Job's own fields.
 *   maxRetry         the Volcano Job's maxRetry (default 3): distributed frameworks restart the whole
 *                    job on a failed or evicted pod (RestartJob); batch runs the failed replica again
 *                    (RestartPod), and with maxRetry 0 a failure just stays (the job ends Failed).
 *   minAvailable     batch only: replicas that must start together (default 1); the distributed
 *                    frameworks are gangs of every replica (ray: head and workers).
 *   companions       [jupyter, tensorboard, code-server, terminal, or a type of --companions]: names of
 *                    companion types, recorded on the Volcano Job as the annotation caldera.io/companions
 *                    (comma-joined), which the core checks against its types (422) and starts.
 *
 * The task whose end is the job's end (pytorch master, tensorflow worker, mpi/horovod master, spark and
 * ray driver) completes the job (TaskCompleted -> CompleteJob); batch succeeds once every replica has
 * (minSuccess = workers). A GET shows the request with metadata and status (status.c); the
 * POST is answered with the Volcano Job.
 */

#define COMPANIONS_ANNOTATION "caldera.io/companions"
#define CONTAINER_PATH ".template.spec.containers[0]"

static const char *const metadata_fields[] = {"name", "generateName", "namespace", "labels", "annotations", NULL};

/* A top-level name, generateName, labels or annotations, moved into metadata (once: not both). */
static void move_into_metadata(struct fields *f, json_t *req, json_t *meta, const char *key)
{
    json_t *v = json_object_get(req, key);
    if (!v)
        return;
    if (json_object_get(meta, key)) {
        char detail[96];
        snprintf(detail, sizeof detail, "Forbidden: metadata.%s is given too; give it once", key);
        field_error(f, req, key, key, "FieldValueForbidden", "%s", detail);
        return;
    }
    json_object_set(meta, key, v);
}

/* The request's metadata, checked where the user wrote it; then the top-level fields move into it. */
static bool read_metadata(struct fields *f, json_t *req, const struct training *t, bool *named_at_top)
{
    json_t *meta;
    if (!field_object(f, req, "metadata", "metadata", false, &meta))
        return false;
    int causes = f->st->ncauses;
    if (meta) {
        const char *key;
        json_t *v;
        json_object_foreach(meta, key, v)
        {
            bool known = false;
            for (const char *const *k = metadata_fields; *k && !known; k++)
                known = strcmp(key, *k) == 0;
            char path[FIELD_PATH_MAX];
            field_path(path, "metadata", key);
            if (!known)
                field_error(f, meta, key, path, "FieldValueNotSupported", "unknown field \"%s\"", path);
        }
    }
    json_t *holder_of[2] = {req, meta};
    const char *prefix[2] = {"", "metadata"};
    for (int h = 0; h < 2; h++) {
        json_t *o = holder_of[h], *ignored;
        if (!o)
            continue;
        char p[FIELD_PATH_MAX];
        const char *name = NULL, *gen = NULL, *ns = NULL;
        field_path(p, prefix[h], "name");
        if (field_string(f, o, "name", p, false, &name) && name && !dns1123_label(name))
            meta_check_label_name(f, o, "name", p, name);
        field_path(p, prefix[h], "generateName");
        field_string(f, o, "generateName", p, false, &gen);
        if (h == 1) {
            field_path(p, prefix[h], "namespace");
            field_string(f, o, "namespace", p, false, &ns);
        }
        field_path(p, prefix[h], "labels");
        field_string_map(f, o, "labels", p, &ignored);
        field_path(p, prefix[h], "annotations");
        field_string_map(f, o, "annotations", p, &ignored);
    }
    if (f->st->ncauses > causes)
        return false;
    *named_at_top = json_object_get(req, "name") != NULL;
    if (!meta) {
        meta = json_object();
        json_object_set_new(req, "metadata", meta);
    }
    static const char *const moved[] = {"name", "generateName", "labels", "annotations"};
    for (size_t i = 0; i < sizeof moved / sizeof *moved; i++)
        move_into_metadata(f, req, meta, moved[i]);
    if (f->st->ncauses > causes)
        return false;
    for (size_t i = 0; i < sizeof moved / sizeof *moved; i++)
        json_object_del(req, moved[i]);
    if (!json_object_get(meta, "name") && !json_object_get(meta, "generateName")) {
        char gen[32];
        snprintf(gen, sizeof gen, "%s-", training_framework_names[t->framework]);
        json_object_set_new(meta, "generateName", json_string(gen));
    }
    return true;
}

static json_t *volcano_metadata(const json_t *meta, const struct training *t)
{
    json_t *out = json_object();
    static const char *const copied[] = {"name", "generateName", "namespace", "labels"};
    for (size_t i = 0; i < sizeof copied / sizeof *copied; i++) {
        json_t *v = json_object_get(meta, copied[i]);
        if (v)
            json_object_set_new(out, copied[i], json_deep_copy(v));
    }
    json_t *annotations = json_deep_copy(json_object_get(meta, "annotations"));
    if (t->companions) {
        if (!annotations)
            annotations = json_object();
        json_object_set_new(annotations, COMPANIONS_ANNOTATION, json_string(t->companions));
    }
    if (annotations)
        json_object_set_new(out, "annotations", annotations);
    return out;
}

static json_t *container_of(const struct training *t, const struct training_task *task)
{
    json_t *c = json_pack("{s:s}", "name", task->name);
    if (t->image)
        json_object_set_new(c, "image", json_string(t->image));
    json_object_set(c, "command", task->command);
    if (task->with_user_args && t->args && json_array_size(t->args) > 0)
        json_object_set_new(c, "args", json_deep_copy(t->args));
    json_t *env = json_deep_copy(t->env);
    if (env && task->extra_env)
        json_array_extend(env, task->extra_env);
    if (env && json_array_size(env) > 0)
        json_object_set(c, "env", env);
    json_decref(env);
    if (t->working_dir)
        json_object_set_new(c, "workingDir", json_string(t->working_dir));
    json_t *res = json_object_get(t->task_resources, task->name);
    if (!res && !task->no_resources)
        res = t->resources;
    if (res)
        json_object_set_new(c, "resources", json_deep_copy(res));
    return c;
}

static json_t *task_of(const struct training *t, const struct training_task *task)
{
    json_t *pod_spec = json_pack("{s:[o]}", "containers", container_of(t, task));
    if (t->node_selector)
        json_object_set_new(pod_spec, "nodeSelector", json_deep_copy(t->node_selector));
    json_t *out = json_pack("{s:s,s:I,s:{s:o}}", "name", task->name, "replicas", (json_int_t)task->replicas, "template",
                            "spec", pod_spec);
    if (out && task->min_available >= 0)
        json_object_set_new(out, "minAvailable", json_integer(task->min_available));
    if (out && task->completes_job)
        json_object_set_new(out, "policies",
                            json_pack("[{s:s,s:s}]", "event", "TaskCompleted", "action", "CompleteJob"));
    if (out && task->depends_on)
        json_object_set_new(out, "dependsOn", json_pack("{s:[s]}", "name", task->depends_on));
    return out;
}

static void set_string(json_t *obj, const char *key, const char *value)
{
    if (value)
        json_object_set_new(obj, key, json_string(value));
}

static void set_count(json_t *obj, const char *key, int64_t value)
{
    if (value >= 0)
        json_object_set_new(obj, key, json_integer(value));
}

static json_t *volcano_spec(const struct training *t, const struct training_layout *l)
{
    json_t *spec = json_object(), *tasks = json_array();
    set_string(spec, "schedulerName", t->scheduler_name);
    set_string(spec, "queue", t->queue);
    set_string(spec, "priorityClassName", t->priority_class);
    set_count(spec, "maxRetry", t->max_retry);
    set_count(spec, "ttlSecondsAfterFinished", t->ttl_seconds);
    set_count(spec, "minAvailable", l->min_available);
    if (l->min_success > 0)
        json_object_set_new(spec, "minSuccess", json_integer(l->min_success));
    if (t->auto_memory_scale)
        json_object_set_new(spec, "autoMemoryScale", json_deep_copy(t->auto_memory_scale));
    json_object_set(spec, "plugins", l->plugins);
    if (json_array_size(l->policies) > 0)
        json_object_set(spec, "policies", l->policies);
    for (int i = 0; i < l->ntasks; i++)
        json_array_append_new(tasks, task_of(t, &l->tasks[i]));
    json_object_set_new(spec, "tasks", tasks);
    return spec;
}

/* Causes the Volcano validation finds, in the request's own words. */
static void map_paths(struct dialect_translation *out, const struct training *t, const struct training_layout *l,
                      bool named_at_top)
{
    static const char *const spec_fields[] = {"queue",       "priorityClassName",       "schedulerName",
                                              "maxRetry",    "ttlSecondsAfterFinished", "autoMemoryScale",
                                              "minAvailable"};
    char v[FIELD_PATH_MAX], s[FIELD_PATH_MAX];
    for (size_t i = 0; i < sizeof spec_fields / sizeof *spec_fields; i++) {
        field_path(v, "spec", spec_fields[i]);
        dialect_map_path(out, v, spec_fields[i]);
    }
    if (named_at_top)
        dialect_map_path(out, "metadata.name", "name");
    for (int i = 0; i < l->ntasks; i++) {
        char task[FIELD_PATH_MAX];
        field_path_index(task, "spec.tasks", (size_t)i);
        snprintf(v, sizeof v, "%s.replicas", task);
        dialect_map_path(out, v, "workers");
        snprintf(v, sizeof v, "%s.template.spec.nodeSelector", task);
        dialect_map_path(out, v, "nodeSelector");
        static const char *const container_fields[] = {"image", "workingDir", "command", "args"};
        for (size_t k = 0; k < sizeof container_fields / sizeof *container_fields; k++) {
            snprintf(v, sizeof v, "%s" CONTAINER_PATH ".%s", task, container_fields[k]);
            dialect_map_path(out, v, container_fields[k]);
        }
        snprintf(v, sizeof v, "%s" CONTAINER_PATH ".resources", task);
        if (json_object_get(t->task_resources, l->tasks[i].name))
            snprintf(s, sizeof s, "taskResources.%s", l->tasks[i].name);
        else
            snprintf(s, sizeof s, "resources");
        dialect_map_path(out, v, s);
    }
}

/* taskResources naming a task this request does not have (ps: 0, a pytorch job of one worker) would be
 * dropped: refused instead. Returns false after adding causes. */
static bool check_task_resources(struct fields *f, const json_t *req, const struct training_layout *l)
{
    const json_t *map = json_object_get(req, "taskResources");
    bool ok = true;
    const char *task;
    json_t *v;
    json_object_foreach((json_t *)map, task, v)
    {
        bool found = false;
        for (int i = 0; i < l->ntasks && !found; i++)
            found = strcmp(l->tasks[i].name, task) == 0;
        if (!found) {
            char path[FIELD_PATH_MAX];
            field_path(path, "taskResources", task);
            field_error(f, map, task, path, "FieldValueInvalid",
                        "Invalid value: \"%s\": this training has no %s task (see workers and ps)", task, task);
            ok = false;
        }
    }
    return ok;
}

/* What GET shows: the request with the defaults it was given. */
static void write_defaults(json_t *req, const struct training *t)
{
    if (!json_object_get(req, "framework"))
        json_object_set_new(req, "framework", json_string(training_framework_names[t->framework]));
    if (!json_object_get(req, "workers"))
        json_object_set_new(req, "workers", json_integer(t->workers));
}

static int training_translate(struct fields *f, json_t *source, const char *ns, struct dialect_translation *out)
{
    (void)ns; /* metadata.namespace, when given, is checked against it with the Volcano Job */
    struct training t;
    bool read_ok = training_read(f, source, &t);
    bool named_at_top = false;
    if (!read_metadata(f, source, &t, &named_at_top) || !read_ok) {
        training_free(&t);
        return -1;
    }
    struct training_layout l;
    if (training_layout(&t, &l) != 0) {
        training_free(&t);
        return api_fail(f->st, 500, "InternalError", "out of memory");
    }
    if (!check_task_resources(f, source, &l)) {
        training_layout_free(&l);
        training_free(&t);
        return -1;
    }
    out->volcano = json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", "batch.volcano.sh/v1alpha1", "kind", "Job", "metadata",
                             volcano_metadata(json_object_get(source, "metadata"), &t), "spec", volcano_spec(&t, &l));
    map_paths(out, &t, &l, named_at_top);
    write_defaults(source, &t);
    training_layout_free(&l);
    training_free(&t);
    return out->volcano ? 0 : api_fail(f->st, 500, "InternalError", "out of memory");
}

const struct dialect training_dialect = {
    .group = "caldera.io",
    .version = "v1",
    .kind = "Training",
    .plural = "trainings",
    .translate = training_translate,
    .render_status = training_render_status,
    .answer_as_volcano = true,
};
