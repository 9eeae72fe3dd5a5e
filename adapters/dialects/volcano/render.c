/* A job rendered back as a Volcano Job: the accepted manifest, server-set metadata and the status
 * Volcano's controller would write. The stored status is this same rendering. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/render.h"
#include "adapters/dialects/volcano/job.h"
#include "common/clock.h"
#include "model/backend_conf.h"

/* status.controlledResources key of the job's port block (Volcano keeps plugin-made resources there). */
#define PORT_BASE_RESOURCE "caldera.io/port-base"
/* The engine that runs a job sent to a backend, and its name for it there (scheduler/controller/remote.c). */
#define BACKEND_RESOURCE "caldera.io/backend"
#define BACKEND_REF_RESOURCE "caldera.io/backend-ref"

static json_t *task_status_counts(const struct job *job)
{
    json_t *out = json_object();
    for (int t = 0; t < job->ntasks; t++) {
        const struct task_counts *c = &job->task_counts[t];
        const int32_t counts[POD_PHASE_COUNT] = {c->pending, c->running, c->succeeded, c->failed, c->unknown};
        json_t *phases = json_object();
        for (int p = 0; p < POD_PHASE_COUNT; p++)
            if (counts[p] > 0)
                json_object_set_new(phases, pod_phase_name(p), json_integer(counts[p]));
        json_object_set_new(out, job->tasks[t].name, json_pack("{s:o}", "phase", phases));
    }
    return out;
}

json_t *volcano_job_render_status(const struct job *job)
{
    const struct job_status *s = &job->status;
    json_t *state = json_pack("{s:s}", "phase", job_phase_name(s->phase));
    if (s->reason)
        json_object_set_new(state, "reason", json_string(s->reason));
    if (s->message)
        json_object_set_new(state, "message", json_string(s->message));
    render_set(state, "lastTransitionTime", s->transition_ms ? render_time(s->transition_ms) : NULL);
    json_t *status = json_pack("{s:o, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "state", state, "minAvailable",
                               job->min_available, "pending", s->pending, "running", s->running, "succeeded",
                               s->succeeded, "failed", s->failed, "terminating", s->terminating, "unknown", s->unknown,
                               "version", s->version, "retryCount", s->retry_count);
    if (status) {
        json_object_set_new(status, "taskStatusCount", task_status_counts(job));
        if (s->running_since_ms)
            json_object_set_new(status, "runningSince", render_time(s->running_since_ms));
        json_t *controlled = json_object();
        if (job->port_base > 0) {
            char base[16];
            snprintf(base, sizeof base, "%d", job->port_base);
            json_object_set_new(controlled, PORT_BASE_RESOURCE, json_string(base));
        }
        if (job->backend) {
            json_object_set_new(controlled, BACKEND_RESOURCE, json_string(backend_kind_name(job->backend)));
            if (job->remote_ref)
                json_object_set_new(controlled, BACKEND_REF_RESOURCE, json_string(job->remote_ref));
        }
        if (json_object_size(controlled) > 0)
            json_object_set_new(status, "controlledResources", controlled);
        else
            json_decref(controlled);
    }
    return status;
}

int volcano_job_stamp_metadata(struct job *job)
{
    json_t *meta = json_object_get(job_manifest(job), "metadata");
    if (!meta)
        return -1;
    json_object_set_new(meta, "uid", json_string(job->uid));
    json_object_set_new(meta, "namespace", json_string(job->ns));
    json_object_set_new(meta, "creationTimestamp", render_time(job->created_ms));
    json_object_set_new(meta, "generation", json_integer(1));
    return 0;
}

json_t *volcano_job_render(const struct job *job)
{
    /* A shallow copy of the immutable manifest: spec is shared, metadata copied to add the
     * resourceVersion. Nothing reachable from the manifest is ever modified after admission. */
    json_t *obj = json_copy(job_manifest(job));
    if (!obj)
        return NULL;
    json_t *meta = json_copy(json_object_get(job_manifest(job), "metadata"));
    char rv[24];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)job->resource_version);
    json_object_set_new(meta, "resourceVersion", json_string(rv));
    json_object_set_new(obj, "metadata", meta);
    json_object_set_new(obj, "status", volcano_job_render_status(job));
    return obj;
}

static char *dup_or_null(const char *s) { return s && *s ? strdup(s) : NULL; }

int volcano_job_restore_status(struct job *job, const char *status_json)
{
    json_t *status = json_loads(status_json, 0, NULL);
    if (!status)
        return -1;
    json_t *state = json_object_get(status, "state");
    const char *phase_name = json_string_value(json_object_get(state, "phase"));
    int phase = phase_name ? job_phase_parse(phase_name) : -1;
    int rc = phase < 0 ? -1 : 0;
    if (rc == 0) {
        struct job_status *s = &job->status;
        s->phase = (enum job_phase)phase;
        free(s->reason);
        free(s->message);
        s->reason = dup_or_null(json_string_value(json_object_get(state, "reason")));
        s->message = dup_or_null(json_string_value(json_object_get(state, "message")));
        const char *t = json_string_value(json_object_get(state, "lastTransitionTime"));
        if (t)
            rfc3339_parse(t, &s->transition_ms);
        const char *since = json_string_value(json_object_get(status, "runningSince"));
        if (since)
            rfc3339_parse(since, &s->running_since_ms);
        s->retry_count = (int32_t)json_integer_value(json_object_get(status, "retryCount"));
        s->version = (int32_t)json_integer_value(json_object_get(status, "version"));
        const json_t *controlled = json_object_get(status, "controlledResources");
        const char *base = json_string_value(json_object_get(controlled, PORT_BASE_RESOURCE));
        job->port_base = base ? atoi(base) : 0;
        int backend = backend_kind_parse(json_string_value(json_object_get(controlled, BACKEND_RESOURCE)));
        job->backend = (uint8_t)(backend > 0 ? backend : 0);
        const char *ref = json_string_value(json_object_get(controlled, BACKEND_REF_RESOURCE));
        free(job->remote_ref);
        job->remote_ref = ref && *ref ? strdup(ref) : NULL;
    }
    json_decref(status);
    return rc;
}
