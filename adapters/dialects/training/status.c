/* A training request's status, read from the Volcano Job it became: the job's phase and why, when it
 * started and finished, its restarts, and each task's replicas by phase. */
#include <string.h>

#include "adapters/dialects/training/training.h"

static void copy_member(json_t *to, const char *to_key, const json_t *from, const char *from_key)
{
    json_t *v = json_object_get(from, from_key);
    if (v && !json_is_null(v))
        json_object_set(to, to_key, v);
}

static bool phase_final(const char *phase)
{
    return phase &&
           (strcmp(phase, "Completed") == 0 || strcmp(phase, "Failed") == 0 || strcmp(phase, "Terminated") == 0);
}

/* {pending, running, succeeded, failed} of one task from taskStatusCount's {phase: {Pending: n, ...}}. */
static json_t *task_counts(const json_t *counts)
{
    const json_t *phases = json_object_get(counts, "phase");
    static const char *const names[][2] = {
        {"pending", "Pending"}, {"running", "Running"}, {"succeeded", "Succeeded"}, {"failed", "Failed"}};
    json_t *out = json_object();
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        json_object_set_new(out, names[i][0], json_integer(json_integer_value(json_object_get(phases, names[i][1]))));
    return out;
}

json_t *training_render_status(const json_t *source, const json_t *volcano_job)
{
    (void)source;
    const json_t *vstatus = json_object_get(volcano_job, "status");
    const json_t *state = json_object_get(vstatus, "state");
    json_t *status = json_object();
    if (!status)
        return NULL;
    copy_member(status, "phase", state, "phase");
    copy_member(status, "reason", state, "reason");
    copy_member(status, "message", state, "message");
    copy_member(status, "job", json_object_get(volcano_job, "metadata"), "name");
    copy_member(status, "startTime", vstatus, "runningSince");
    if (phase_final(json_string_value(json_object_get(state, "phase"))))
        copy_member(status, "completionTime", state, "lastTransitionTime");
    json_object_set_new(status, "retryCount", json_integer(json_integer_value(json_object_get(vstatus, "retryCount"))));
    const json_t *counts = json_object_get(vstatus, "taskStatusCount");
    const json_t *tasks = json_object_get(json_object_get(volcano_job, "spec"), "tasks");
    json_t *out = json_object();
    size_t i;
    const json_t *task;
    json_array_foreach(tasks, i, task)
    {
        const char *name = json_string_value(json_object_get(task, "name"));
        if (name)
            json_object_set_new(out, name, task_counts(json_object_get(counts, name)));
    }
    json_object_set_new(status, "tasks", out);
    return status;
}
