/* The PodGroup's minResources of a Volcano Job: the requests of its first minAvailable pods, or
 * what the annotation caldera.io/pod-group-min-resources asks for (Kubeflow's minResources). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "adapters/dialects/volcano/pod_group.h"
#include "adapters/intake/fields.h"

#define ANNOTATION_PATH "metadata.annotations[\"" VOLCANO_MIN_RESOURCES_ANNOTATION "\"]"

/* The requests of the first minAvailable replicas, task by task, as Volcano's job controller sums them.
 * Returns false when they add up to more than an int64 holds (the Job's validation refuses such
 * requests: spec.tasks names them). */
static bool computed_min(const struct job *job, struct resvec *out)
{
    int32_t left = job->min_available;
    memset(out, 0, sizeof *out);
    for (int t = 0; t < job->ntasks && left > 0; t++) {
        int32_t n = job->tasks[t].replicas < left ? job->tasks[t].replicas : left;
        for (int i = 0; i < RES_MAX; i++) {
            int64_t part;
            if (__builtin_mul_overflow(job->tasks[t].request.v[i], (int64_t)n, &part) ||
                __builtin_add_overflow(out->v[i], part, &out->v[i]))
                return false;
        }
        left -= n;
    }
    return true;
}

/* The annotation's text as a resource map: a compact JSON object of quantities ("4", 4, "8Gi").
 * Resources it names replace the computed ones; the others keep them. Returns 0, or -1 with why. */
static int read_map(const char *text, struct resvec *out, bool given[RES_MAX], char *why, size_t why_len)
{
    json_error_t err;
    json_t *map = json_loads(text, JSON_REJECT_DUPLICATES, &err);
    if (!json_is_object(map)) {
        snprintf(why, why_len,
                 "must be a JSON object of resource quantities such as {\"cpu\":\"4\",\"memory\":\"8Gi\"}");
        json_decref(map);
        return -1;
    }
    const char *name;
    json_t *v;
    int rc = 0;
    json_object_foreach(map, name, v)
    {
        int index = resource_index(name);
        char q[64];
        const char *reason = NULL;
        if (index < 0 || index == RES_PODS) {
            snprintf(why, why_len, "%s: no node offers this resource", name);
            rc = -1;
            break;
        }
        if (json_is_string(v))
            snprintf(q, sizeof q, "%s", json_string_value(v));
        else if (json_is_integer(v))
            snprintf(q, sizeof q, "%lld", (long long)json_integer_value(v));
        else
            q[0] = '\0';
        if (!q[0] || resource_parse(index, q, &out->v[index], &reason) != 0) {
            snprintf(why, why_len, "%s: invalid quantity \"%s\"%s%s", name, q, reason ? ": " : "",
                     reason ? reason : "");
            rc = -1;
            break;
        }
        given[index] = true;
    }
    json_decref(map);
    return rc;
}

static const char *annotation_text(const json_t *root)
{
    const json_t *ann = json_object_get(json_object_get(root, "metadata"), "annotations");
    return json_string_value(json_object_get(ann, VOLCANO_MIN_RESOURCES_ANNOTATION));
}

bool volcano_job_min_resources_check(struct fields *f, json_t *root, const struct job *job)
{
    const char *text = annotation_text(root);
    if (!text)
        return true;
    json_t *ann = json_object_get(json_object_get(root, "metadata"), "annotations");
    struct resvec computed, want = {{0}};
    bool given[RES_MAX] = {false};
    char why[256];
    if (read_map(text, &want, given, why, sizeof why) != 0) {
        field_invalid(f, ann, VOLCANO_MIN_RESOURCES_ANNOTATION, ANNOTATION_PATH, why);
        return false;
    }
    /* Less than the gang's own requests would enqueue the PodGroup without room for its
     * minAvailable pods, which then wait Pending holding the queue's share: refused. */
    if (!computed_min(job, &computed))
        return true; /* requests beyond counting: refused for spec.tasks */
    for (int i = 0; i < RES_MAX; i++) {
        if (!given[i] || want.v[i] >= computed.v[i])
            continue;
        char have[32], need[32];
        resource_format(i, want.v[i], have, sizeof have);
        resource_format(i, computed.v[i], need, sizeof need);
        snprintf(why, sizeof why,
                 "%s %s is less than %s, the requests of the job's minAvailable pods: minResources may raise the "
                 "PodGroup's minimum, not lower it",
                 resource_name(i), have, need);
        field_invalid(f, ann, VOLCANO_MIN_RESOURCES_ANNOTATION, ANNOTATION_PATH, why);
        return false;
    }
    return true;
}

void volcano_job_min_resources(struct job *job)
{
    computed_min(job, &job->pg.min_resources); /* the Job's validation has checked the sums */
    const char *text = json_string_value(json_object_get(job_annotations(job), VOLCANO_MIN_RESOURCES_ANNOTATION));
    struct resvec want = {{0}};
    bool given[RES_MAX] = {false};
    char why[256];
    if (!text || read_map(text, &want, given, why, sizeof why) != 0)
        return;                       /* checked at admission: a manifest that got here has a valid one or none */
    for (int i = 0; i < RES_MAX; i++) /* never below the computed one, even after a scale up */
        if (given[i] && want.v[i] > job->pg.min_resources.v[i])
            job->pg.min_resources.v[i] = want.v[i];
}
