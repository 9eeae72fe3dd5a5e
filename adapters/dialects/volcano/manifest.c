/* Rendering a job as the manifest a real Volcano cluster accepts: the admitted object minus what the
 * server assigns, Caldera's own fields moved to annotations, printed in one canonical form. */
#include "adapters/dialects/volcano/manifest.h"

#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"

/* The metadata a client may send: a real API server assigns the rest. */
static const char *const client_metadata[] = {"name", "namespace", "labels", "annotations"};

static json_t *client_meta(const json_t *meta, const char *ns)
{
    json_t *out = json_object();
    for (size_t i = 0; out && i < sizeof client_metadata / sizeof *client_metadata; i++) {
        json_t *v = json_object_get(meta, client_metadata[i]);
        if (v)
            json_object_set_new(out, client_metadata[i], json_deep_copy(v));
    }
    if (out)
        json_object_set_new(out, "namespace", json_string(ns));
    return out;
}

/* Moves spec.autoMemoryScale (seed 000's extension) into an annotation: Volcano's Job type has no such
 * field, and a cluster with a structural schema would drop it. */
static int move_extensions(json_t *meta, json_t *spec)
{
    json_t *ams = json_object_get(spec, "autoMemoryScale");
    if (!ams)
        return 0;
    char *text = json_dumps(ams, JSON_COMPACT | JSON_SORT_KEYS);
    json_t *annotations = json_object_get(meta, "annotations");
    if (!annotations) {
        annotations = json_object();
        json_object_set_new(meta, "annotations", annotations);
    }
    int rc = text && annotations
                 ? json_object_set_new(annotations, MANIFEST_AUTO_MEMORY_SCALE_ANNOTATION, json_string(text))
                 : -1;
    free(text);
    json_object_del(spec, "autoMemoryScale");
    return rc;
}

json_t *manifest_job(const struct job *job)
{
    json_t *meta = client_meta(json_object_get(job_manifest(job), "metadata"), job->ns);
    json_t *spec = json_deep_copy(json_object_get(job_manifest(job), "spec"));
    if (!meta || !spec || move_extensions(meta, spec) != 0) {
        json_decref(meta);
        json_decref(spec);
        return NULL;
    }
    return json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", VOLCANO_JOB_API_VERSION, "kind", "Job", "metadata", meta,
                     "spec", spec);
}

char *manifest_job_text(const struct job *job)
{
    json_t *m = manifest_job(job);
    char *text = m ? manifest_text(m) : NULL;
    json_decref(m);
    return text;
}

char *manifest_text(const json_t *m)
{
    char *body = json_dumps(m, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    if (!body)
        return NULL;
    size_t n = strlen(body);
    char *text = realloc(body, n + 2);
    if (!text) {
        free(body);
        return NULL;
    }
    text[n] = '\n';
    text[n + 1] = '\0';
    return text;
}
