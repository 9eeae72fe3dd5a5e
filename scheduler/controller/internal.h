/* What the controller's files share: recording changes as journal entries and phase changes,
 * and the job state machine. Not for use outside scheduler/controller. */
#ifndef CALDERA_CONTROLLER_INTERNAL_H
#define CALDERA_CONTROLLER_INTERNAL_H

#include "scheduler/controller/controller.h"

/* Appends an entry with an event about an object of `job` (kind "Job", "Pod" or "PodGroup"),
 * stamps it with the next sequence number and makes that the job's resourceVersion. Returns the
 * entry so the caller can attach its row change, or NULL when memory ran out (logged). */
struct journal_entry *record_event(struct controller *ctl, enum journal_op op, struct job *job, const char *kind,
                                   const char *name, const char *from, const char *to, const char *reason,
                                   const char *fmt, ...) __attribute__((format(printf, 9, 10)));

/* Records the job's own phase change (event + stored status). */
void record_job_phase(struct controller *ctl, struct job *job, enum job_phase from, const char *reason,
                      const char *message);

/* Moves the job to a phase: status, transition time, event. */
void job_set_phase(struct controller *ctl, struct job *job, enum job_phase to, const char *reason, const char *message);
/* Re-evaluates the job's phase and its PodGroup's after replica changes (Volcano's SyncJob). */
void job_sync(struct controller *ctl, struct job *job);
void podgroup_set_phase(struct controller *ctl, struct job *job, enum podgroup_phase to, const char *reason);
/* While a job is Pending, its status carries why it waits (reason Unschedulable), or nothing. */
void job_set_pending_reason(struct controller *ctl, struct job *job, const char *message);

/* Starts replica `flat` of job on node; on failure the replica fails with StartError. */
void replica_start(struct controller *ctl, struct job *job, int flat, int node);
/* Asks a running replica to stop, remembering why (TERM_SHUTDOWN, TERM_DELETED, TERM_STOPPED). */
void replica_stop(struct controller *ctl, struct job *job, int flat, enum term_reason why);

/* Takes a deleted job whose processes are all reaped out of the cluster and frees it. */
void job_release_if_done(struct controller *ctl, struct job *job);

#endif
