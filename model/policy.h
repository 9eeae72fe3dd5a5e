/* Volcano's lifecycle policies: which event (or exit code) triggers which action, at the job or at
 * a task, optionally after a timeout. Also the actions Commands carry. */
#ifndef CALDERA_POLICY_H
#define CALDERA_POLICY_H

#include <stdbool.h>
#include <stdint.h>

enum job_event {
    EV_ANY, /* "*" */
    EV_POD_FAILED,
    EV_POD_EVICTED,
    EV_POD_PENDING,
    EV_UNKNOWN,
    EV_TASK_COMPLETED,
    EV_TASK_FAILED,
    EV_JOB_UPDATED,
    /* internal: never in a policy */
    EV_POD_RUNNING,
    EV_OUT_OF_SYNC,
    EV_COMMAND_ISSUED,
    EV_COUNT
};

enum job_action {
    ACT_SYNC_JOB, /* internal: what no policy asks for */
    ACT_ABORT_JOB,
    ACT_RESTART_JOB,
    ACT_RESTART_TASK,
    ACT_RESTART_POD,
    ACT_TERMINATE_JOB,
    ACT_COMPLETE_JOB,
    ACT_RESUME_JOB,
    ACT_OPEN_QUEUE, /* Commands on queues */
    ACT_CLOSE_QUEUE,
    ACT_COUNT
};

struct lifecycle_policy {
    uint32_t events; /* bit (1u << enum job_event); EV_ANY's bit for "*" */
    bool has_exit_code;
    int32_t exit_code; /* never 0 (refused at admission) */
    enum job_action action;
    int64_t timeout_ms; /* 0: at once */
};

const char *job_event_name(enum job_event e);
const char *job_action_name(enum job_action a);
/* Inverse of the *_name functions, -1 when unknown. */
int job_event_parse(const char *s);
int job_action_parse(const char *s);
/* True for the actions a user may put in a policy or a Command about a job. */
bool job_action_for_jobs(enum job_action a);

/* Volcano's choice: the first policy (task-level ones before the job's) whose events contain the
 * event or "*", or whose exitCode equals the exit code. Returns it, or NULL (then SyncJob). */
const struct lifecycle_policy *policy_choose(const struct lifecycle_policy *task_policies, int ntask,
                                             const struct lifecycle_policy *job_policies, int njob,
                                             enum job_event event, bool has_exit_code, int32_t exit_code);

#endif
