/* Lifecycle policies: the names Volcano spells, and its rule for which policy an event triggers
 * (job_controller_util.go's applyPolicies: task first, events or "*", else the exit code). */
#include "model/policy.h"

#include <stddef.h>
#include <string.h>

static const char *const event_names[EV_COUNT] = {
    "*",          "PodFailed",  "PodEvicted", "PodPending", "Unknown",       "TaskCompleted",
    "TaskFailed", "JobUpdated", "PodRunning", "OutOfSync",  "CommandIssued",
};

static const char *const action_names[ACT_COUNT] = {
    "SyncJob",      "AbortJob",    "RestartJob", "RestartTask", "RestartPod",
    "TerminateJob", "CompleteJob", "ResumeJob",  "OpenQueue",   "CloseQueue",
};

const char *job_event_name(enum job_event e) { return e < EV_COUNT ? event_names[e] : "?"; }
const char *job_action_name(enum job_action a) { return a < ACT_COUNT ? action_names[a] : "?"; }

int job_event_parse(const char *s)
{
    for (int i = 0; i < EV_COUNT; i++)
        if (strcmp(event_names[i], s) == 0)
            return i;
    return -1;
}

int job_action_parse(const char *s)
{
    for (int i = 0; i < ACT_COUNT; i++)
        if (strcmp(action_names[i], s) == 0)
            return i;
    return -1;
}

bool job_action_for_jobs(enum job_action a) { return a > ACT_SYNC_JOB && a <= ACT_RESUME_JOB; }

static const struct lifecycle_policy *first_match(const struct lifecycle_policy *p, int n, enum job_event event,
                                                  bool has_exit_code, int32_t exit_code)
{
    for (int i = 0; i < n; i++) {
        bool listed = p[i].events & (1u << event) || p[i].events & (1u << EV_ANY);
        if (listed && (event != EV_POD_PENDING || p[i].timeout_ms > 0)) /* PodPending only acts after a timeout */
            return &p[i];
        if (p[i].has_exit_code && has_exit_code && p[i].exit_code == exit_code)
            return &p[i];
    }
    return NULL;
}

const struct lifecycle_policy *policy_choose(const struct lifecycle_policy *task_policies, int ntask,
                                             const struct lifecycle_policy *job_policies, int njob,
                                             enum job_event event, bool has_exit_code, int32_t exit_code)
{
    const struct lifecycle_policy *p = first_match(task_policies, ntask, event, has_exit_code, exit_code);
    return p ? p : first_match(job_policies, njob, event, has_exit_code, exit_code);
}
