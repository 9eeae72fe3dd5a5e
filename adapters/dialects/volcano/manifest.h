/* A job as the batch.volcano.sh/v1alpha1 Job manifest a real Kubernetes cluster running Volcano
 * accepts (for the kube backend and `jobctl get job -o manifest`): byte-stable JSON. */
#ifndef CALDERA_MANIFEST_H
#define CALDERA_MANIFEST_H

#include <jansson.h>

#include "model/job.h"

/* The annotation that carries Caldera's own spec.autoMemoryScale, which Volcano's Job type lacks. */
#define MANIFEST_AUTO_MEMORY_SCALE_ANNOTATION "caldera.io/auto-memory-scale"

/* The manifest as an object: apiVersion, kind, metadata (name, namespace, labels, annotations only:
 * nothing the server assigns) and the spec as admitted, with Volcano's defaults written in. Fields
 * that are Caldera's own move to annotations. A new reference, or NULL when memory runs out. */
json_t *manifest_job(const struct job *job);
/* The same as text: keys sorted, two-space indent, a final newline; the same job always gives the
 * same bytes. The caller frees it; NULL when memory runs out. */
char *manifest_job_text(const struct job *job);
/* Any manifest (the Job, or the List with its companions: companion_manifest.h) in that form. */
char *manifest_text(const json_t *m);

#endif
