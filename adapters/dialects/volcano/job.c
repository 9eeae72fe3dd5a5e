/* Parsing a submitted Volcano Job: the checks and defaults of Volcano's admission webhook, every
 * problem reported as a field cause with its path and line, all of them in one answer. */
#include "adapters/dialects/volcano/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/objects/lifecycle.h"
#include "adapters/intake/meta_limits.h"
#include "adapters/objects/pod_scheduling.h"
#include "adapters/objects/pod_template.h"
#include "common/duration.h"
#include "common/hashmap.h"
#include "model/numa.h"
#include "common/uuid.h"
#include "adapters/dialects/volcano/job_plugins/job_plugins.h"
#include "adapters/dialects/volcano/pod_group.h"
#include "adapters/dialects/volcano/volumes.h"

#define JOB_KIND "Job"
#define DEFAULT_QUEUE "default"
#define DEFAULT_MAX_RETRY 3
#define DEFAULT_TASK_MAX_RETRY 3
#define DEFAULT_TTL_SECONDS -1
#define MAX_JOB_REPLICAS 10000000 /* replica counts are int32; this keeps every sum of them far below */

static struct job_limits limits = JOB_LIMITS_DEFAULT; /* set before any thread starts, then only read */

void volcano_job_set_limits(struct job_limits l) { limits = l; }
struct job_limits volcano_job_limits(void) { return limits; }

/* The Job object: status is the server's (dropped on create, as the API server drops it). */
static const char *const job_fields[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};

/* JobSpec (volcano-sh/apis batch/v1alpha1), field by field. Honoured: schedulerName, minAvailable,
 * volumes (directories of the node's: see volumes.c), tasks, policies, plugins, queue,
 * maxRetry, ttlSecondsAfterFinished, priorityClassName, minSuccess; autoMemoryScale is ours (seed
 * 000). runningEstimate is accepted once it parses as a duration: it is an estimate for the
 * scheduler, and Caldera's schedules without estimates (no backfill by expected end), so it changes
 * nothing, which is also what Volcano's default scheduler configuration makes of it.
 * networkTopology is refused: it asks for placement within HyperNode tiers of the network, and
 * Caldera knows no network topology, so a "hard" constraint could not be kept. */
static const struct field_rule spec_rules[] = {
    {"schedulerName", NULL},
    {"minAvailable", NULL},
    {"volumes", NULL},
    {"tasks", NULL},
    {"policies", NULL},
    {"plugins", NULL},
    {"runningEstimate", NULL},
    {"queue", NULL},
    {"maxRetry", NULL},
    {"ttlSecondsAfterFinished", NULL},
    {"priorityClassName", NULL},
    {"minSuccess", NULL},
    {"autoMemoryScale", NULL},
    {"networkTopology", "Caldera has no HyperNodes: it knows no network topology to keep a job within"},
    {NULL, NULL},
};

/* TaskSpec. Honoured: name, replicas, minAvailable, template, policies, maxRetry, dependsOn,
 * topologyPolicy (the numa-aware plugin's volcano.sh/numa-topology-policy: none, best-effort,
 * restricted, single-numa-node).
 * partitionPolicy is refused: partitions are placed by network topology, which Caldera lacks. */
static const struct field_rule task_rules[] = {
    {"name", NULL},
    {"replicas", NULL},
    {"minAvailable", NULL},
    {"template", NULL},
    {"policies", NULL},
    {"topologyPolicy", NULL},
    {"maxRetry", NULL},
    {"dependsOn", NULL},
    {"partitionPolicy", "partitions are placed within network topology tiers, and Caldera knows no network topology"},
    {NULL, NULL},
};

