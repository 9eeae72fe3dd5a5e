/* A Kubeflow training job's status (JobStatus: conditions, replicaStatuses, startTime, completionTime)
 * read from the Volcano Job it became, as the training-operator would have written it. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "adapters/dialects/kubeflow/kubeflow.h"

enum kf_condition { KF_CREATED, KF_RUNNING, KF_RESTARTING, KF_SUCCEEDED, KF_FAILED };

static const char *const condition_names[] = {"Created", "Running", "Restarting", "Succeeded", "Failed"};

/* The condition a Volcano phase reads as. A phase on its way to an end reads as that end already, as
 * Kubeflow marks a job Succeeded once its master has, while it stops the rest. */
static enum kf_condition condition_of(const char *phase, bool *finished)
{
    static const struct {
        const char *phase;
        enum kf_condition condition;
        bool finished;
    } phases[] = {
        {"Pending", KF_CREATED, false},      {"Running", KF_RUNNING, false},    {"Restarting", KF_RESTARTING, false},
        {"Completing", KF_SUCCEEDED, false}, {"Completed", KF_SUCCEEDED, true}, {"Terminating", KF_FAILED, false},
        {"Terminated", KF_FAILED, true},     {"Aborting", KF_FAILED, false},    {"Aborted", KF_FAILED, true},
        {"Failed", KF_FAILED, true},
    };
    for (size_t i = 0; phase && i < sizeof phases / sizeof *phases; i++) {
        if (strcmp(phase, phases[i].phase) == 0) {
            *finished = phases[i].finished;
            return phases[i].condition;
        }
    }
    *finished = false;
    return KF_CREATED;
}

static json_t *condition(const char *kind, enum kf_condition type, bool status, const char *message, json_t *time)
{
    char reason[64];
    snprintf(reason, sizeof reason, "%s%s", kind, condition_names[type]);
    json_t *c = json_pack("{s:s, s:s, s:s, s:s}", "type", condition_names[type], "status", status ? "True" : "False",
                          "reason", reason, "message", message);
    if (time && !json_is_null(time)) {
        json_object_set(c, "lastUpdateTime", time);
        json_object_set(c, "lastTransitionTime", time);
    }
    return c;
}

/* A pod phase's count of one task in taskStatusCount. */
static int64_t task_count(const json_t *counts, const char *task, const char *phase)
{
    return json_integer_value(json_object_get(json_object_get(json_object_get(counts, task), "phase"), phase));
}

static void set_count(json_t *obj, const char *key, int64_t n)
{
    if (n > 0) /* Kubeflow's omitempty */
        json_object_set_new(obj, key, json_integer(n));
}

/* {Master: {active, succeeded, failed}} for each replica type of the source, and a clause naming the
 * failed ones ("1 Worker replica(s)") for the conditions' messages. */
static json_t *replica_statuses(const struct kubeflow_kind *kind, const json_t *source, const json_t *counts,
                                char *failed, size_t failed_len)
{
    json_t *out = json_object();
    const json_t *specs = json_object_get(json_object_get(source, "spec"), kind->specs_key);
    failed[0] = 0;
    for (int t = 0; t < kind->ntypes; t++) {
        const struct kubeflow_replica_type *type = &kind->types[t];
        const char *key;
        json_t *v;
        bool present = false;
        json_object_foreach((json_t *)specs, key, v)
        {
            (void)v;
            present = present || strcasecmp(key, type->name) == 0;
        }
        if (!present)
            continue;
        json_t *rs = json_object();
        int64_t n_failed = task_count(counts, type->task, "Failed");
        set_count(rs, "active", task_count(counts, type->task, "Running"));
        set_count(rs, "succeeded", task_count(counts, type->task, "Succeeded"));
        set_count(rs, "failed", n_failed);
        json_object_set_new(out, type->name, rs);
        if (n_failed > 0)
            snprintf(failed + strlen(failed), failed_len - strlen(failed), "%s%lld %s", failed[0] ? ", " : "",
                     (long long)n_failed, type->name);
    }
    return out;
}

/* Kubeflow's words for each condition, with what Volcano says of the job when no replica failed. */
static void message_for(const char *kind, enum kf_condition c, const char *job, const char *failed, const json_t *state,
                        char *out, size_t len)
{
    const char *vreason = json_string_value(json_object_get(state, "reason"));
    const char *vmessage = json_string_value(json_object_get(state, "message"));
    char why[512] = "";
    if (*failed)
        snprintf(why, sizeof why, " because %s replica(s) failed", failed);
    else if (vmessage && *vmessage)
        snprintf(why, sizeof why, ": %s%s%s", vreason ? vreason : "", vreason ? ": " : "", vmessage);
    switch (c) {
    case KF_RUNNING: snprintf(out, len, "%s %s is running.", kind, job); break;
    case KF_RESTARTING: snprintf(out, len, "%s %s is restarting%s.", kind, job, why); break;
    case KF_SUCCEEDED: snprintf(out, len, "%s %s successfully completed.", kind, job); break;
    case KF_FAILED: snprintf(out, len, "%s %s has failed%s.", kind, job, why); break;
    default: snprintf(out, len, "%s %s is created.", kind, job); break;
    }
}

json_t *kubeflow_render_status(const struct kubeflow_kind *kind, const json_t *source, const json_t *volcano_job)
{
    const json_t *meta = json_object_get(volcano_job, "metadata");
    const json_t *vstatus = json_object_get(volcano_job, "status");
    const json_t *state = json_object_get(vstatus, "state");
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    char job[320];
    snprintf(job, sizeof job, "%s/%s", ns ? ns : "", name ? name : "");
    json_t *created_at = json_object_get(meta, "creationTimestamp");
    json_t *changed_at = json_object_get(state, "lastTransitionTime");
    json_t *running_since = json_object_get(vstatus, "runningSince");
    if (!changed_at)
        changed_at = created_at;

    bool finished;
    enum kf_condition now = condition_of(json_string_value(json_object_get(state, "phase")), &finished);
    char failed[256], message[1024];
    json_t *status = json_object(), *conditions = json_array();
    json_object_set_new(status, "conditions", conditions);
    json_object_set_new(
        status, "replicaStatuses",
        replica_statuses(kind, source, json_object_get(vstatus, "taskStatusCount"), failed, sizeof failed));
    snprintf(message, sizeof message, "%s %s is created.", kind->kind, name ? name : "");
    json_array_append_new(conditions, condition(kind->kind, KF_CREATED, true, message, created_at));
    /* Kubeflow keeps Running, set False, beside the end it reached; Restarting and Running replace
     * each other. */
    if ((now == KF_SUCCEEDED || now == KF_FAILED) && running_since) {
        message_for(kind->kind, KF_RUNNING, job, failed, state, message, sizeof message);
        json_array_append_new(conditions, condition(kind->kind, KF_RUNNING, false, message, changed_at));
    }
    if (now != KF_CREATED) {
        message_for(kind->kind, now, job, failed, state, message, sizeof message);
        json_array_append_new(conditions, condition(kind->kind, now, true, message, changed_at));
    }
    if (running_since)
        json_object_set(status, "startTime", running_since);
    if (finished && changed_at)
        json_object_set(status, "completionTime", changed_at);
    return status;
}
