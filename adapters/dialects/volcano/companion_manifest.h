/* A job's companions for a real Kubernetes cluster (`-o manifest`): each companion a core/v1 Pod beside
 * the task it serves, a ClusterIP Service and a networking.k8s.io/v1 Ingress on its proxy path, all
 * owned by the Volcano Job; with the Job, a v1 List. Pure and byte-stable, like manifest.h.
 *
 * The token is never in the manifest: {token} becomes $(CALDERA_COMPANION_TOKEN), an environment
 * variable read from the Secret "<companion>-token" (key "token") that the backend creates; {token_file}
 * is that Secret mounted at COMPANION_MANIFEST_TOKEN_DIR. The loopback address in a command (the local
 * companions bind 127.0.0.1) becomes 0.0.0.0: a pod has its own network, reached through its Service. */
#ifndef CALDERA_COMPANION_MANIFEST_H
#define CALDERA_COMPANION_MANIFEST_H

#include <jansson.h>
#include <stdint.h>

#include "model/companion.h"
#include "model/job.h"

#define MANIFEST_COMPANIONS_ANNOTATION "caldera.io/companions"
#define MANIFEST_COMPANION_TASK_ANNOTATION "caldera.io/companion-task"
#define COMPANION_MANIFEST_TOKEN_ENV "CALDERA_COMPANION_TOKEN"
#define COMPANION_MANIFEST_TOKEN_DIR "/var/run/caldera/companion"
#define COMPANION_MANIFEST_LABEL "caldera.io/companion"
#define COMPANION_MANIFEST_TYPE_LABEL "caldera.io/companion-type"
#define COMPANION_MANIFEST_NAME_MAX 320

/* One companion to render: its name ("<job>-<type>", as the controller names Companions), its type,
 * the task it serves (an index into job->tasks) and the replica. */
struct companion_manifest_item {
    char name[COMPANION_MANIFEST_NAME_MAX];
    const struct companion_type *type;
    int32_t task, index;
};

struct companion_manifest_set {
    struct companion_manifest_item *items;
    int n;
};

/* Adds a companion unless one of that name is there already (the first asked for wins). Returns 0, or
 * -1 when out of memory. */
int companion_manifest_add(struct companion_manifest_set *set, const char *name, const struct companion_type *type,
                           int32_t task, int32_t index);
/* The companions the job's annotations ask for (caldera.io/companions, comma-separated, on the task of
 * caldera.io/companion-task or the first, replica 0), in their order; types not in `types` are
 * skipped (admission refused them). Returns 0, or -1 when out of memory. */
int companion_manifest_requested(const struct job *job, const struct companion_types *types,
                                 struct companion_manifest_set *set);
void companion_manifest_set_free(struct companion_manifest_set *set);

/* The job for a real cluster: without companions the Job alone (manifest_job()); with them a v1 List
 * of the Job and each companion's Pod, Service and Ingress, in the set's order, each with an
 * ownerReference to the Job of uid owner_uid (the cluster's; NULL: job->uid). A new reference, or
 * NULL when out of memory. */
json_t *manifest_job_with_companions(const struct job *job, const struct companion_manifest_set *set,
                                     const char *owner_uid);

/* --- one companion's objects (companion_pod.c, companion_manifest.c) -------------------------------- */

/* The ownerReferences array naming the job. */
json_t *companion_manifest_owner(const struct job *job, const char *owner_uid);
/* The three labels of every object of a companion. */
json_t *companion_manifest_labels(const struct job *job, const struct companion_manifest_item *item);
/* The container port (the type's, or COMPANION_DEFAULT_PORT). */
int companion_manifest_port(const struct companion_type *type);
/* The Pod; NULL when out of memory or a template does not expand (an admission would have refused it). */
json_t *companion_manifest_pod(const struct job *job, const struct companion_manifest_item *item,
                               const char *owner_uid);

#endif