/* 400 when the object is not a Job of our group; missing apiVersion/kind take the path's. */
static int check_type(const json_t *root, struct api_status *st)
{
    const json_t *av = json_object_get(root, "apiVersion"), *kind = json_object_get(root, "kind");
    if (av && (!json_is_string(av) || strcmp(json_string_value(av), VOLCANO_JOB_API_VERSION) != 0))
        return api_fail(st, 400, "BadRequest",
                        "the API version in the data (%s) does not match the expected API version (%s)",
                        json_is_string(av) ? json_string_value(av) : "?", VOLCANO_JOB_API_VERSION);
    if (kind && (!json_is_string(kind) || strcmp(json_string_value(kind), JOB_KIND) != 0))
        return api_fail(st, 400, "BadRequest", "the kind in the data (%s) does not match the expected kind (%s)",
                        json_is_string(kind) ? json_string_value(kind) : "?", JOB_KIND);
    return 0;
}

/* metadata.name (or generateName + 5 random characters, as the API server does), namespace. */
/* caldera.io/clean-pod-policy: what the job's own end does to its pods (enum clean_pods). */
static void parse_clean_pod_policy(struct fields *f, json_t *annotations, struct job *job)
{
    static const char *const names[] = {
        [CLEAN_PODS_RUNNING] = "Running", [CLEAN_PODS_NONE] = "None", [CLEAN_PODS_ALL] = "All"};
    json_t *v = json_is_object(annotations) ? json_object_get(annotations, CLEAN_POD_POLICY_ANNOTATION) : NULL;
    if (!v)
        return;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (json_is_string(v) && strcmp(json_string_value(v), names[i]) == 0) {
            job->clean_pods = (uint8_t)i;
            return;
        }
    field_unsupported(f, annotations, CLEAN_POD_POLICY_ANNOTATION,
                      "metadata.annotations[" CLEAN_POD_POLICY_ANNOTATION "]",
                      "supported values: \"All\", \"Running\", \"None\"");
}

static void parse_metadata(struct fields *f, json_t *root, const char *url_ns, struct job *job)
{
    json_t *meta;
    if (!field_object(f, root, "metadata", "metadata", true, &meta))
        return;
    const char *name = NULL, *gen = NULL, *ns = NULL;
    field_check_rules(f, meta, "metadata", kube_object_meta_rules);
    /* What the API server clears on create; uid, creationTimestamp and generation it replaces
     * (volcano_job_stamp_metadata), resourceVersion an update compares. managedFields stay: server-side
     * apply keeps them there (gateway/resources/patch_apply.c), and a client may set them, as in
     * Kubernetes. */
    static const char *const cleared[] = {"deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"};
    for (size_t i = 0; i < sizeof cleared / sizeof cleared[0]; i++)
        json_object_del(meta, cleared[i]);
    field_string(f, meta, "name", "metadata.name", false, &name);
    field_string(f, meta, "generateName", "metadata.generateName", false, &gen);
    field_string(f, meta, "namespace", "metadata.namespace", false, &ns);
    char generated[64];
    if ((!name || !*name) && gen && *gen && meta_check_generate_name(f, meta, "metadata.generateName", gen, true)) {
        char uid[UUID_STR_LEN];
        uuid_v4(uid);
        snprintf(generated, sizeof generated, "%.57s%.5s", gen, uid);
        name = generated;
        json_object_set_new(meta, "name", json_string(name));
    }
    if (!name || !*name)
        field_required(f, meta, "name", "metadata.name");
    else if (!dns1123_label(name)) /* a label: it names the job's pods and their service */
        meta_check_label_name(f, meta, "name", "metadata.name", name);
    if (ns && *ns)
        meta_check_label_name(f, meta, "namespace", "metadata.namespace", ns);
    json_t *labels, *annotations;
    meta_labels(f, meta, "metadata.labels", &labels);
    meta_annotations(f, meta, "metadata.annotations", &annotations);
    parse_clean_pod_policy(f, annotations, job);
    if (ns && *ns && strcmp(ns, url_ns) != 0) {
        api_fail(f->st, 400, "BadRequest",
                 "the namespace of the provided object (%s) does not match the namespace sent on the request (%s)", ns,
                 url_ns);
        return;
    }
    job->name = strdup(name ? name : "");
    job->ns = strdup(url_ns);
}

