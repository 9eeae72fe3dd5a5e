/* Policies and task dependencies, with Volcano's admission rules: an event used by two policies,
 * "*" beside other events, event and exitCode in one policy, exitCode 0, PodPending without a
 * timeout, unknown events or actions, dependsOn on an unknown task or in a cycle — all refused. */
#include "adapters/objects/lifecycle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/duration.h"

static bool parse_event_name(struct fields *f, const json_t *holder, const char *key, size_t index, const char *path,
                             const char *name, uint32_t *events)
{
    int e = job_event_parse(name);
    if (e < 0 || e >= EV_POD_RUNNING) {
        char p[FIELD_PATH_MAX];
        const char *msg =
            "Unsupported value: \"%s\": supported values: \"*\", \"PodFailed\", \"PodEvicted\", "
            "\"PodPending\", \"Unknown\", \"TaskCompleted\", \"TaskFailed\", \"JobUpdated\"";
        if (key) {
            field_error(f, holder, key, path, "FieldValueNotSupported", msg, name);
        } else {
            field_path_index(p, path, index);
            field_error_at_index(f, holder, index, p, "FieldValueNotSupported", msg, name);
        }
        return false;
    }
    *events |= 1u << e;
    return true;
}

static bool parse_events(struct fields *f, json_t *pol, const char *path, uint32_t *events)
{
    const char *event = NULL;
    json_t *list;
    char p[FIELD_PATH_MAX];
    field_path(p, path, "event");
    bool ok = field_string(f, pol, "event", p, false, &event);
    if (ok && event)
        ok = parse_event_name(f, pol, "event", 0, p, event, events);
    field_path(p, path, "events");
    if (!field_array(f, pol, "events", p, false, &list))
        return false;
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item)
    {
        if (!json_is_string(item)) {
            char ip[FIELD_PATH_MAX];
            field_path_index(ip, p, i);
            field_error_at_index(f, list, i, ip, "FieldValueInvalid", "Invalid value: must be a string");
            ok = false;
        } else if (!parse_event_name(f, list, NULL, i, p, json_string_value(item), events)) {
            ok = false;
        }
    }
    return ok;
}

/* LifecyclePolicy: every field honoured. */
static const char *const policy_fields[] = {"event", "events", "action", "exitCode", "timeout", NULL};
/* DependsOn: every field honoured. */
static const char *const depends_on_fields[] = {"name", "iteration", NULL};

static bool parse_policy(struct fields *f, json_t *pol, const char *path, struct lifecycle_policy *out)
{
    char p[FIELD_PATH_MAX];
    memset(out, 0, sizeof *out);
    bool ok = field_check_known(f, pol, path, policy_fields);
    ok = parse_events(f, pol, path, &out->events) && ok;
    int64_t code = 0;
    field_path(p, path, "exitCode");
    if (field_int(f, pol, "exitCode", p, false, INT32_MIN, INT32_MAX, &code) && json_object_get(pol, "exitCode")) {
        out->has_exit_code = true;
        out->exit_code = (int32_t)code;
        if (code == 0) {
            field_invalid(f, pol, "exitCode", p, "0 is not a valid error code");
            ok = false;
        }
    }
    if (out->events && out->has_exit_code) {
        field_error(f, pol, NULL, path, "FieldValueForbidden",
                    "Forbidden: must not specify event and exitCode simultaneously");
        ok = false;
    } else if (!out->events && !out->has_exit_code && ok) {
        field_error(f, pol, NULL, path, "FieldValueRequired", "Required value: either event or exitCode is required");
        ok = false;
    }
    if (out->events & (1u << EV_ANY) && out->events != (1u << EV_ANY)) {
        field_error(f, pol, "events", path, "FieldValueForbidden",
                    "Forbidden: if there's * here, no other event should be here");
        ok = false;
    }
    const char *action = NULL;
    field_path(p, path, "action");
    if (field_string(f, pol, "action", p, true, &action) && action) {
        int a = job_action_parse(action);
        if (a < 0 || !job_action_for_jobs((enum job_action)a)) {
            field_error(f, pol, "action", p, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": supported values: \"AbortJob\", \"RestartJob\", \"RestartTask\", "
                        "\"RestartPod\", \"TerminateJob\", \"CompleteJob\", \"ResumeJob\"",
                        action);
            ok = false;
        } else {
            out->action = (enum job_action)a;
        }
    } else {
        ok = false;
    }
    /* A metav1.Duration: a string Go's time.ParseDuration reads ("90" has no unit, 90 is no string). */
    const char *timeout = NULL;
    char why[160];
    field_path(p, path, "timeout");
    const char *older_why; /* an admitted job may hold the bare seconds an older server took */
    if (field_string(f, pol, "timeout", p, false, &timeout) && timeout &&
        duration_parse_go(timeout, &out->timeout_ms, why, sizeof why) != 0 &&
        !(f->admitted && duration_parse(timeout, &out->timeout_ms, &older_why) == 0)) {
        field_invalid(f, pol, "timeout", p, why);
        ok = false;
    }
    const json_t *given = json_object_get(pol, "timeout"); /* an invalid one has its own cause */
    if (out->events & (1u << EV_POD_PENDING) && (!given || json_is_null(given))) {
        field_error(f, pol, "timeout", p, "FieldValueRequired", "Required value: a PodPending policy needs a timeout");
        ok = false;
    }
    return ok;
}

