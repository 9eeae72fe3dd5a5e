/* Volcano Jobs and Pods read from the cluster into backend updates: the job's status.state, and a pod's
 * replica, placement and container state as kubelet writes them. Pure: no clock, no I/O. */
#include "runtime/kube/kube_mirror.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"

static json_t *at(const json_t *v, const char *a, const char *b)
{
    json_t *x = json_object_get(v, a);
    return b ? json_object_get(x, b) : x;
}

static const char *str_at(const json_t *v, const char *a, const char *b) { return json_string_value(at(v, a, b)); }

static void copy(char *dst, size_t cap, const char *src) { snprintf(dst, cap, "%s", src ? src : ""); }

static int64_t time_at(const json_t *v, const char *key)
{
    int64_t ms = 0;
    const char *s = json_string_value(json_object_get(v, key));
    return s && rfc3339_parse(s, &ms) == 0 ? ms : 0;
}

const char *kube_mirror_uid(const json_t *object)
{
    return json_string_value(json_object_get(at(object, "metadata", "labels"), BACKEND_UID_LABEL));
}

void kube_mirror_ref(const json_t *object, char *ref)
{
    const char *ns = str_at(object, "metadata", "namespace"), *name = str_at(object, "metadata", "name");
    snprintf(ref, BACKEND_REF_MAX, "%s/%s", ns ? ns : "default", name ? name : "");
}

void kube_mirror_job(const json_t *job, struct backend_update *u)
{
    u->kind = BACKEND_JOB_PHASE;
    json_t *state = at(job, "status", "state");
    const char *phase = str_at(state, "phase", NULL);
    copy(u->job_phase, sizeof u->job_phase, phase && *phase ? phase : "Pending");
    u->retry_count = (int32_t)json_integer_value(at(job, "status", "retryCount"));
    const char *msg = str_at(state, "message", NULL), *reason = str_at(state, "reason", NULL);
    copy(u->message, sizeof u->message, msg && *msg ? msg : reason);
}

static void read_end(const json_t *terminated, struct kube_mirror_end *e)
{
    if (!json_is_object(terminated))
        return;
    e->set = true;
    e->exit_code = (int)json_integer_value(json_object_get(terminated, "exitCode"));
    e->term_signal = (int)json_integer_value(json_object_get(terminated, "signal"));
    if (!e->term_signal && e->exit_code > 128 && e->exit_code < 128 + 65)
        e->term_signal = e->exit_code - 128;
    e->start_ms = time_at(terminated, "startedAt");
    e->end_ms = time_at(terminated, "finishedAt");
    copy(e->reason, sizeof e->reason, json_string_value(json_object_get(terminated, "reason")));
    copy(e->message, sizeof e->message, json_string_value(json_object_get(terminated, "message")));
}

/* The container that says how the pod went: the first with a terminated state when the pod ended,
 * else the first. */
static const json_t *main_container(const json_t *pod, bool ended)
{
    json_t *all = at(pod, "status", "containerStatuses");
    if (ended) {
        size_t i;
        json_t *cs;
        json_array_foreach(all, i, cs) if (json_object_get(at(cs, "state", NULL), "terminated")) return cs;
    }
    return json_array_get(all, 0);
}

/* PodScheduled=False: the scheduler's words. */
static void unschedulable(const json_t *pod, struct backend_update *u)
{
    size_t i;
    json_t *c;
    json_array_foreach(at(pod, "status", "conditions"), i, c)
    {
        const char *type = str_at(c, "type", NULL), *status = str_at(c, "status", NULL);
        if (type && status && strcmp(type, "PodScheduled") == 0 && strcmp(status, "False") == 0) {
            const char *reason = str_at(c, "reason", NULL);
            copy(u->reason, sizeof u->reason, reason && *reason ? reason : "Unschedulable");
            copy(u->message, sizeof u->message, str_at(c, "message", NULL));
        }
    }
}

