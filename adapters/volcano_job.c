/* Parsing a submitted Volcano Job: the checks and defaults of Volcano's admission webhook, every
 * problem reported as a field cause with its path and line, all of them in one answer. */
#include "adapters/volcano_job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/fields.h"
#include "adapters/lifecycle.h"
#include "adapters/pod_template.h"
#include "common/uuid.h"
#include "scheduler/controller/job_plugins.h"

#define JOB_KIND "Job"
#define DEFAULT_QUEUE "default"
#define DEFAULT_MAX_RETRY 3
#define DEFAULT_TASK_MAX_RETRY 3
#define DEFAULT_TTL_SECONDS -1

/* 400 when the object is not a Job of our group; missing apiVersion/kind take the path's. */
static int check_type(const json_t *root, struct api_status *st)
{
    const json_t *av = json_object_get(root, "apiVersion"), *kind = json_object_get(root, "kind");
    if (av && (!json_is_string(av) || strcmp(json_string_value(av), VOLCANO_JOB_API_VERSION) != 0))
        return api_fail(st, 400, "BadRequest", "the API version in the data (%s) does not match the expected API version (%s)",
                        json_is_string(av) ? json_string_value(av) : "?", VOLCANO_JOB_API_VERSION);
    if (kind && (!json_is_string(kind) || strcmp(json_string_value(kind), JOB_KIND) != 0))
        return api_fail(st, 400, "BadRequest", "the kind in the data (%s) does not match the expected kind (%s)",
                        json_is_string(kind) ? json_string_value(kind) : "?", JOB_KIND);
    return 0;
}

/* metadata.name (or generateName + 5 random characters, as the API server does), namespace. */
static void parse_metadata(struct fields *f, json_t *root, const char *url_ns, struct job *job)
{
    json_t *meta;
    if (!field_object(f, root, "metadata", "metadata", true, &meta))
        return;
    const char *name = NULL, *gen = NULL, *ns = NULL;
    field_string(f, meta, "name", "metadata.name", false, &name);
    field_string(f, meta, "generateName", "metadata.generateName", false, &gen);
    field_string(f, meta, "namespace", "metadata.namespace", false, &ns);
    char generated[64];
    if ((!name || !*name) && gen && *gen) {
        char uid[UUID_STR_LEN];
        uuid_v4(uid);
        snprintf(generated, sizeof generated, "%.57s%.5s", gen, uid);
        name = generated;
        json_object_set_new(meta, "name", json_string(name));
    }
    if (!name || !*name)
        field_required(f, meta, "name", "metadata.name");
    else if (!dns1123_label(name))
        field_invalid(f, meta, "name", "metadata.name",
                      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                      "and must start and end with an alphanumeric character (at most 63 characters)");
    json_t *labels, *annotations;
    field_string_map(f, meta, "labels", "metadata.labels", &labels);
    field_string_map(f, meta, "annotations", "metadata.annotations", &annotations);
    if (ns && *ns && strcmp(ns, url_ns) != 0) {
        api_fail(f->st, 400, "BadRequest", "the namespace of the provided object (%s) does not match the namespace sent on the request (%s)",
                 ns, url_ns);
        return;
    }
    job->name = strdup(name ? name : "");
    job->ns = strdup(url_ns);
}

