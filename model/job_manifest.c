/* A job's manifest and its tasks' templates, parsed trees or, for a job restored and not read since,
 * the stored text: parsed on first read through the reader the storing dialect set. */
#include <stdlib.h>

#include "model/job.h"

/* Set once at start-up, before any thread reads jobs. */
static job_manifest_reader manifest_reader;

void job_set_manifest_reader(job_manifest_reader read) { manifest_reader = read; }

json_t *job_manifest(const struct job *job)
{
    struct job *j = (struct job *)job; /* the tree is a cache of the text: reading it changes nothing */
    if (!j->manifest_tree && j->manifest_text && manifest_reader && manifest_reader(j) == 0) {
        free(j->manifest_text);
        j->manifest_text = NULL;
        /* kept_annotations stays until the job goes: a string read from it before this parse (a
         * plugin's, a companion list being walked) must stay valid after it */
    }
    return j->manifest_tree;
}

json_t *job_task_template(const struct job *job, int t)
{
    if (t < 0 || t >= job->ntasks)
        return NULL;
    if (!job->tasks[t].template_tree && job->manifest_text)
        job_manifest(job);
    return job->tasks[t].template_tree;
}

static json_t *tree_annotations(const json_t *manifest)
{
    return json_object_get(json_object_get(manifest, "metadata"), "annotations");
}

const json_t *job_annotations(const struct job *job)
{
    return job->manifest_tree ? tree_annotations(job->manifest_tree) : job->kept_annotations;
}

int job_keep_manifest_as_text(struct job *job, char *text)
{
    if (!text || !job->manifest_tree) {
        free(text);
        return -1;
    }
    job->kept_annotations = json_incref(tree_annotations(job->manifest_tree));
    json_decref(job->manifest_tree);
    job->manifest_tree = NULL;
    for (int t = 0; t < job->ntasks; t++) {
        json_decref(job->tasks[t].template_tree);
        job->tasks[t].template_tree = NULL;
    }
    job->manifest_text = text;
    return 0;
}
