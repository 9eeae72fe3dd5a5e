/* The controller's side of the backends (remote.c): jobs a Kubernetes or Slurm engine runs, sent whole
 * once admitted, their pods and attempts mirrored from what the engine reports. */
#ifndef CALDERA_CONTROLLER_REMOTE_H
#define CALDERA_CONTROLLER_REMOTE_H

#include <stdbool.h>

#include "common/api_status.h"
#include "model/job.h"
#include "model/policy.h"

struct controller;

/* Where a job a backend runs stands with its engine (job->remote_state). */
enum remote_state {
    REMOTE_UNSENT,   /* waits to be sent (admission, or a retry after a failed send) */
    REMOTE_SENDING,  /* handed to the backend's thread; SENT or SEND_FAILED to come */
    REMOTE_SENT,     /* on the engine: job->remote_ref names it */
    REMOTE_STOPPING, /* its attempts are being stopped (a restart, an abort): sent again once Pending */
    REMOTE_REMOVING, /* deleted here; the engine is removing it */
};

/* Volcano on the engine runs the job's policies and phases; Caldera mirrors them. */
bool remote_mirrors_phase(const struct controller *ctl, const struct job *job);
/* The job was deleted: what was sent is removed from the engine. */
void remote_job_deleted(struct controller *ctl, struct job *job);
/* A Command on a job a backend runs. Kubernetes (Volcano runs the policies): AbortJob and ResumeJob go
 * to the engine as Commands (0), others are refused (-1, st). Slurm: AbortJob of a running job and
 * ResumeJob of a job it suspended are Slurm's suspend and resume (0); any other action is Caldera's own
 * (1), as for a local job. */
int remote_command(struct controller *ctl, struct job *job, enum job_action action, struct api_status *st);

#endif
