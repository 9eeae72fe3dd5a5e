/* A pod template's Volcano scheduling annotations, checked at admission so the placement plugins
 * read flags, never JSON: the NUMA topology policy, preemptable, and the revocable zone. */
#include "adapters/objects/pod_scheduling.h"

#include <stdio.h>
#include <string.h>

#include "model/numa.h"

static void bad_value(struct fields *f, json_t *annotations, const char *path, const char *key, const char *value,
                      const char *supported)
{
    char p[FIELD_PATH_MAX];
    snprintf(p, sizeof p, "%s[%s]", path, key);
    field_error(f, annotations, key, p, "FieldValueNotSupported", "Unsupported value: \"%.64s\": supported values: %s",
                value, supported);
}

bool pod_scheduling_annotations(struct fields *f, json_t *annotations, const char *path, struct task_spec *ts)
{
    bool ok = true;
    const char *v = json_string_value(json_object_get(annotations, NUMA_POLICY_ANNOTATION));
    enum topology_policy tp;
    if (v && topology_policy_parse(v, &tp) != 0) {
        bad_value(f, annotations, path, NUMA_POLICY_ANNOTATION, v,
                  "\"none\", \"best-effort\", \"restricted\", \"single-numa-node\"");
        ok = false;
    } else if (v && ts->topology_policy == TOPO_NONE) {
        ts->topology_policy = (uint8_t)tp;
    }
    v = json_string_value(json_object_get(annotations, PREEMPTABLE_ANNOTATION));
    if (v && strcmp(v, "true") != 0 && strcmp(v, "false") != 0) {
        bad_value(f, annotations, path, PREEMPTABLE_ANNOTATION, v, "\"true\", \"false\"");
        ok = false;
    } else if (v) {
        ts->preemptable = strcmp(v, "true") == 0;
    }
    /* Volcano takes only "*" (any revocable zone); other values leave the pod off revocable nodes. */
    v = json_string_value(json_object_get(annotations, REVOCABLE_ZONE_ANNOTATION));
    ts->revocable_zone = v && strcmp(v, "*") == 0;
    return ok;
}

void job_preemptable_inherit(const json_t *job_annotations, struct job *job)
{
    const char *v = json_string_value(json_object_get(job_annotations, PREEMPTABLE_ANNOTATION));
    if (!v || strcmp(v, "true") != 0)
        return;
    for (int t = 0; t < job->ntasks; t++) {
        const json_t *ann = json_object_get(json_object_get(job_task_template(job, t), "metadata"), "annotations");
        if (!json_object_get(ann, PREEMPTABLE_ANNOTATION))
            job->tasks[t].preemptable = true;
    }
}
