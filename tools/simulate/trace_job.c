/* A Job document of a trace: Volcano's admission checks and defaults through adapters/volcano_job,
 * the simulator's annotations, and a stand-in command for containers that name only an image. */
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/dialects/volcano/job.h"
#include "common/strv.h"
#include "tools/simulate/trace_internal.h"

/* Never run: the controller only insists that a replica has a command before it starts it, and a
 * trace modelled on Volcano may give containers an image alone. */
#define STAND_IN_COMMAND "caldera-simulated"

/* generateName would pick a random name: the output would differ from run to run. */
static bool check_named(struct fields *f, const json_t *root)
{
    json_t *meta = json_object_get(root, "metadata");
    const json_t *name = json_object_get(meta, "name");
    if (!json_is_object(meta) || (json_is_string(name) && json_string_value(name)[0]) ||
        !json_object_get(meta, "generateName"))
        return true; /* the adapter reports the rest */
    field_error(f, meta, "generateName", "metadata.generateName", "FieldValueForbidden",
                "Forbidden: a trace names its jobs with metadata.name (a generated name would change from run to run)");
    return false;
}

static const char *namespace_of(const json_t *root, const struct trace_annotations *ann)
{
    const char *ns = json_string_value(json_object_get(json_object_get(root, "metadata"), "namespace"));
    if (ann->ns)
        return ann->ns; /* a different metadata.namespace is the adapter's error */
    return ns && *ns ? ns : "default";
}

int trace_load_job(const struct intake_doc *doc, struct trace_job *out, struct api_status *st)
{
    struct fields f = {doc, st};
    struct trace_annotations ann;
    *out = (struct trace_job){0};
    bool named = check_named(&f, doc->root);
    if (!trace_read_annotations(doc, true, &ann, st) || !named) {
        const char *name = json_string_value(json_object_get(json_object_get(doc->root, "metadata"), "name"));
        return api_fail_invalid(st, "Job.batch.volcano.sh", name ? name : "");
    }
    struct job *job;
    if (volcano_job_from_doc(doc, namespace_of(doc->root, &ann), &job, st) != 0)
        return -1;
    for (int t = 0; t < job->ntasks; t++) {
        if (!job->tasks[t].argv && strv_push(&job->tasks[t].argv, STAND_IN_COMMAND) != 0) {
            job_free(job);
            return api_fail(st, 500, "InternalError", "out of memory");
        }
    }
    *out = (struct trace_job){job, ann.arrival_ms, ann.duration_ms, ann.exit_code, 0};
    return 0;
}