/* The replica's task and index from the pod's name `<job>-<task>-<index>` and its labels/annotations. */
static int replica_of(const json_t *pod, const char *name, struct backend_update *u)
{
    const char *task = str_at(at(pod, "metadata", "annotations"), "volcano.sh/task-spec", NULL);
    if (!task)
        task = str_at(at(pod, "metadata", "labels"), "volcano.sh/task-spec", NULL);
    const char *dash = strrchr(name, '-');
    char *end = NULL;
    long index = dash ? strtol(dash + 1, &end, 10) : -1;
    if (!dash || end == dash + 1 || *end) {
        index = -1;
        size_t i;
        json_t *env;
        json_array_foreach(json_object_get(json_array_get(at(at(pod, "spec", NULL), "containers", NULL), 0), "env"), i,
                           env)
        {
            const char *n = str_at(env, "name", NULL), *v = str_at(env, "value", NULL);
            if (n && v && strcmp(n, "VC_TASK_INDEX") == 0)
                index = strtol(v, NULL, 10);
        }
    }
    if (index < 0)
        return -1;
    u->index = (int32_t)index;
    if (task) {
        copy(u->task, sizeof u->task, task);
        return 0;
    }
    const char *job = str_at(at(pod, "metadata", "labels"), "volcano.sh/job-name", NULL);
    size_t skip = job && strncmp(name, job, strlen(job)) == 0 && name[strlen(job)] == '-' ? strlen(job) + 1 : 0;
    if (!dash || (size_t)(dash - name) <= skip)
        return -1;
    snprintf(u->task, sizeof u->task, "%.*s", (int)(dash - name - (ptrdiff_t)skip), name + skip);
    return 0;
}

int kube_mirror_pod(const json_t *pod, struct kube_mirror_pod *out)
{
    memset(out, 0, sizeof *out);
    struct backend_update *u = &out->u;
    u->kind = BACKEND_POD;
    const char *name = str_at(pod, "metadata", "name");
    if (!name || replica_of(pod, name, u) != 0)
        return -1;
    copy(out->name, sizeof out->name, name);
    copy(out->pod_uid, sizeof out->pod_uid, str_at(pod, "metadata", "uid"));
    kube_mirror_ref(pod, u->ref);
    const char *uid = kube_mirror_uid(pod);
    copy(u->job_uid, sizeof u->job_uid, uid);
    copy(u->node, sizeof u->node, str_at(pod, "spec", "nodeName"));

    const char *phase = str_at(pod, "status", "phase");
    u->phase = BACKEND_POD_PENDING;
    if (phase && strcmp(phase, "Running") == 0)
        u->phase = BACKEND_POD_RUNNING;
    else if (phase && strcmp(phase, "Succeeded") == 0)
        u->phase = BACKEND_POD_SUCCEEDED;
    else if (phase && strcmp(phase, "Failed") == 0)
        u->phase = BACKEND_POD_FAILED;
    bool ended = u->phase == BACKEND_POD_SUCCEEDED || u->phase == BACKEND_POD_FAILED;

    const json_t *cs = main_container(pod, ended);
    out->restart_count = (int32_t)json_integer_value(json_object_get(cs, "restartCount"));
    read_end(at(json_object_get(cs, "lastState"), "terminated", NULL), &out->last);
    json_t *state = json_object_get(cs, "state");
    struct kube_mirror_end now = {0};
    read_end(json_object_get(state, "terminated"), &now);
    if (now.set) {
        u->start_ms = now.start_ms;
        u->end_ms = now.end_ms;
        u->exit_code = now.exit_code;
        u->term_signal = now.term_signal;
        copy(u->reason, sizeof u->reason, now.reason);
        copy(u->message, sizeof u->message, now.message);
    } else if (json_object_get(state, "running")) {
        u->start_ms = time_at(at(state, "running", NULL), "startedAt");
    }
    if (ended && !now.set) { /* the pod's own words (Evicted, DeadlineExceeded) */
        copy(u->reason, sizeof u->reason, str_at(pod, "status", "reason"));
        copy(u->message, sizeof u->message, str_at(pod, "status", "message"));
    }
    if (u->phase == BACKEND_POD_PENDING && !u->node[0])
        unschedulable(pod, u);
    return 0;
}
