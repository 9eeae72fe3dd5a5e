/* A Volcano Job, its PodGroup or one of its pods as a row of Kubernetes' Table
 * (gateway/table/table.h), written as text straight from the live job on the core thread: the cells
 * of the kind's columns (gateway/table/columns.c and core_columns.c, in their order) and its
 * PartialObjectMetadata, with no tree of the whole object made or freed, so that a page of rows
 * costs a fraction of a page of objects. */
#include <stdio.h>
#include <stdlib.h>

#include "adapters/objects/podgroup.h"
#include "adapters/objects/render.h"
#include "common/age.h"
#include "scheduler/core/internal.h"

/* v as JSON text (flags as json_dumpb takes them); "null" when it cannot be written. */
static void put_json(struct sbuf *b, const json_t *v, size_t flags)
{
    char small[512];
    size_t n = v ? json_dumpb(v, small, sizeof small, flags) : 0;
    if (n == 0) {
        sbuf_puts(b, "null");
    } else if (n <= sizeof small) {
        sbuf_append(b, small, n);
    } else {
        char *big = malloc(n);
        if (big && json_dumpb(v, big, n, flags) == n)
            sbuf_append(b, big, n);
        else
            sbuf_puts(b, "null");
        free(big);
    }
}

static void put_string(struct sbuf *b, const char *s)
{
    json_t *v = json_string(s ? s : "");
    put_json(b, v, JSON_ENCODE_ANY);
    json_decref(v);
}

static void put_object_start(struct sbuf *b, const char *api_version)
{
    sbuf_printf(b, ",\"object\":{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"%s\",\"metadata\":", api_version);
}

/* The age cell, from the whole second the creationTimestamp shows, as a row made from the object
 * reads it. */
static void put_age(struct sbuf *b, const struct job *job, int64_t now_ms)
{
    char age[32];
    put_string(b, human_age(now_ms - job->created_ms / 1000 * 1000, age, sizeof age));
}

/* The metadata the manifest keeps, with the live resourceVersion. */
static void put_metadata(struct sbuf *b, const struct job *job, const char *api_version)
{
    put_object_start(b, api_version);
    sbuf_puts(b, "{");
    const json_t *meta = json_object_get(job_manifest(job), "metadata");
    if (json_object_size(meta) > 0) {
        put_json(b, meta, JSON_COMPACT | JSON_EMBED);
        sbuf_puts(b, ",");
    }
    sbuf_printf(b, "\"resourceVersion\":\"%llu\"}}", (unsigned long long)job->resource_version);
}

void core_job_table_row(struct sbuf *b, const struct job *job, const struct core_request *req, int64_t now_ms)
{
    const struct job_status *s = &job->status;
    int64_t replicas = 0;
    for (int t = 0; t < job->ntasks; t++)
        replicas += job->tasks[t].replicas;
    sbuf_puts(b, "{\"cells\":[");
    put_string(b, job->name);
    sbuf_puts(b, ",");
    put_string(b, job_phase_name(s->phase));
    sbuf_printf(b, ",%d,%d,", (int)job->min_available, (int)s->running);
    put_age(b, job, now_ms);
    sbuf_puts(b, ",");
    put_string(b, job->queue);
    sbuf_printf(b, ",%d,%d,%d,%lld,", (int)s->pending, (int)s->succeeded, (int)s->failed, (long long)replicas);
    put_string(b, s->phase == JOB_PENDING && s->message ? s->message : "");
    sbuf_puts(b, "]");
    if (!req->table_no_object)
        put_metadata(b, job, req->table_api_version);
    sbuf_puts(b, "}");
}

/* PodGroup columns: Name, STATUS, minMember, RUNNINGS, AGE, QUEUE; its metadata as
 * adapters/objects/podgroup.c renders it. */
void core_podgroup_table_row(struct sbuf *b, const struct job *job, const struct core_request *req, int64_t now_ms)
{
    char name[PODGROUP_NAME_MAX];
    podgroup_name(job->name, job->uid, name);
    sbuf_puts(b, "{\"cells\":[");
    put_string(b, name);
    sbuf_puts(b, ",");
    put_string(b, podgroup_phase_name(job->pg.phase));
    sbuf_printf(b, ",%d,%d,", (int)job->min_available, (int)job->status.running);
    put_age(b, job, now_ms);
    sbuf_puts(b, ",");
    put_string(b, job->queue);
    sbuf_puts(b, "]");
    if (!req->table_no_object) {
        char rv[24];
        snprintf(rv, sizeof rv, "%llu", (unsigned long long)job->resource_version);
        json_t *meta = json_pack("{s:s, s:s, s:s, s:o, s:[{s:s, s:s, s:s, s:s, s:b, s:b}]}", "name", name, "namespace",
                                 job->ns, "resourceVersion", rv, "creationTimestamp", render_time(job->created_ms),
                                 "ownerReferences", "apiVersion", "batch.volcano.sh/v1alpha1", "kind", "Job", "name",
                                 job->name, "uid", job->uid, "controller", 1, "blockOwnerDeletion", 1);
        put_object_start(b, req->table_api_version);
        put_json(b, meta, JSON_COMPACT);
        sbuf_puts(b, "}");
        json_decref(meta);
    }
    sbuf_puts(b, "}");
}

/* kubectl's STATUS of a pod rendered by adapters/objects/pod.c: its phase, or the reason its
 * container ended (the pod's own when it has one and its container none), or ContainerCreating. */
static const char *pod_status_cell(const struct replica *r, char *buf, size_t len)
{
    const char *reason = pod_phase_name(r->phase);
    if (r->node < 0)
        return reason;
    if (r->phase == POD_SUCCEEDED || r->phase == POD_FAILED) {
        const char *why = term_reason_name(r->reason);
        if (why && *why)
            return why;
        snprintf(buf, len, "ExitCode:%d", r->exit_code);
        return buf;
    }
    return r->phase == POD_RUNNING ? reason : "ContainerCreating";
}

/* Pod columns: Name, Ready, Status, Restarts, Age, IP, Node, Nominated Node, Readiness Gates. */
void core_pod_table_row(struct sbuf *b, const struct job *job, int task, int index, const struct node *node,
                        const json_t *meta, const struct core_request *req, int64_t now_ms)
{
    const struct replica *r = &job->replicas[job->task_first[task] + index];
    const json_t *spec = json_object_get(job_task_template(job, task), "spec");
    size_t containers = json_array_size(json_object_get(spec, "containers"));
    bool placed = r->node >= 0;
    char name[320], status[32];
    sbuf_puts(b, "{\"cells\":[");
    put_string(b, job_pod_name(job, task, index, name, sizeof name));
    sbuf_printf(b, ",\"%d/%zu\",", placed && r->phase == POD_RUNNING, containers ? containers : (size_t)placed);
    put_string(b, pod_status_cell(r, status, sizeof status));
    sbuf_printf(b, ",%d,", placed ? (int)r->restarts : 0);
    put_age(b, job, now_ms);
    sbuf_puts(b, placed ? ",\"127.0.0.1\"," : ",\"<none>\",");
    put_string(b, node ? node->name : "<none>");
    sbuf_puts(b, ",\"<none>\",");
    put_string(b, json_array_size(json_object_get(spec, "readinessGates")) ? "0/1" : "<none>");
    sbuf_puts(b, "]");
    if (!req->table_no_object) {
        put_object_start(b, req->table_api_version);
        put_json(b, meta, JSON_COMPACT);
        sbuf_puts(b, "}");
    }
    sbuf_puts(b, "}");
}
