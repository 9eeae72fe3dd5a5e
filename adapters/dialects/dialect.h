/* The request formats besides the Volcano Job (Kubeflow's PyTorchJob/TFJob/MPIJob, KubeRay's RayJob,
 * Spark operator's SparkApplication, Caldera's training request): each becomes a Volcano Job document. */
#ifndef CALDERA_DIALECT_H
#define CALDERA_DIALECT_H

#include <jansson.h>
#include <stdbool.h>

#include "adapters/intake/fields.h"
#include "adapters/intake/intake.h"
#include "common/api_status.h"
#include "model/job.h"

#define DIALECT_MAX_PATH_MAPS 32

/* Where a part of the Volcano Job came from, so a cause the Volcano validation finds names the
 * user's own field: volcano "spec.tasks[1]" -> source "spec.pytorchReplicaSpecs.Worker" turns
 * "spec.tasks[1].template.spec.containers[0].image" into
 * "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].image". The longest matching prefix
 * wins; a match must end at a '.', a '[' or the end of the path. */
struct dialect_path_map {
    char volcano[FIELD_PATH_MAX];
    char source[FIELD_PATH_MAX];
};

/* What a translation produces. */
struct dialect_translation {
    /* A batch.volcano.sh/v1alpha1 Job document (owned). It may share subtrees with the source (the
     * pod templates, incref'd rather than copied): the positions of the user's YAML are keyed on
     * those nodes, so causes inside them keep their line and column. Shared subtrees must not be
     * changed by the translation. */
    json_t *volcano;
    int nmaps;
    struct dialect_path_map maps[DIALECT_MAX_PATH_MAPS];
};

/* What an update of a dialect's object changes in the job behind it. */
struct dialect_change {
    int64_t active_deadline_seconds; /* every pod's new activeDeadlineSeconds; 0: unchanged */
    char what[160];                  /* the change in words, for the event ("spec.duration 8h -> 10h") */
};

struct dialect {
    const char *group;   /* "kubeflow.org" */
    const char *version; /* "v1" */
    const char *kind;    /* "PyTorchJob" */
    const char *plural;  /* "pytorchjobs": the path /apis/{group}/{version}/namespaces/{ns}/{plural} */
    /* Checks the object (every problem a cause in f->st, with its path in the source's own terms and
     * its position through f->doc) and builds the Volcano Job. apiVersion and kind are already
     * checked; metadata.name is the source's and the Volcano Job's. The translation may write the
     * dialect's own defaults into source (as its admission would); source is what GET returns,
     * with status. ns is the request's namespace. Returns 0, or -1 with causes or a Status in f->st
     * (then out holds nothing). */
    int (*translate)(struct fields *f, json_t *source, const char *ns, struct dialect_translation *out);
    /* The status in the dialect's shape, read from the rendered Volcano Job (metadata and status as
     * volcano_job_render gives them: status.state.phase/reason/message/lastTransitionTime,
     * runningSince, retryCount, taskStatusCount{task:{phase:{Pending:n,...}}}, pending/running/...).
     * source is the stored object. Returns a new object, or NULL for "no status" (out of memory). */
    json_t *(*render_status)(const json_t *source, const json_t *volcano_job);
    /* A PUT (updated: the whole new object) or a merge PATCH (updated: the stored object with the patch
     * applied) of an object of this dialect. Only what the dialect lets change may differ from stored;
     * anything else is a 422 whose cause names the field ("field is immutable"). updated may be
     * normalized here: it becomes the stored object. Returns 0 with *out, or -1 with the Status in st.
     * NULL: the dialect's objects cannot be changed (405). */
    int (*update)(const json_t *stored, json_t *updated, struct dialect_change *out, struct api_status *st);
    /* true: a POST is answered with the Volcano Job it became (the training request), not with the
     * object in its own shape. */
    bool answer_as_volcano;
    /* discovery's short names of the kind, space-separated ("sparkapp"); NULL: none */
    const char *short_names;
};

/* Every dialect, NULL-terminated. */
extern const struct dialect *const dialects[];

/* The dialect a path names ("kubeflow.org", "v1", "pytorchjobs"), or NULL. */
const struct dialect *dialect_by_plural(const char *group, const char *version, const char *plural);
/* The dialect of a document's apiVersion ("kubeflow.org/v1") and kind, or NULL (also for a
 * Volcano Job). */
const struct dialect *dialect_by_kind(const char *api_version, const char *kind);
/* The dialect a stored source object belongs to (its apiVersion and kind), or NULL. */
const struct dialect *dialect_of_source(const json_t *source);

/* A document posted to dialect d's path (d NULL: the Volcano Job path) into a job: the dialect's
 * checks and translation, then the Volcano Job's own validation and defaults, with every cause's path
 * put back in the source's terms. On success (*out)->source holds the source object (NULL for a
 * Volcano Job). url_ns is the namespace from the path. Returns 0 or -1 with the Status in st. */
int dialect_job_from_doc(const struct dialect *d, const struct intake_doc *doc, const char *url_ns, struct job **out,
                         struct api_status *st);

/* The same, keeping the translation's path maps in keep (its volcano member stays NULL) for
 * dialect_restate_status(). */
int dialect_job_from_doc_keep(const struct dialect *d, const struct intake_doc *doc, const char *url_ns,
                              struct job **out, struct api_status *st, struct dialect_translation *keep);
/* A Status the core gave about the Volcano Job behind a dialect's object (admission: a queue or
 * PriorityClass not found, the name taken), said in the dialect's words: causes on the user's own
 * fields and lines (doc is the posted document, keep what dialect_job_from_doc_keep kept), the
 * object's kind and group named; a 403 with causes (run_as_enforce's) likewise. */
void dialect_restate_status(const struct dialect *d, const struct intake_doc *doc,
                            const struct dialect_translation *keep, struct api_status *st);

/* The object as its dialect shows it: the stored source with the Volcano Job's metadata (uid,
 * resourceVersion, creationTimestamp, namespace) and the dialect's status. A new reference, or NULL. */
json_t *dialect_render(const struct dialect *d, const json_t *source, const json_t *volcano_job);

/* For translators: appends a path map (silently ignored past DIALECT_MAX_PATH_MAPS). */
void dialect_map_path(struct dialect_translation *t, const char *volcano, const char *source);

#endif
