/* Priority classes, quotas, queues and jobs arriving through the controller as the API's create
 * requests do: a job through admission exactly as a submit; `default` is updated, not created. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "scheduler/controller/objects.h"
#include "common/duration.h"
#include "tools/simulate/sim_internal.h"

static int refused(struct sim *s, int doc, const char *what, const struct api_status *st, char *err, size_t errlen)
{
    if (st->code == 500) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char at[32];
    snprintf(err, errlen, "%s: document %d (%s): refused at %s: %s", s->file, doc, what,
             duration_text(s->now_ms, at, sizeof at), st->message);
    return SIM_TRACE_REFUSED;
}

int sim_object_arrives(struct sim *s, int index, char *err, size_t errlen)
{
    struct trace_object *o = &s->trace.objects[index];
    struct api_status st = {0};
    char name[512], what[600];
    bool taken = o->kind == TRACE_DOC_PRIORITY_CLASS ? controller_create_priority_class(&s->ctl, o->object, &st) != NULL
                                                     : controller_create_quota(&s->ctl, o->object, &st) != NULL;
    s->pending_arrivals--;
    if (taken) {
        o->object = NULL;
        return 0;
    }
    snprintf(what, sizeof what, "%s %s", trace_doc_kind_name(o->kind), trace_object_name(o, name, sizeof name));
    return refused(s, o->doc, what, &st, err, errlen);
}

int sim_queue_arrives(struct sim *s, int index, char *err, size_t errlen)
{
    struct trace_queue *tq = &s->trace.queues[index];
    struct api_status st = {0};
    char name[300];
    snprintf(name, sizeof name, "%s", tq->queue->name);
    bool exists = cluster_find_queue(&s->cluster, name) != NULL;
    const struct queue *q = exists ? controller_update_queue(&s->ctl, tq->queue, &st)
                                   : controller_create_queue(&s->ctl, tq->queue, &st);
    s->pending_arrivals--;
    if (!q) {
        char what[320];
        snprintf(what, sizeof what, "Queue %s", name);
        return refused(s, tq->doc, what, &st, err, errlen);
    }
    tq->queue = NULL;
    for (int i = 0; i < s->nqueues; i++) {
        if (strcmp(s->queues[i].name, name) == 0) {
            s->queues[i].queue = q;
            s->queues[i].weight = q->weight;
        }
    }
    return 0;
}

int sim_job_arrives(struct sim *s, int index, char *err, size_t errlen)
{
    struct sim_job *sj = &s->jobs[index];
    struct job *job = s->trace.jobs[index].job;
    struct api_status st = {0};
    uint64_t seq;
    s->trace.jobs[index].job = NULL;
    s->arriving = index; /* sim_new_uid names it after its place in the trace */
    sj->arrived = true;
    s->pending_arrivals--;
    job->ttl_seconds = -1; /* the report is about every job: none is deleted behind its back */
    if (controller_create_job(&s->ctl, job, &seq, &st) != 0) {
        job_free(job);
        sj->rejected = st.code == 500 ? NULL : strdup(st.message);
        if (sj->rejected)
            return 0;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sj->job = job;
    memcpy(sj->uid, job->uid, sizeof sj->uid);
    if (ptrmap_put(&s->jobs_by_ptr, job, sj) != 0 || strmap_put(&s->jobs_by_uid, sj->uid, sj) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}