/* Across policies: no event twice, "*" alone, no exit code twice. */
static bool check_overlaps(struct fields *f, json_t *list, const char *path, const struct lifecycle_policy *p, int n)
{
    bool ok = true;
    uint32_t seen = 0;
    for (int i = 0; i < n; i++) {
        char ip[FIELD_PATH_MAX];
        field_path_index(ip, path, (size_t)i);
        uint32_t dup = seen & p[i].events;
        if (dup) {
            int e = __builtin_ctz(dup);
            field_error_at_index(f, list, (size_t)i, ip, "FieldValueDuplicate",
                                 "Duplicate value: \"%s\": duplicate event across different policies",
                                 job_event_name(e));
            ok = false;
        }
        seen |= p[i].events;
        for (int j = 0; j < i; j++) {
            if (p[i].has_exit_code && p[j].has_exit_code && p[i].exit_code == p[j].exit_code) {
                field_error_at_index(f, list, (size_t)i, ip, "FieldValueDuplicate",
                                     "Duplicate value: %d: duplicate exitCode across different policies",
                                     p[i].exit_code);
                ok = false;
            }
        }
    }
    if (seen & (1u << EV_ANY) && seen != (1u << EV_ANY)) {
        field_error(f, list, NULL, path, "FieldValueForbidden",
                    "Forbidden: if there's * here, no other policy should be here");
        ok = false;
    }
    return ok;
}

bool policies_parse(struct fields *f, json_t *parent, const char *path, struct lifecycle_policy **out, int *n)
{
    json_t *list;
    char p[FIELD_PATH_MAX];
    *out = NULL;
    *n = 0;
    if (!field_array_in(f, parent, "policies", path, false, &list) || !list || json_array_size(list) == 0)
        return list == NULL || json_array_size(list) == 0;
    field_path(p, path, "policies");
    struct lifecycle_policy *pols = calloc(json_array_size(list), sizeof *pols);
    if (!pols) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return false;
    }
    bool ok = true;
    size_t i;
    json_t *pol;
    json_array_foreach(list, i, pol)
    {
        char ip[FIELD_PATH_MAX];
        if (!field_each_object(f, list, i, p, ip, "a policy must be an object")) {
            ok = false;
        } else if (!parse_policy(f, pol, ip, &pols[i])) {
            ok = false;
        }
    }
    if (ok)
        ok = check_overlaps(f, list, p, pols, (int)json_array_size(list));
    if (!ok) {
        free(pols);
        return false;
    }
    *out = pols;
    *n = (int)json_array_size(list);
    return true;
}

static int task_index(const struct job *job, const char *name)
{
    for (int t = 0; t < job->ntasks; t++)
        if (job->tasks[t].name && strcmp(job->tasks[t].name, name) == 0)
            return t;
    return -1;
}

/* Depth-first search for a cycle through dependsOn; state 0 new, 1 on the path, 2 done. */
static bool has_cycle(const struct job *job, int t, char *state)
{
    if (state[t] == 1)
        return true;
    if (state[t] == 2)
        return false;
    state[t] = 1;
    for (int d = 0; d < job->tasks[t].ndepends; d++)
        if (has_cycle(job, job->tasks[t].depends[d], state))
            return true;
    state[t] = 2;
    return false;
}

static bool parse_one_depends(struct fields *f, json_t *task, const char *path, struct job *job, int t)
{
    json_t *dep, *names;
    char p[FIELD_PATH_MAX], np[FIELD_PATH_MAX], ip[FIELD_PATH_MAX];
    if (!field_object_in(f, task, "dependsOn", path, false, &dep) || !dep)
        return dep == NULL;
    field_path(p, path, "dependsOn");
    field_path(np, p, "name");
    field_path(ip, p, "iteration");
    const char *iteration = NULL;
    bool ok = field_check_known(f, dep, p, depends_on_fields);
    ok = field_string(f, dep, "iteration", ip, false, &iteration) && ok;
    if (iteration && strcmp(iteration, "any") != 0 && strcmp(iteration, "all") != 0) {
        field_error(f, dep, "iteration", ip, "FieldValueNotSupported",
                    "Unsupported value: \"%s\": supported values: \"any\", \"all\"", iteration);
        ok = false;
    }
    job->tasks[t].depends_any = iteration && strcmp(iteration, "any") == 0;
    if (!field_array(f, dep, "name", np, true, &names) || !names)
        return false;
    job->tasks[t].depends = calloc(json_array_size(names) + 1, sizeof *job->tasks[t].depends);
    size_t i;
    json_t *item;
    json_array_foreach(names, i, item)
    {
        char ep[FIELD_PATH_MAX];
        field_path_index(ep, np, i);
        const char *name = json_string_value(item);
        int d = name ? task_index(job, name) : -1;
        if (d < 0 || d == t) {
            field_error_at_index(f, names, i, ep, "FieldValueInvalid", "Invalid value: \"%s\": %s", name ? name : "?",
                                 d == t ? "a task cannot depend on itself" : "no task of the job has this name");
            ok = false;
            continue;
        }
        job->tasks[t].depends[job->tasks[t].ndepends++] = d;
    }
    return ok;
}

bool depends_on_parse(struct fields *f, json_t *tasks, struct job *job)
{
    bool ok = true;
    for (int t = 0; t < job->ntasks; t++) {
        char path[FIELD_PATH_MAX];
        field_path_index(path, "spec.tasks", (size_t)t);
        json_t *task = json_array_get(tasks, (size_t)t);
        if (json_is_object(task) && !parse_one_depends(f, task, path, job, t))
            ok = false;
    }
    char *state = ok ? calloc((size_t)job->ntasks + 1, 1) : NULL;
    for (int t = 0; state && t < job->ntasks; t++) {
        if (has_cycle(job, t, state)) {
            char path[FIELD_PATH_MAX];
            snprintf(path, sizeof path, "spec.tasks[%d].dependsOn", t);
            field_error(f, json_array_get(tasks, (size_t)t), "dependsOn", path, "FieldValueInvalid",
                        "Invalid value: the tasks' dependsOn form a cycle");
            ok = false;
            break;
        }
    }
    free(state);
    return ok;
}
