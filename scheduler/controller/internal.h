/* What the controller's files share, lowest layer first: recording, paths, disk full, the timers'
 * heap, replicas held and let go, their layout, the job state machine, policies, attempts starting
 * and ending. A file calls only into the sections above its own. Not for use outside
 * scheduler/controller. */
#ifndef CALDERA_CONTROLLER_INTERNAL_H
#define CALDERA_CONTROLLER_INTERNAL_H

#include "scheduler/controller/controller.h"

/* --- record.c: journal entries -------------------------------------------------------------------- */

/* Appends an entry with an event about an object of `job` (kind "Job", "Pod" or "PodGroup"),
 * stamps it with the next sequence number and makes that the job's resourceVersion. Returns the
 * entry so the caller can attach its row change, or NULL when memory ran out (logged). */
struct journal_entry *record_event(struct controller *ctl, enum journal_op op, struct job *job, const char *kind,
                                   const char *name, const char *from, const char *to, const char *reason,
                                   const char *fmt, ...) __attribute__((format(printf, 9, 10)));
/* The same for an object that belongs to no job (a Queue, a PriorityClass, a Node): the sequence
 * number also becomes *rv before the caller renders the stored row, so the row carries it. */
struct journal_entry *record_object_event(struct controller *ctl, enum journal_op op, const char *kind, const char *ns,
                                          const char *name, uint64_t *rv, const char *from, const char *to,
                                          const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 10, 11)));
/* The objects row of an OBJECT_PUT/OBJECT_DELETE entry: kind, namespace, name and (for a put) the
 * stored JSON, which it takes (freed when e is NULL). */
void record_object_row(struct journal_entry *e, const char *kind, const char *ns, const char *name, char *json);
/* Records the job's own phase change (event + stored status). */
void record_job_phase(struct controller *ctl, struct job *job, enum job_phase from, const char *reason,
                      const char *message);
/* The attempts row of replica `flat`'s current attempt, and its end ("outcome": what became of the
 * pod, see store/journal.h). */
void fill_attempt_row(struct journal_entry *e, const struct controller *ctl, const struct job *job, int flat);
void fill_attempt_end(struct journal_entry *e, const struct replica *r, const char *outcome);
/* A finished pod kept through a kill of its job: its last attempt moves to the new version. */
void record_attempt_carry(struct controller *ctl, struct job *job, int flat);

/* --- paths.c: volumes ----------------------------------------------------------------------------- */

/* Where each of the task's volumes lives (v->dir), decided once. Returns 0, or -1 out of memory. */
int controller_resolve_volumes(const struct controller *ctl, const struct job *job, struct task_spec *ts);
/* Removes the job's own volumes (its volumeClaim directories) as it goes. */
void controller_remove_job_volumes(const struct controller *ctl, const struct job *job);

/* --- disk_full.c ---------------------------------------------------------------------------------- */

/* Kubernetes' eviction wording, the start of every DiskFull message. */
#define DISK_FULL_WORDS "The node was low on resource: ephemeral-storage."
/* Whether a start failure's sentence ends in ENOSPC or EDQUOT (the runtime writes strerror's). */
bool disk_full_in_error(const char *why);
/* Whether the file system holding path has (nearly) no blocks left for unprivileged use: asked once
 * a task has exited non-zero, when a full disk is the likely cause. */
bool disk_full_at(const char *path);
/* Why no attempt may start now, or NULL: ctl->starts_held (the store cannot record), or the data
 * directory's file system is full (one statvfs: the store learns of a full disk only when a commit
 * fails, and a start before that would not be recorded either, so a crash would run it again). */
const char *controller_starts_held(const struct controller *ctl);
/* A failed job's message with the first DiskFull pod's message after it, when there is one. */
bool disk_full_job_detail(const struct job *job, const char *message, char *buf, size_t len);

/* --- timers.c: the heap --------------------------------------------------------------------------- */