static void parse_task(struct fields *f, json_t *tasks, size_t i, struct task_spec *ts)
{
    char path[FIELD_PATH_MAX], p[FIELD_PATH_MAX];
    field_path_index(path, "spec.tasks", i);
    json_t *task = json_array_get(tasks, i);
    if (!json_is_object(task)) {
        field_error_at_index(f, tasks, i, path, "FieldValueInvalid", "Invalid value: a task must be an object");
        return;
    }
    const char *name = NULL;
    field_path(p, path, "name");
    if (field_string(f, task, "name", p, false, &name) && name && *name && !dns1123_label(name))
        field_invalid(f, task, "name", p, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character");
    char default_name[32];
    if (!name || !*name) {
        snprintf(default_name, sizeof default_name, "default%zu", i);
        name = default_name;
        json_object_set_new(task, "name", json_string(name));
    }
    ts->name = strdup(name);

    int64_t replicas = 0, min_available = -1;
    field_path(p, path, "replicas");
    field_int(f, task, "replicas", p, true, 0, 100000, &replicas);
    ts->replicas = (int32_t)replicas;
    field_path(p, path, "minAvailable");
    if (field_int(f, task, "minAvailable", p, false, 0, INT32_MAX, &min_available) && min_available > replicas)
        field_invalid(f, task, "minAvailable", p, "must not be greater than the task's replicas");
    if (min_available < 0) {
        min_available = replicas;
        json_object_set_new(task, "minAvailable", json_integer(min_available));
    }
    ts->min_available = (int32_t)min_available;

    json_t *template;
    field_path(p, path, "template");
    if (field_object(f, task, "template", p, true, &template) && template) {
        pod_template_parse(f, template, p, ts);
        ts->template = json_incref(template);
    }
    policies_parse(f, task, path, &ts->policies, &ts->npolicies);
    int64_t max_retry = DEFAULT_TASK_MAX_RETRY;
    field_path(p, path, "maxRetry");
    if (field_int(f, task, "maxRetry", p, false, -1, INT32_MAX, &max_retry) && !json_object_get(task, "maxRetry"))
        json_object_set_new(task, "maxRetry", json_integer(max_retry));
    ts->max_retry = (int32_t)max_retry;
}

static void parse_tasks(struct fields *f, json_t *spec, struct job *job)
{
    json_t *tasks = json_object_get(spec, "tasks");
    for (size_t i = 0; i < (size_t)job->ntasks; i++)
        parse_task(f, tasks, i, &job->tasks[i]);
    bool duplicates = false;
    for (int a = 0; a < job->ntasks; a++) {
        for (int b = 0; b < a; b++) {
            if (job->tasks[a].name && job->tasks[b].name && strcmp(job->tasks[a].name, job->tasks[b].name) == 0) {
                char p[FIELD_PATH_MAX], tp[FIELD_PATH_MAX];
                field_path_index(tp, "spec.tasks", (size_t)a);
                field_path(p, tp, "name");
                field_error(f, json_array_get(tasks, (size_t)a), "name", p, "FieldValueDuplicate",
                            "Duplicate value: \"%s\": duplicated task name", job->tasks[a].name);
                duplicates = true;
            }
        }
    }
    if (!duplicates) /* names must be unique to mean anything */
        depends_on_parse(f, tasks, job);
}

/* Ours (seed 000): spec.autoMemoryScale {rate > 1, maxMemory}: an OOMKilled replica runs again with
 * its memory request and limit times rate, capped at maxMemory. */
static void parse_auto_memory_scale(struct fields *f, json_t *spec, struct job *job)
{
    json_t *ams;
    if (!field_object(f, spec, "autoMemoryScale", "spec.autoMemoryScale", false, &ams) || !ams)
        return;
    char text[64];
    const char *why = NULL;
    json_t *rate = json_object_get(ams, "rate");
    char *end = NULL;
    double r = intake_scalar_text(rate, text, sizeof text) ? strtod(text, &end) : 0;
    if (!rate)
        field_required(f, ams, "rate", "spec.autoMemoryScale.rate");
    else if (!end || end == text || *end || !(r > 1.0 && r <= 100.0))
        field_invalid(f, ams, "rate", "spec.autoMemoryScale.rate", "must be a number greater than 1 (and at most 100)");
    else
        job->memory_scale_rate = r;
    json_t *max = json_object_get(ams, "maxMemory");
    int64_t bytes = 0;
    if (!max)
        field_required(f, ams, "maxMemory", "spec.autoMemoryScale.maxMemory");
    else if (!intake_scalar_text(max, text, sizeof text) || resource_parse(RES_MEMORY, text, &bytes, &why) != 0 ||
             bytes <= 0)
        field_invalid(f, ams, "maxMemory", "spec.autoMemoryScale.maxMemory",
                      why ? why : "must be a positive memory quantity such as 64Gi");
    else
        job->memory_scale_max = bytes;
}

static void parse_spec_scalars(struct fields *f, json_t *spec, struct job *job)
{
    const char *queue = NULL, *scheduler = NULL, *pclass = NULL;
    if (field_string(f, spec, "queue", "spec.queue", false, &queue) && (!queue || !*queue)) {
        queue = DEFAULT_QUEUE;
        json_object_set_new(spec, "queue", json_string(queue));
    }
    job->queue = strdup(queue ? queue : DEFAULT_QUEUE);
    field_string(f, spec, "schedulerName", "spec.schedulerName", false, &scheduler);
    job->scheduler_name = strdup(scheduler && *scheduler ? scheduler : "volcano");
    /* Whether the class exists, and the priority it gives, is admission's question: classes live in
     * the cluster (controller_admit_priority). */
    if (field_string(f, spec, "priorityClassName", "spec.priorityClassName", false, &pclass) && pclass && *pclass)
        job->priority_class = strdup(pclass);
    int64_t max_retry = DEFAULT_MAX_RETRY, min_success = 0;
    if (field_int(f, spec, "maxRetry", "spec.maxRetry", false, 0, INT32_MAX, &max_retry) && !json_object_get(spec, "maxRetry"))
        json_object_set_new(spec, "maxRetry", json_integer(max_retry));
    job->max_retry = (int32_t)max_retry;
    field_int(f, spec, "minSuccess", "spec.minSuccess", false, 1, INT32_MAX, &min_success);
    job->min_success = (int32_t)min_success;
    int64_t ttl = DEFAULT_TTL_SECONDS;
    field_int(f, spec, "ttlSecondsAfterFinished", "spec.ttlSecondsAfterFinished", false, 0, INT32_MAX, &ttl);
    job->ttl_seconds = (int32_t)ttl;
    policies_parse(f, spec, "spec", &job->policies, &job->npolicies);
    parse_auto_memory_scale(f, spec, job);
    json_t *ignored;
    field_array(f, spec, "volumes", "spec.volumes", false, &ignored);
    job_plugins_admit(f, spec);
}

/* Volcano's rule: job minAvailable defaults to the sum of the tasks' minAvailable, and may not
 * exceed the total replicas. */
static void check_min_available(struct fields *f, json_t *spec, struct job *job)
{
    int64_t total = 0, task_min = 0, min_available = -1;
    for (int t = 0; t < job->ntasks; t++) {
        total += job->tasks[t].replicas;
        task_min += job->tasks[t].min_available;
    }
    field_int(f, spec, "minAvailable", "spec.minAvailable", false, 0, INT32_MAX, &min_available);
    if (min_available < 0) {
        min_available = task_min;
        json_object_set_new(spec, "minAvailable", json_integer(min_available));
    } else if (min_available > total) {
        field_invalid(f, spec, "minAvailable", "spec.minAvailable", "job 'minAvailable' should not be greater than total replicas in tasks");
    }
    job->min_available = (int32_t)min_available;
    if (job->min_success > total)
        field_invalid(f, spec, "minSuccess", "spec.minSuccess", "job 'minSuccess' should not be greater than total replicas in tasks");
}

void volcano_job_min_resources(struct job *job)
{
    int32_t left = job->min_available;
    memset(&job->pg.min_resources, 0, sizeof job->pg.min_resources);
    for (int t = 0; t < job->ntasks && left > 0; t++) {
        int32_t n = job->tasks[t].replicas < left ? job->tasks[t].replicas : left;
        for (int32_t i = 0; i < n; i++)
            resvec_add(&job->pg.min_resources, &job->tasks[t].request);
        left -= n;
    }
}

static int build(struct fields *f, json_t *root, const char *url_ns, struct job **out)
{
    json_t *spec, *tasks;
    if (!field_object(f, root, "spec", "spec", true, &spec) ||
        !field_array(f, spec, "tasks", "spec.tasks", true, &tasks))
        return -1;
    if (json_array_size(tasks) == 0) {
        field_error(f, spec, "tasks", "spec.tasks", "FieldValueRequired", "Required value: no task specified in job spec");
        return -1;
    }
    struct job *job = job_new((int)json_array_size(tasks));
    if (!job)
        return api_fail(f->st, 500, "InternalError", "out of memory");
    parse_metadata(f, root, url_ns, job);
    if (f->st->code == 0) {
        parse_spec_scalars(f, spec, job);
        parse_tasks(f, spec, job);
        check_min_available(f, spec, job);
    }
    if (f->st->code != 0 || f->st->ncauses > 0 || job_alloc_replicas(job) != 0) {
        job_free(job);
        return -1;
    }
    volcano_job_min_resources(job);
    json_object_del(root, "status"); /* status is the server's to write */
    if (!json_object_get(root, "apiVersion"))
        json_object_set_new(root, "apiVersion", json_string(VOLCANO_JOB_API_VERSION));
    if (!json_object_get(root, "kind"))
        json_object_set_new(root, "kind", json_string(JOB_KIND));
    job->manifest = json_incref(root);
    *out = job;
    return 0;
}

int volcano_job_from_doc(const struct intake_doc *doc, const char *url_ns, struct job **out, struct api_status *st)
{
    json_t *root = doc->root;
    *out = NULL;
    if (!json_is_object(root))
        return api_fail(st, 400, "BadRequest", "the body must be a Job object");
    if (check_type(root, st) != 0)
        return -1;
    struct fields f = {doc, st};
    if (build(&f, root, url_ns, out) == 0)
        return 0;
    if (st->code == 0) {
        const json_t *meta = json_object_get(root, "metadata");
        const char *name = json_string_value(json_object_get(meta, "name"));
        api_fail_invalid(st, "Job.batch.volcano.sh", name);
        api_set_details(st, "Job", "batch.volcano.sh", name ? name : "");
    }
    return -1;
}
