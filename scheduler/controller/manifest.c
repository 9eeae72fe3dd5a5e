/* A job as a real cluster takes it (`jobctl get JOB -o manifest`, and what the Kubernetes backend
 * sends): the Volcano Job, with the companions it asks for and those attached to it since. */
#include <string.h>

#include "adapters/dialects/volcano/companion_manifest.h"
#include "adapters/dialects/volcano/manifest.h"
#include "scheduler/controller/companions.h"
#include "scheduler/controller/internal.h"

json_t *controller_job_manifest(const struct controller *ctl, const struct job *job, const char *owner_uid)
{
    const struct companion_set *live = ctl->companions;
    if (!live)
        return manifest_job(job);
    struct companion_manifest_set set = {0};
    int rc = companion_manifest_requested(job, live->types, &set);
    for (int i = 0; rc == 0 && i < live->n; i++) { /* attached later (POST companions), unless being removed */
        const struct companion *comp = live->items[i];
        const struct companion_type *type = companion_types_find(live->types, comp->type);
        if (type && !comp->remove_when_done && strcmp(comp->ns, job->ns) == 0 && strcmp(comp->job_uid, job->uid) == 0 &&
            comp->task < job->ntasks)
            rc = companion_manifest_add(&set, comp->name, type, comp->task, comp->index);
    }
    json_t *m = rc == 0 ? manifest_job_with_companions(job, &set, owner_uid) : NULL;
    companion_manifest_set_free(&set);
    return m;
}
