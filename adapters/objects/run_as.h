/* Tasks run as their submitter: seed 001's PodSecurityPolicy, which forces the user's uid and gid on
 * every pod. A manifest asking for another user or group is refused; otherwise the ids are written
 * into every pod template, so the stored job carries them across restarts. Pure. */
#ifndef CALDERA_RUN_AS_H
#define CALDERA_RUN_AS_H

#include <stdint.h>

#include "adapters/intake/fields.h"
#include "model/job.h"

/* Whom a job's tasks must run as: the user's name (for messages) and its ids (both >= 0). */
struct run_as {
    const char *user;
    int32_t uid, gid;
};

/* Checks the securityContext of every task's pod and containers: each runAsUser other than uid and
 * each runAsGroup other than gid is a FieldValueForbidden cause (`spec.tasks[0].template.spec.
 * securityContext.runAsUser: Forbidden: the token's user alice runs as uid 1001, not 0`), located
 * through f->doc (which may be NULL), and together they make a 403 Forbidden naming kind_group and
 * the job (`jobs.batch.volcano.sh "x" is forbidden: [...]`). When none asks for another, sets
 * runAsUser and runAsGroup in every task's pod securityContext and the tasks' run_as_uid/gid.
 * Returns 0, or -1 with the Status in f->st (the job is then unchanged). */
int run_as_enforce(struct fields *f, struct job *job, const struct run_as *who, const char *kind_group);

#endif