void timer_arm(struct controller *ctl, struct job *job, const struct controller_timer *t);
/* Drops the job's timers: all of them (flat < 0), or the delayed actions of pod `flat` armed by
 * one of the events in event_mask. */
void timers_cancel(struct controller *ctl, struct job *job, int flat, uint32_t event_mask);
/* After a relayout of the job's replicas: timers follow their replica (old_to_new, old_total
 * entries); those of replicas that are gone are dropped. */
void timers_remap(struct controller *ctl, struct job *job, const int32_t *old_to_new, int32_t old_total);
/* Takes the earliest timer off the heap into *out when it is due at ctl->now_ms. */
bool timers_pop_due(struct controller *ctl, struct controller_timer *out);

/* --- replicas.c: holding and letting go ----------------------------------------------------------- */

/* Whether the job, or task `task` (-1: none), has lifecycle policies. */
static inline bool job_has_policies(const struct job *job, int task)
{
    return job->npolicies > 0 || (task >= 0 && job->tasks[task].npolicies > 0);
}
/* Binds replica `flat` to node, holding its requests there and in its queue, and as many of the
 * node's GPU devices as it asks for, exclusively: recorded_gpus when they are free (an adopted
 * attempt's), else the ones gpu_choose picks (0: choose); and gives them back. */
void replica_hold(struct controller *ctl, struct job *job, int flat, int node, uint64_t recorded_gpus);
/* Exclusive CPUs (cpus.c), for a bound replica of a Guaranteed task asking whole CPUs on a node under
 * the static CPU manager policy: an adopted one takes back its cgroup's cpuset, else numa_take
 * chooses; other live attempts of this machine's node keep to the shared pool. Released with the
 * replica's resources. */
void replica_hold_cpus(struct controller *ctl, struct job *job, int flat, bool adopted);
void replica_release_cpus(struct controller *ctl, struct job *job, int flat);
/* The cpuset an attempt of r gets on this machine's node under the static policy (its own CPUs, else
 * the shared pool) as cpulists; false when none is written. */
bool replica_cpuset(const struct controller *ctl, const struct replica *r, char *cpus, size_t cpus_len, char *mems,
                    size_t mems_len);
void replica_release(struct controller *ctl, struct job *job, int flat);
/* On a node with GPU devices, the bound replica's processes (its task, its companions) see its own
 * devices and no other, as the NVIDIA device plugin arranges: CUDA_VISIBLE_DEVICES and
 * NVIDIA_VISIBLE_DEVICES name them (indexes, numbered in PCI order as NVML numbers them, with
 * CUDA_DEVICE_ORDER=PCI_BUS_ID; or UUIDs with --gpu-visible-devices=uuid), and a replica asking for
 * none sees none ("" and "void"). Sets them in *env; returns 0, or -1 out of memory. */
int replica_gpu_env(const struct controller *ctl, const struct replica *r, char ***env);
/* A pod was created (Pending): PodPending policies arm their timeout. */
void job_pod_created(struct controller *ctl, struct job *job, int flat);
/* The pod's end after a stop the controller asked for (its phase, its resources given back).
 * Returns the event the caller raises (EV_COUNT: none); *outcome is the attempt's. */
enum job_event replica_end_stopped(struct controller *ctl, struct job *job, int flat, const char **outcome);
/* Asks a running replica to stop, remembering why; vanish: the pod is gone once it has exited (a
 * kill of its job). Never syncs the job nor raises an event: callers do. */
void replica_stop(struct controller *ctl, struct job *job, int flat, enum term_reason why, bool vanish);
/* The whole job was killed (RestartJob...) and a backend runs it with Caldera's policies: its engine job
 * is stopped even when no replica was left running to stop it, so it is sent again once Pending. */
void replicas_stop_engine_job(struct controller *ctl, struct job *job);
/* Takes a deleted job whose processes are all reaped out of the cluster and frees it. */
void job_release_if_done(struct controller *ctl, struct job *job);

/* --- layout.c ------------------------------------------------------------------------------------- */

/* Lays the job out for counts (a replica count per task) and tells the timers and the runtime
 * where each replica went. Returns 0, or -1 out of memory. */
