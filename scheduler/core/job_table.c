/* A Volcano Job as a row of Kubernetes' Table (gateway/table/table.h), written as text
 * straight from the live job on the core thread: the cells of the Job columns (gateway/table/columns.c,
 * in their order) and the job's PartialObjectMetadata, with no JSON tree made or freed, so that a
 * page of 1,000 rows costs a fraction of a page of 1,000 Jobs. */
#include <stdio.h>
#include <stdlib.h>

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

/* The metadata the manifest keeps, with the live resourceVersion. */
static void put_metadata(struct sbuf *b, const struct job *job, const char *api_version)
{
    sbuf_printf(b, ",\"object\":{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"%s\",\"metadata\":{", api_version);
    const json_t *meta = json_object_get(job->manifest, "metadata");
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
    char age[32];
    sbuf_puts(b, "{\"cells\":[");
    put_string(b, job->name);
    sbuf_puts(b, ",");
    put_string(b, job_phase_name(s->phase));
    sbuf_printf(b, ",%d,%d,", (int)job->min_available, (int)s->running);
    /* from the creationTimestamp shown, whole seconds, as a Table made from the Job reads it */
    put_string(b, human_age(now_ms - job->created_ms / 1000 * 1000, age, sizeof age));
    sbuf_puts(b, ",");
    put_string(b, job->queue);
    sbuf_printf(b, ",%d,%d,%d,%lld,", (int)s->pending, (int)s->succeeded, (int)s->failed, (long long)replicas);
    put_string(b, s->phase == JOB_PENDING && s->message ? s->message : "");
    sbuf_puts(b, "]");
    if (!req->table_no_object)
        put_metadata(b, job, req->table_api_version);
    sbuf_puts(b, "}");
}
