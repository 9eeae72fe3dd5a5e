/* Changes to an admitted job's spec made by the server itself (autoMemoryScale). The manifest is
 * shared with renderings in flight, so a change builds a new one and swaps it in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "model/quantity.h"

/* Sets resources.<kind>.memory of the task's container in a manifest copy; 0 removes it. */
static int set_memory(json_t *container, const char *kind, int64_t bytes)
{
    json_t *res = json_object_get(container, "resources");
    if (!json_is_object(res)) {
        res = json_object();
        json_object_set_new(container, "resources", res);
    }
    json_t *map = json_object_get(res, kind);
    if (!json_is_object(map)) {
        if (bytes <= 0)
            return 0;
        map = json_object();
        json_object_set_new(res, kind, map);
    }
    if (bytes <= 0)
        return json_object_del(map, "memory"), 0;
    char text[32];
    if (quantity_format(bytes, 0, true, text, sizeof text) < 0)
        return -1;
    return json_object_set_new(map, "memory", json_string(text));
}

int volcano_job_set_task_memory(struct job *job, int task, int64_t request, int64_t limit)
{
    json_t *manifest = json_deep_copy(job_manifest(job));
    json_t *tmpl = json_object_get(
        json_array_get(json_object_get(json_object_get(manifest, "spec"), "tasks"), (size_t)task), "template");
    json_t *container = json_array_get(json_object_get(json_object_get(tmpl, "spec"), "containers"), 0);
    if (!container || set_memory(container, "requests", request) != 0 || set_memory(container, "limits", limit) != 0) {
        json_decref(manifest);
        return -1;
    }
    struct task_spec *ts = &job->tasks[task];
    json_decref(job->manifest_tree);
    job->manifest_tree = manifest;
    json_decref(ts->template_tree);
    ts->template_tree = json_incref(tmpl);
    ts->request.v[RES_MEMORY] = request;
    ts->limit.v[RES_MEMORY] = limit;
    volcano_job_min_resources(job); /* the gang's minimum follows */
    return 0;
}

/* A copy of a spec without the fields an update may change. */
static json_t *fixed_part(const json_t *spec)
{
    json_t *s = json_deep_copy(spec);
    json_object_del(s, "minAvailable");
    json_object_del(s, "priorityClassName");
    size_t i;
    json_t *task;
    json_array_foreach(json_object_get(s, "tasks"), i, task)
    {
        json_object_del(task, "replicas");
        json_object_del(task, "minAvailable");
    }
    return s;
}

int volcano_job_check_update(const struct job *job, const struct job *upd, struct api_status *st)
{
    json_t *was = fixed_part(json_object_get(job_manifest(job), "spec"));
    json_t *now = fixed_part(json_object_get(job_manifest(upd), "spec"));
    bool same = job->ntasks == upd->ntasks && json_equal(was, now);
    json_decref(was);
    json_decref(now);
    if (same && strcmp(job->name, upd->name) == 0)
        return 0;
    api_add_cause(st, "spec", "FieldValueForbidden", 0, 0,
                  "Forbidden: job updates may not change fields other than `minAvailable`, `priorityClassName`, "
                  "`tasks[*].replicas` and `tasks[*].minAvailable`");
    api_fail_invalid(st, "Job.batch.volcano.sh", job->name);
    api_set_details(st, "Job", "batch.volcano.sh", job->name);
    return -1;
}

void volcano_job_adopt_manifest(struct job *job, const struct job *upd)
{
    json_t *manifest = json_deep_copy(job_manifest(upd));
    json_t *meta = json_object_get(manifest, "metadata");
    const json_t *old_meta = json_object_get(job_manifest(job), "metadata");
    json_object_del(meta, "resourceVersion");
    json_object_set(meta, "uid", json_object_get(old_meta, "uid"));
    json_object_set(meta, "namespace", json_object_get(old_meta, "namespace"));
    json_object_set(meta, "creationTimestamp", json_object_get(old_meta, "creationTimestamp"));
    json_object_set_new(meta, "generation",
                        json_integer(json_integer_value(json_object_get(old_meta, "generation")) + 1));
    json_decref(job->manifest_tree);
    job->manifest_tree = manifest;
}

int volcano_job_set_deadline(struct job *job, int64_t seconds)
{
    json_t *manifest = json_deep_copy(job_manifest(job));
    json_t *tasks = json_object_get(json_object_get(manifest, "spec"), "tasks");
    json_t **templates = calloc((size_t)job->ntasks + 1, sizeof *templates);
    bool ok = manifest && templates && (int)json_array_size(tasks) == job->ntasks;
    for (int t = 0; ok && t < job->ntasks; t++) {
        templates[t] = json_deep_copy(job_task_template(job, t));
        json_t *pod = json_object_get(templates[t], "spec");
        ok = pod && json_object_set_new(pod, "activeDeadlineSeconds", json_integer(seconds)) == 0 &&
             json_object_set(json_array_get(tasks, (size_t)t), "template", templates[t]) == 0;
    }
    if (!ok) {
        for (int t = 0; templates && t < job->ntasks; t++)
            json_decref(templates[t]);
        free(templates);
        json_decref(manifest);
        return -1;
    }
    for (int t = 0; t < job->ntasks; t++) {
        json_decref(job->tasks[t].template_tree);
        job->tasks[t].template_tree = templates[t];
        job->tasks[t].active_deadline_seconds = seconds;
    }
    free(templates);
    json_t *meta = json_object_get(manifest, "metadata");
    json_object_set_new(meta, "generation", json_integer(json_integer_value(json_object_get(meta, "generation")) + 1));
    json_decref(job->manifest_tree);
    job->manifest_tree = manifest;
    return 0;
}
