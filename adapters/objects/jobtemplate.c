/* Volcano's JobTemplate in and out: metadata and a Volcano JobSpec kept as the template of a flow's
 * jobs, rendered with status.jobDependsOnList; the spec's own checks are a Volcano Job's. */
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/jobflow.h"
#include "adapters/objects/object_meta.h"

static const struct object_type template_type = {FLOW_API_VERSION, "JobTemplate", "jobtemplates", FLOW_GROUP};
static const char *const top_fields[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};

static struct job_template *build(struct fields *f, json_t *root, const char *url_ns)
{
    json_t *meta = NULL, *spec = NULL;
    struct job_template *t = calloc(1, sizeof *t);
    if (!t) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return NULL;
    }
    field_check_known(f, root, "", top_fields);
    if (object_meta_parse(f, root, url_ns, &meta, &t->resource_version)) {
        const char *name = json_string_value(json_object_get(meta, "name"));
        if (!(t->name = strdup(name ? name : "")) || !(t->ns = strdup(url_ns)))
            api_fail(f->st, 500, "InternalError", "out of memory");
    }
    if (f->st->code == 0 && field_object(f, root, "spec", "spec", true, &spec) && spec &&
        !json_is_array(json_object_get(spec, "tasks")))
        field_error(f, spec, "tasks", "spec.tasks", "FieldValueRequired", "Required value: a Volcano Job needs tasks");
    if (f->st->code != 0 || f->st->ncauses > 0 || !meta || !spec) {
        json_decref(meta);
        job_template_free(t);
        return NULL;
    }
    if (!(t->manifest = json_pack("{s:o, s:O}", "metadata", meta, "spec", spec))) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        job_template_free(t);
        return NULL;
    }
    return t;
}

int jobtemplate_from_doc(const struct intake_doc *doc, const char *url_ns, struct job_template **out,
                         struct api_status *st)
{
    *out = NULL;
    if (!json_is_object(doc->root))
        return api_fail(st, 400, "BadRequest", "the body must be a JobTemplate object");
    if (object_check_type(doc->root, &template_type, st) != 0)
        return -1;
    struct fields f = {doc, st, false};
    *out = build(&f, doc->root, url_ns);
    return *out ? 0 : object_fail_invalid(st, &template_type, doc->root);
}

json_t *jobtemplate_render(const struct job_template *t, const json_t *depends_on)
{
    json_t *meta = object_meta_render(json_object_get(t->manifest, "metadata"), t->uid, t->created_ms,
                                      t->resource_version);
    json_t *status = json_object();
    if (depends_on && json_array_size(depends_on) > 0)
        json_object_set(status, "jobDependsOnList", (json_t *)depends_on);
    return json_pack("{s:s, s:s, s:o, s:O, s:o}", "apiVersion", FLOW_API_VERSION, "kind", "JobTemplate", "metadata",
                     meta, "spec", json_object_get(t->manifest, "spec"), "status", status);
}

char *jobtemplate_to_store_json(const struct job_template *t) { return object_store_text(jobtemplate_render(t, NULL)); }

struct job_template *jobtemplate_from_store_json(const char *json)
{
    json_t *root = json_loads(json, 0, NULL);
    if (!root)
        return NULL;
    struct intake_doc doc = {.root = root};
    struct api_status st = {0};
    struct fields f = {&doc, &st, true};
    const char *ns = json_string_value(json_object_get(json_object_get(root, "metadata"), "namespace"));
    json_object_del(root, "status");
    struct job_template *t = build(&f, root, ns ? ns : "default");
    if (t)
        object_meta_restore(root, t->uid, &t->created_ms);
    json_decref(root);
    return t;
}

json_t *jobtemplate_job_document(const struct job_template *t, const char *name)
{
    return json_pack("{s:s, s:s, s:{s:s, s:s}, s:o}", "apiVersion", "batch.volcano.sh/v1alpha1", "kind", "Job",
                     "metadata", "name", name, "namespace", t->ns, "spec",
                     json_deep_copy(json_object_get(t->manifest, "spec")));
}
