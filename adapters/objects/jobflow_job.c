/* The Volcano Job a JobFlow's step creates: its template's spec, the step's patch merged in, the
 * labels Volcano puts on it, and the outputs of the steps it depends on as environment variables. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "adapters/objects/jobflow.h"
#include "adapters/objects/strategic_merge.h"

void jobflow_input_env_name(const char *step, const char *output, char *out, size_t len)
{
    int n = snprintf(out, len, "CALDERA_INPUT_%s_%s", step, output);
    for (size_t i = 0; n > 0 && i < len && out[i]; i++)
        out[i] = isalnum((unsigned char)out[i]) ? (char)toupper((unsigned char)out[i]) : '_';
}

/* Appends {name, value} to the env of every container and init container of every task. */
static void add_env(json_t *spec, const char *name, const char *value)
{
    static const char *const lists[] = {"containers", "initContainers"};
    json_t *task;
    size_t i;
    json_array_foreach(json_object_get(spec, "tasks"), i, task)
    {
        json_t *pod = json_object_get(json_object_get(task, "template"), "spec");
        for (size_t l = 0; l < 2; l++) {
            json_t *c;
            size_t k;
            json_array_foreach(json_object_get(pod, lists[l]), k, c)
            {
                json_t *env = json_object_get(c, "env");
                if (!json_is_array(env))
                    json_object_set_new(c, "env", env = json_array());
                json_array_append_new(env, json_pack("{s:s, s:s}", "name", name, "value", value));
            }
        }
    }
}

static void add_inputs(const struct job_flow *f, const struct flow_step *s, json_t *spec)
{
    for (int t = 0; t < s->ntargets; t++) {
        int d = s->target_idx ? s->target_idx[t] : -1;
        const json_t *values = d >= 0 ? f->steps[d].values : NULL;
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)values, key, v)
        {
            char name[256];
            jobflow_input_env_name(f->steps[d].name, key, name, sizeof name);
            if (json_is_string(v))
                add_env(spec, name, json_string_value(v));
        }
    }
}

json_t *jobflow_job_document(const struct job_flow *f, const struct flow_step *s, const struct job_template *t,
                             struct api_status *st)
{
    const json_t *base = json_object_get(t->manifest, "spec");
    const json_t *patch = NULL;
    json_t *flows = json_object_get(json_object_get(f->manifest, "spec"), "flows");
    json_t *flow;
    size_t i;
    json_array_foreach(flows, i, flow)
    {
        const char *n = json_string_value(json_object_get(flow, "name"));
        if (n && strcmp(n, s->name) == 0) {
            patch = json_object_get(json_object_get(flow, "patch"), "spec");
            break;
        }
    }
    json_t *spec = patch ? strategic_merge_patch(base, patch, st) : json_deep_copy(base);
    if (!spec)
        return NULL;
    add_inputs(f, s, spec);
    char name[160], created_by[320];
    jobflow_job_name(f, s, name, sizeof name);
    snprintf(created_by, sizeof created_by, "%s.%s", f->ns, s->name);
    json_t *doc = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s, s:s}, s:{s:s}}, s:o}", "apiVersion",
                            "batch.volcano.sh/v1alpha1", "kind", "Job", "metadata", "name", name, "namespace", f->ns,
                            "labels", FLOW_CREATED_BY_TEMPLATE, created_by, FLOW_CREATED_BY_FLOW, f->name,
                            "annotations", FLOW_CREATED_BY_TEMPLATE, created_by, "spec", spec);
    if (!doc)
        api_fail(st, 500, "InternalError", "out of memory");
    return doc;
}
