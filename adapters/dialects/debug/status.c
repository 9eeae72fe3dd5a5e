/* A debug session's status, read from the Volcano Job it became: its phase and why (the pending
 * reason while it waits), when it started and when its deadline falls, and where its companions are. */
#include <stdio.h>
#include <string.h>

#include "adapters/dialects/debug/debug.h"
#include "common/clock.h"

/* A job failed this close to its deadline (the clocks are read to the second) ended by it. */
#define DEADLINE_SLACK_MS 1000

static void copy_member(json_t *to, const char *to_key, const json_t *from, const char *from_key)
{
    json_t *v = json_object_get(from, from_key);
    if (v && !json_is_null(v))
        json_object_set(to, to_key, v);
}

/* The session's phase from the Volcano Job's: Pending (also Restarting: it waits again), Running,
 * Ending (Completing, Terminating, Aborting), Ended (Completed, Terminated, Aborted; and Failed at its
 * deadline: reason DeadlineExceeded), Failed. */
static const char *session_phase(const char *job_phase)
{
    static const char *const map[][2] = {
        {"Pending", "Pending"},    {"Restarting", "Pending"}, {"Running", "Running"}, {"Completing", "Ending"},
        {"Terminating", "Ending"}, {"Aborting", "Ending"},    {"Completed", "Ended"}, {"Terminated", "Ended"},
        {"Aborted", "Ended"},      {"Failed", "Failed"},
    };
    for (size_t i = 0; job_phase && i < sizeof map / sizeof *map; i++)
        if (strcmp(map[i][0], job_phase) == 0)
            return map[i][1];
    return job_phase ? job_phase : "Pending";
}

static bool ended(const char *phase) { return strcmp(phase, "Ended") == 0 || strcmp(phase, "Failed") == 0; }

/* The pod's activeDeadlineSeconds as the Volcano Job holds it (0: none). */
static int64_t deadline_of(const json_t *volcano_job)
{
    const json_t *task = json_array_get(json_object_get(json_object_get(volcano_job, "spec"), "tasks"), 0);
    const json_t *pod = json_object_get(json_object_get(task, "template"), "spec");
    return json_integer_value(json_object_get(pod, "activeDeadlineSeconds"));
}

/* [{type, name, url}] of the companions the source names. */
static json_t *companions_of(const json_t *source, const char *ns, const char *job)
{
    json_t *out = json_array();
    const json_t *list = json_object_get(json_object_get(source, "spec"), "companions");
    size_t i;
    const json_t *t;
    json_array_foreach(list, i, t)
    {
        const char *type = json_string_value(t);
        if (!type || !job)
            continue;
        char name[160], url[400];
        snprintf(name, sizeof name, "%s-%s", job, type);
        snprintf(url, sizeof url, "/proxy/%s/%s/", ns ? ns : "default", name);
        json_array_append_new(out, json_pack("{s:s,s:s,s:s}", "type", type, "name", name, "url", url));
    }
    return out;
}

json_t *debug_render_status(const json_t *source, const json_t *volcano_job)
{
    const json_t *vstatus = json_object_get(volcano_job, "status");
    const json_t *state = json_object_get(vstatus, "state");
    const json_t *meta = json_object_get(volcano_job, "metadata");
    json_t *status = json_object();
    if (!status)
        return NULL;
    const char *job_phase = json_string_value(json_object_get(state, "phase"));
    const char *phase = session_phase(job_phase);
    json_object_set_new(status, "phase", json_string(phase));
    copy_member(status, "reason", state, "reason");
    copy_member(status, "message", state, "message");
    copy_member(status, "jobPhase", state, "phase");
    copy_member(status, "job", meta, "name");
    copy_member(status, "startTime", vstatus, "runningSince");
    const char *start = json_string_value(json_object_get(vstatus, "runningSince"));
    int64_t start_ms, deadline_s = deadline_of(volcano_job);
    if (start && deadline_s > 0 && rfc3339_parse(start, &start_ms) == 0) {
        char buf[40];
        json_object_set_new(status, "deadline", json_string(rfc3339(start_ms + deadline_s * 1000, buf)));
        /* the pod killed at its activeDeadlineSeconds fails the job: for the session, the end it was given */
        const char *at = json_string_value(json_object_get(state, "lastTransitionTime"));
        int64_t at_ms;
        const char *why = json_string_value(json_object_get(state, "reason"));
        bool by_deadline = why && strcmp(why, "DeadlineExceeded") == 0;
        if (strcmp(phase, "Failed") == 0 &&
            (by_deadline ||
             (at && rfc3339_parse(at, &at_ms) == 0 && at_ms + DEADLINE_SLACK_MS >= start_ms + deadline_s * 1000))) {
            phase = "Ended";
            json_object_set_new(status, "phase", json_string(phase));
            json_object_set_new(status, "reason", json_string("DeadlineExceeded"));
            snprintf(buf, sizeof buf, "%lld", (long long)deadline_s);
            json_object_set_new(status, "message",
                                json_pack("s++", "the session reached its deadline (activeDeadlineSeconds ", buf, ")"));
        }
    }
    const char *job_reason = json_string_value(json_object_get(state, "reason"));
    if (job_reason &&
        strcmp(job_reason, DEBUG_IDLE_JOB_REASON) == 0) /* every companion idle: the controller ended it */
        json_object_set_new(status, "reason", json_string("Idle"));
    if (ended(phase))
        copy_member(status, "endTime", state, "lastTransitionTime");
    json_object_set_new(status, "companions",
                        companions_of(source, json_string_value(json_object_get(meta, "namespace")),
                                      json_string_value(json_object_get(meta, "name"))));
    return status;
}
