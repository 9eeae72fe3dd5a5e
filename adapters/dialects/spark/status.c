/* A SparkApplication's status in the operator's shape (applicationState, driverInfo, executorState,
 * attempts), read from the Volcano Job it became: the job's phase and retries, the tasks' pod counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/spark/spark.h"

/* The operator's application state for each Volcano Job phase. */
static const char *app_state(const char *phase)
{
    static const char *const by_phase[][2] = {{"Pending", "SUBMITTED"},        {"Running", "RUNNING"},
                                              {"Restarting", "PENDING_RERUN"}, {"Completing", "SUCCEEDING"},
                                              {"Completed", "COMPLETED"},      {"Failed", "FAILED"},
                                              {"Aborting", "FAILING"},         {"Aborted", "FAILED"},
                                              {"Terminating", "FAILING"},      {"Terminated", "FAILED"}};
    for (size_t i = 0; i < sizeof by_phase / sizeof by_phase[0]; i++)
        if (strcmp(phase, by_phase[i][0]) == 0)
            return by_phase[i][1];
    return "UNKNOWN";
}

static bool finished(const char *phase)
{
    return strcmp(phase, "Completed") == 0 || strcmp(phase, "Failed") == 0 || strcmp(phase, "Terminated") == 0 ||
           strcmp(phase, "Aborted") == 0;
}

/* The executors' states by pod name. The rendered job counts pods per phase, not per pod, so the states
 * are given only when every executor pod is in the same phase (NULL otherwise). */
static json_t *executor_state(const json_t *volcano_job, const char *name)
{
    static const char *const pod_states[][2] = {{"Pending", "PENDING"},
                                                {"Running", "RUNNING"},
                                                {"Succeeded", "COMPLETED"},
                                                {"Failed", "FAILED"},
                                                {"Unknown", "UNKNOWN"}};
    const json_t *counts = json_object_get(
        json_object_get(json_object_get(json_object_get(volcano_job, "status"), "taskStatusCount"),
                        SPARK_EXECUTOR_TASK),
        "phase");
    const json_t *tasks = json_object_get(json_object_get(volcano_job, "spec"), "tasks");
    int64_t replicas = json_integer_value(json_object_get(json_array_get(tasks, 1), "replicas"));
    const char *state = NULL;
    for (size_t i = 0; i < sizeof pod_states / sizeof pod_states[0]; i++)
        if (replicas > 0 && json_integer_value(json_object_get(counts, pod_states[i][0])) == replicas)
            state = pod_states[i][1];
    if (!state)
        return NULL;
    json_t *out = json_object();
    for (int64_t i = 0; i < replicas; i++) {
        char pod[FIELD_PATH_MAX];
        snprintf(pod, sizeof pod, "%s-%s-%lld", name, SPARK_EXECUTOR_TASK, (long long)i);
        json_object_set_new(out, pod, json_string(state));
    }
    return out;
}

json_t *spark_render_status(const json_t *source, const json_t *volcano_job)
{
    const json_t *vstatus = json_object_get(volcano_job, "status"), *state = json_object_get(vstatus, "state");
    const json_t *vmeta = json_object_get(volcano_job, "metadata");
    const char *phase = json_string_value(json_object_get(state, "phase"));
    const char *name = json_string_value(json_object_get(vmeta, "name"));
    phase = phase ? phase : "Pending";
    name = name ? name : "";
    char app_id[96], pod[FIELD_PATH_MAX], host[FIELD_PATH_MAX];
    snprintf(pod, sizeof pod, "%s-%s-0", name, SPARK_DRIVER_TASK);
    spark_driver_host(name, host, sizeof host);
    const char *ui_port = json_string_value(
        json_object_get(json_object_get(json_object_get(source, "spec"), "sparkConf"), "spark.ui.port"));
    json_int_t retries = json_integer_value(json_object_get(vstatus, "retryCount"));
    const char *st = app_state(phase);
    /* Each retry followed a run; the current attempt counts once it has run (a Pending job after a
     * retry waits for its next run; a failure with no retry was one run). */
    bool ran = strcmp(phase, "Pending") != 0 && strcmp(phase, "Restarting") != 0 &&
               (strcmp(phase, "Failed") != 0 || retries == 0);
    int port = ui_port && atoi(ui_port) > 0 ? atoi(ui_port) : SPARK_UI_PORT;
    json_t *status = json_pack("{s:{s:s}, s:{s:s, s:o, s:i}, s:s, s:I, s:I}", "applicationState", "state", st,
                               "driverInfo", "podName", pod, "webUIAddress", json_sprintf("%s:%d", host, port),
                               "webUIPort", port, "sparkApplicationId", spark_app_id(source, app_id, sizeof app_id),
                               "submissionAttempts", retries + 1, "executionAttempts", retries + (ran ? 1 : 0));
    if (!status)
        return NULL;
    json_t *message = json_object_get(state, "message");
    if ((strcmp(st, "FAILED") == 0 || strcmp(st, "FAILING") == 0) && json_is_string(message))
        json_object_set(json_object_get(status, "applicationState"), "errorMessage", message);
    json_t *executors = executor_state(volcano_job, name);
    if (executors)
        json_object_set_new(status, "executorState", executors);
    json_t *created = json_object_get(vmeta, "creationTimestamp"),
           *changed = json_object_get(state, "lastTransitionTime");
    if (retries == 0 && created)
        json_object_set(status, "lastSubmissionAttemptTime", created);
    else if (strcmp(phase, "Pending") == 0 && changed)
        json_object_set(status, "lastSubmissionAttemptTime", changed);
    if (finished(phase) && changed)
        json_object_set(status, "terminationTime", changed);
    return status;
}