static void parse_topology_policy(struct fields *f, json_t *task, const char *path, struct task_spec *ts)
{
    char p[FIELD_PATH_MAX];
    const char *policy = NULL;
    enum topology_policy tp;
    if (!field_string_in(f, task, "topologyPolicy", path, false, &policy) || !policy || !*policy)
        return;
    if (topology_policy_parse(policy, &tp) == 0) {
        ts->topology_policy = (uint8_t)tp;
        return;
    }
    field_path(p, path, "topologyPolicy");
    field_error(f, task, "topologyPolicy", p, "FieldValueNotSupported",
                "Unsupported value: \"%s\": supported values: \"none\", \"best-effort\", \"restricted\", "
                "\"single-numa-node\"",
                policy);
}

/* The template's own schedulerName may only repeat the Job's: one scheduler places the gang. */
static void check_template_scheduler(struct fields *f, const struct job *job, const struct task_spec *ts, size_t i)
{
    json_t *spec = json_object_get(ts->template_tree, "spec");
    const char *name = json_string_value(json_object_get(spec, "schedulerName"));
    if (!name || !*name || strcmp(name, job->scheduler_name) == 0)
        return;
    char task_path[FIELD_PATH_MAX], p[FIELD_PATH_MAX];
    field_path_index(task_path, "spec.tasks", i);
    snprintf(p, sizeof p, "%s.template.spec.schedulerName", task_path);
    field_forbidden(f, spec, "schedulerName", p, "must be the Job's spec.schedulerName: one scheduler places the gang");
}

static void parse_task(struct fields *f, json_t *tasks, size_t i, struct task_spec *ts)
{
    char path[FIELD_PATH_MAX], p[FIELD_PATH_MAX];
    json_t *task = field_each_object(f, tasks, i, "spec.tasks", path, "a task must be an object");
    if (!task)
        return;
    field_check_rules(f, task, path, task_rules);
    parse_topology_policy(f, task, path, ts);
    const char *name = NULL;
    if (field_string_in(f, task, "name", path, false, &name) && name && *name && !dns1123_label(name)) {
        field_path(p, path, "name");
        field_invalid(f, task, "name", p,
                      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                      "start and end with an alphanumeric character");
    }
    char default_name[32];
    if (!name || !*name) {
        snprintf(default_name, sizeof default_name, "default%zu", i);
        name = default_name;
        json_object_set_new(task, "name", json_string(name));
    }
    ts->name = strdup(name);

    int64_t replicas = 0, min_available = -1;
    if (field_int_in(f, task, "replicas", path, true, 0, f->admitted ? MAX_JOB_REPLICAS : INT32_MAX, &replicas) &&
        !f->admitted && replicas > limits.replicas_per_task) {
        field_path(p, path, "replicas");
        field_error(f, task, "replicas", p, "FieldValueInvalid",
                    "Invalid value: %lld: must be less than or equal to %d (this server's --max-replicas-per-task)",
                    (long long)replicas, limits.replicas_per_task);
    }
    ts->replicas = (int32_t)replicas;
    if (field_int_in(f, task, "minAvailable", path, false, 0, INT32_MAX, &min_available) && min_available > replicas) {
        field_path(p, path, "minAvailable");
        field_invalid(f, task, "minAvailable", p, "must not be greater than the task's replicas");
    }
    if (min_available < 0) {
        min_available = replicas;
        json_object_set_new(task, "minAvailable", json_integer(min_available));
    }
    ts->min_available = (int32_t)min_available;

    json_t *template;
    if (field_object_in(f, task, "template", path, true, &template) && template) {
        field_path(p, path, "template");
        pod_template_parse(f, template, p, ts);
        ts->template_tree = json_incref(template);
    }
    policies_parse(f, task, path, &ts->policies, &ts->npolicies);
    int64_t max_retry = DEFAULT_TASK_MAX_RETRY;
    if (field_int_in(f, task, "maxRetry", path, false, -1, INT32_MAX, &max_retry) && !json_object_get(task, "maxRetry"))
        json_object_set_new(task, "maxRetry", json_integer(max_retry));
    ts->max_retry = (int32_t)max_retry;
}

