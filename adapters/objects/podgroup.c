/* A job's PodGroup rendered as Volcano shows it. The Unschedulable condition carries the gang
 * plugin's message ("x/y tasks in gang unschedulable: ...") while the gang cannot be placed. */
#include "adapters/objects/podgroup.h"

#include <stdio.h>
#include <string.h>

#include "common/uuid.h"

#include "adapters/objects/render.h"

const char *podgroup_name(const char *job_name, const char *job_uid, char *buf)
{
    snprintf(buf, PODGROUP_NAME_MAX, "%s-%s", job_name, job_uid);
    return buf;
}

bool podgroup_name_matches(const char *name, const char *job_name, const char *job_uid)
{
    char pg[PODGROUP_NAME_MAX];
    return strcmp(name, job_name) == 0 || strcmp(name, podgroup_name(job_name, job_uid, pg)) == 0;
}

const char *podgroup_job_name(const char *name, char *buf)
{
    size_t n = strlen(name), uid = UUID_STR_LEN - 1;
    if (n > uid + 1 && n < PODGROUP_NAME_MAX && name[n - uid - 1] == '-' && name[n - uid + 8] == '-' &&
        name[n - uid + 13] == '-' && name[n - uid + 18] == '-' && name[n - uid + 23] == '-') {
        snprintf(buf, PODGROUP_NAME_MAX, "%.*s", (int)(n - uid - 1), name);
        return buf;
    }
    return name;
}

static json_t *conditions(const struct job *job)
{
    json_t *list = json_array();
    if (job->pg.unschedulable)
        json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s, s:o}", "type", "Unschedulable", "status", "True",
                                              "reason", "NotEnoughResources", "message", job->pg.unschedulable,
                                              "lastTransitionTime", render_time(job->pg.unschedulable_ms)));
    if (job->pg.scheduled_ms)
        json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:o}", "type", "Scheduled", "status", "True", "reason",
                                              "tasks in gang are ready to be scheduled", "lastTransitionTime",
                                              render_time(job->pg.scheduled_ms)));
    return list;
}

json_t *podgroup_render(const struct job *job)
{
    json_t *min_task = json_object();
    for (int t = 0; t < job->ntasks; t++)
        json_object_set_new(min_task, job->tasks[t].name, json_integer(job->tasks[t].min_available));
    char rv[24];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)job->resource_version);
    json_t *owner = json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "apiVersion", "batch.volcano.sh/v1alpha1", "kind",
                              "Job", "name", job->name, "uid", job->uid, "controller", 1, "blockOwnerDeletion", 1);
    char name[PODGROUP_NAME_MAX];
    json_t *meta = json_pack("{s:s, s:s, s:s, s:o, s:[o]}", "name", podgroup_name(job->name, job->uid, name),
                             "namespace", job->ns, "resourceVersion", rv, "creationTimestamp",
                             render_time(job->created_ms), "ownerReferences", owner);
    json_t *spec = json_pack("{s:i, s:o, s:s, s:o}", "minMember", job->min_available, "minTaskMember", min_task,
                             "queue", job->queue, "minResources", render_resources(&job->pg.min_resources, false));
    if (job->priority_class)
        json_object_set_new(spec, "priorityClassName", json_string(job->priority_class));
    json_t *status = json_pack("{s:s, s:o, s:i, s:i, s:i}", "phase", podgroup_phase_name(job->pg.phase), "conditions",
                               conditions(job), "running", job->status.running, "succeeded", job->status.succeeded,
                               "failed", job->status.failed);
    return json_pack("{s:s, s:s, s:o, s:o, s:o}", "apiVersion", PODGROUP_API_VERSION, "kind", "PodGroup", "metadata",
                     meta, "spec", spec, "status", status);
}