int replicas_relayout(struct controller *ctl, struct job *job, const int32_t *counts);
/* A scale down lays the replicas out again once its extra pods are gone. Moves replicas: call it
 * only where no caller up the stack holds a flat index (an exit, the update itself). */
void job_finish_shrinks(struct controller *ctl, struct job *job);

/* --- job_state.c: SyncJob and the actions --------------------------------------------------------- */

/* Moves the job to a phase: status, transition time, event; a final phase arms the TTL. */
void job_set_phase(struct controller *ctl, struct job *job, enum job_phase to, const char *reason, const char *message);
/* Re-evaluates the job's phase by its phase's rule, creates the pods it misses, and follows with
 * the PodGroup's phase (Volcano's SyncJob). */
void job_sync(struct controller *ctl, struct job *job);
void podgroup_set_phase(struct controller *ctl, struct job *job, enum podgroup_phase to, const char *reason);
/* While a job is Pending, its status carries why it waits (reason Unschedulable), or nothing. */
void job_set_pending_reason(struct controller *ctl, struct job *job, const char *message);
/* ttlSecondsAfterFinished: a finished job's deletion, on the timers. */
void job_arm_ttl(struct controller *ctl, struct job *job);

/* Runs an action in the job's current phase (Volcano's state package), then syncs. task/flat name
 * the target of RestartTask/RestartPod (-1: none); why goes into events and the status message. */
void job_execute(struct controller *ctl, struct job *job, enum job_action action, int task, int flat, const char *why);
/* The same for a user's command: pods a job's own end left running (clean-pod-policy None) are stopped. */
void job_execute_command(struct controller *ctl, struct job *job, enum job_action action, const char *why);

/* Ends a Pending or Running job early by AbortJob, CompleteJob or TerminateJob (Volcano's kill), with a
 * reason and message of its own ("SessionIdle") that the final phase keeps too; else nothing. */
void job_end_early(struct controller *ctl, struct job *job, enum job_action action, const char *reason,
                   const char *message);

/* --- events.c: policies --------------------------------------------------------------------------- */

/* An event about the job (flat -1) or one of its pods: the matching policy's action, now or after its
 * timeout, or SyncJob when none matches. PodRunning cancels the pod's delayed actions. */
void job_raise(struct controller *ctl, struct job *job, enum job_event event, int flat, bool has_exit_code,
               int32_t exit_code);

/* --- launch.c, exits.c: attempts starting and ending ---------------------------------------------- */

/* Binds and starts replica `flat`; on failure it fails with StartError. */
void replica_start(struct controller *ctl, struct job *job, int flat, int node);
/* The back-off of a container restart in place is over: its next attempt (if the pod still waits). */
void replica_restart_after_backoff(struct controller *ctl, struct job *job, int flat, uint32_t attempt);
/* The pod born at `born` outlived its activeDeadlineSeconds: it is killed (its grace period, then
 * SIGKILL, as a deletion) and fails with reason DeadlineExceeded; PodFailed goes through the
 * policies (exits.c). Nothing happens when that pod is gone or finished meanwhile. */
void replica_deadline_exceeded(struct controller *ctl, struct job *job, int flat, uint32_t born);

/* --- restore_jobs.c: stored jobs read back -------------------------------------------------------- */

/* The job a stored row describes: its spec through the same reader as a submit, then its status; no
 * pod until its attempt rows are restored. NULL (logged) when the row does not parse. Touches nothing
 * shared: start-up runs it on the pool's helpers (and then keeps the manifest as text). */
struct job *restore_parse_job(const char *uid, const char *ns, const char *name, int64_t created_ms, uint64_t rv,
                              const char *spec_json, const char *status_json, const char *source_json);
/* job_manifest's reader (job_set_manifest_reader), set by controller_enable_waking: the kept text
 * parsed again as restore_parse_job parses it. Returns 0, or -1 (logged). */
int controller_read_kept_manifest(struct job *job);

#endif