/* Asks for task i's values ahead of reading them. A big body's values come from an arena in the order
 * they were written, so task i's lie between it and task i + 1: read a task later, they are in cache
 * by then instead of fetched one lookup at a time. Only a hint: a wrong range costs nothing more. */
static void prefetch_task(const json_t *tasks, size_t i)
{
    const char *from = (const char *)json_array_get(tasks, i), *to = (const char *)json_array_get(tasks, i + 1);
    if (!from || !to || to <= from || to - from > 16384)
        return;
    for (const char *p = from; p < to; p += 64)
        __builtin_prefetch(p);
}

static void parse_tasks(struct fields *f, json_t *spec, struct job *job)
{
    json_t *tasks = json_object_get(spec, "tasks");
    for (size_t i = 0; i < (size_t)job->ntasks; i++) {
        prefetch_task(tasks, i + 1);
        parse_task(f, tasks, i, &job->tasks[i]);
        if (job->tasks[i].template_tree)
            check_template_scheduler(f, job, &job->tasks[i], i);
    }
    bool duplicates = false;
    struct hmap seen = {0}; /* name -> task: a job of 5,000 tasks is checked in linear time */
    for (int a = 0; a < job->ntasks; a++) {
        const char *name = job->tasks[a].name;
        if (!name)
            continue;
        if (strmap_get(&seen, name)) {
            char p[FIELD_PATH_MAX], tp[FIELD_PATH_MAX];
            field_path_index(tp, "spec.tasks", (size_t)a);
            field_path(p, tp, "name");
            field_error(f, json_array_get(tasks, (size_t)a), "name", p, "FieldValueDuplicate",
                        "Duplicate value: \"%s\": duplicated task name", name);
            duplicates = true;
        } else if (strmap_put(&seen, name, &job->tasks[a]) != 0) {
            api_fail(f->st, 500, "InternalError", "out of memory");
        }
    }
    hmap_free(&seen);
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
    if (field_int(f, spec, "maxRetry", "spec.maxRetry", false, 0, INT32_MAX, &max_retry) &&
        !json_object_get(spec, "maxRetry"))
        json_object_set_new(spec, "maxRetry", json_integer(max_retry));
    job->max_retry = (int32_t)max_retry;
    field_int(f, spec, "minSuccess", "spec.minSuccess", false, 1, INT32_MAX, &min_success);
    job->min_success = (int32_t)min_success;
    int64_t ttl = DEFAULT_TTL_SECONDS;
    field_int(f, spec, "ttlSecondsAfterFinished", "spec.ttlSecondsAfterFinished", false, 0, INT32_MAX, &ttl);
    job->ttl_seconds = (int32_t)ttl;
    policies_parse(f, spec, "spec", &job->policies, &job->npolicies);
    parse_auto_memory_scale(f, spec, job);
    const char *estimate = NULL;
    if (field_string(f, spec, "runningEstimate", "spec.runningEstimate", false, &estimate) && estimate) {
        int64_t ms;
        char why[160];
        if (duration_parse_go(estimate, &ms, why, sizeof why) != 0)
            field_invalid(f, spec, "runningEstimate", "spec.runningEstimate", why);
    }
    job_plugins_admit(f, spec);
}

/* Volcano's rule: job minAvailable defaults to the sum of the tasks' minAvailable, and may not
 * exceed the total replicas. */
/* The requests of all replicas together must be countable: the queue and PodGroup sums are int64
 * in the smallest unit (bytes, millicores), and 4 replicas of 2Ei of memory are not. */
static void check_total_requests(struct fields *f, json_t *spec, const struct job *job)
{
    for (int i = 0; i < resource_count(); i++) {
        int64_t sum = 0, part;
        bool overflow = false;
        for (int t = 0; t < job->ntasks && !overflow; t++)
            overflow = __builtin_mul_overflow(job->tasks[t].request.v[i], (int64_t)job->tasks[t].replicas, &part) ||
                       __builtin_add_overflow(sum, part, &sum);
        if (overflow) {
            field_error(f, spec, "tasks", "spec.tasks", "FieldValueInvalid",
                        "Invalid value: the replicas' %s requests add up to more than Caldera can count "
                        "(9223372036854775807 in its smallest unit)",
                        resource_name(i));
            return;
        }
    }
}

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
        field_invalid(f, spec, "minAvailable", "spec.minAvailable",
                      "job 'minAvailable' should not be greater than total replicas in tasks");
    }
    job->min_available = (int32_t)min_available;
    if (job->min_success > total)
        field_invalid(f, spec, "minSuccess", "spec.minSuccess",
                      "job 'minSuccess' should not be greater than total replicas in tasks");
    int64_t max = f->admitted ? MAX_JOB_REPLICAS : limits.replicas_per_job;
    if (total > max)
        field_error(f, spec, "tasks", "spec.tasks", "FieldValueTooMany",
                    "Too many: %lld: must have at most %lld replicas in all tasks together%s", (long long)total,
                    (long long)max, f->admitted ? "" : " (this server's --max-replicas-per-job)");
    else
        check_total_requests(f, spec, job);
}

static int build(struct fields *f, json_t *root, const char *url_ns, struct job **out)
{
    json_t *spec, *tasks;
    field_check_known(f, root, "", job_fields);
    if (!field_object(f, root, "spec", "spec", true, &spec) ||
        !field_array(f, spec, "tasks", "spec.tasks", true, &tasks))
        return -1;
    if (json_array_size(tasks) == 0) {
        field_error(f, spec, "tasks", "spec.tasks", "FieldValueRequired",
                    "Required value: no task specified in job spec");
        return -1;
    }
    if (!f->admitted && json_array_size(tasks) > (size_t)limits.tasks_per_job) {
        field_error(f, spec, "tasks", "spec.tasks", "FieldValueTooMany",
                    "Too many: %zu: must have at most %d items (this server's --max-tasks-per-job)",
                    json_array_size(tasks), limits.tasks_per_job);
        return -1;
    }
    struct job *job = job_new((int)json_array_size(tasks));
    if (!job)
        return api_fail(f->st, 500, "InternalError", "out of memory");
    parse_metadata(f, root, url_ns, job);
    if (f->st->code == 0) {
        field_check_rules(f, spec, "spec", spec_rules);
        parse_spec_scalars(f, spec, job);
        parse_tasks(f, spec, job);
        job_preemptable_inherit(json_object_get(json_object_get(root, "metadata"), "annotations"), job);
        check_min_available(f, spec, job);
        volcano_job_volumes_parse(f, spec, job);
        volcano_job_min_resources_check(f, root, job);
    }
    if (f->st->code != 0 || f->st->ncauses > 0 || job_alloc_replicas(job) != 0) {
        job_free(job);
        return -1;
    }
    json_object_del(root, "status"); /* status is the server's to write */
    if (!json_object_get(root, "apiVersion"))
        json_object_set_new(root, "apiVersion", json_string(VOLCANO_JOB_API_VERSION));
    if (!json_object_get(root, "kind"))
        json_object_set_new(root, "kind", json_string(JOB_KIND));
    job->manifest_tree = json_incref(root);
    volcano_job_min_resources(job);
    *out = job;
    return 0;
}

static int from_doc(const struct intake_doc *doc, const char *url_ns, bool admitted, struct job **out,
                    struct api_status *st)
{
    json_t *root = doc->root;
    *out = NULL;
    if (!json_is_object(root))
        return api_fail(st, 400, "BadRequest", "the body must be a Job object");
    if (check_type(root, st) != 0)
        return -1;
    struct fields f = {doc, st, admitted};
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

int volcano_job_from_doc(const struct intake_doc *doc, const char *url_ns, struct job **out, struct api_status *st)
{
    return from_doc(doc, url_ns, false, out, st);
}

int volcano_job_from_admitted_doc(const struct intake_doc *doc, const char *ns, struct job **out, struct api_status *st)
{
    return from_doc(doc, ns, true, out, st);
}
