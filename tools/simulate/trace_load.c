/* Reading a whole trace: each document classified and handed to its loader (jobs last: they
 * refer to queues and classes), then the checks that span documents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/objects/priority_class.h"
#include "common/duration.h"
#include "tools/simulate/trace_internal.h"

/* What the loader is working on, for messages. */
struct loading {
    const char *file;
    const char *data;
    struct intake in;
    struct api_status st;
    char *err;
    size_t errlen;
};

static const char *doc_name(const struct intake_doc *doc)
{
    const char *name = json_string_value(json_object_get(json_object_get(doc->root, "metadata"), "name"));
    return name ? name : "";
}

/* Formats st about document d (0-based) into the error line; returns -1. */
static int fail_doc(struct loading *l, int d)
{
    const struct intake_doc *doc = &l->in.docs[d];
    const char *kind = json_string_value(json_object_get(doc->root, "kind"));
    enum trace_doc_kind k = trace_classify(doc->root);
    if (k != TRACE_DOC_UNKNOWN || !kind)
        kind = trace_doc_kind_name(k);
    trace_format_error(l->err, l->errlen, l->file, d + 1, kind, doc_name(doc), &l->st);
    return -1;
}

static int add_queue(struct loading *l, int d, struct trace *t)
{
    struct trace_queue tq, *slot = NULL;
    if (trace_load_queue(&l->in.docs[d], &tq, &l->st) != 0)
        return fail_doc(l, d);
    struct fields f = {&l->in.docs[d], &l->st};
    for (int i = 0; i < t->nqueues; i++)
        if (strcmp(t->queues[i].queue->name, tq.queue->name) == 0)
            field_error(&f, json_object_get(l->in.docs[d].root, "metadata"), "name", "metadata.name",
                        "FieldValueDuplicate", "Duplicate value: \"%s\": document %d declares this Queue already",
                        tq.queue->name, t->queues[i].doc);
    if (l->st.ncauses == 0) {
        slot = realloc(t->queues, (size_t)(t->nqueues + 1) * sizeof *slot);
        if (slot)
            t->queues = slot;
        else
            api_fail(&l->st, 500, "InternalError", "out of memory");
    }
    if (!slot) {
        queue_free(tq.queue);
        return fail_doc(l, d);
    }
    tq.doc = d + 1;
    t->queues[t->nqueues++] = tq;
    return 0;
}

static const struct trace_object *find_object(const struct trace *t, enum trace_doc_kind kind, const char *name)
{
    char buf[512];
    for (int i = 0; i < t->nobjects; i++)
        if (t->objects[i].kind == kind && strcmp(trace_object_name(&t->objects[i], buf, sizeof buf), name) == 0)
            return &t->objects[i];
    return NULL;
}

static int add_object(struct loading *l, int d, enum trace_doc_kind kind, struct trace *t)
{
    struct trace_object to, *slot = NULL;
    char name[512];
    if (trace_load_object(&l->in.docs[d], kind, &to, &l->st) != 0)
        return fail_doc(l, d);
    const struct trace_object *other = find_object(t, kind, trace_object_name(&to, name, sizeof name));
    if (other) {
        struct fields f = {&l->in.docs[d], &l->st};
        field_error(&f, json_object_get(l->in.docs[d].root, "metadata"), "name", "metadata.name", "FieldValueDuplicate",
                    "Duplicate value: \"%s\": document %d declares this %s already", name, other->doc,
                    trace_doc_kind_name(kind));
    } else if ((slot = realloc(t->objects, (size_t)(t->nobjects + 1) * sizeof *slot)) != NULL) {
        t->objects = slot;
    } else {
        api_fail(&l->st, 500, "InternalError", "out of memory");
    }
    if (!slot) {
        trace_object_free(&to);
        return fail_doc(l, d);
    }
    to.doc = d + 1;
    t->objects[t->nobjects++] = to;
    return 0;
}

static const struct trace_queue *find_queue(const struct trace *t, const char *name)
{
    for (int i = 0; i < t->nqueues; i++)
        if (strcmp(t->queues[i].queue->name, name) == 0)
            return &t->queues[i];
    return NULL;
}

static bool builtin_priority_class(const char *name)
{
    for (const char *const *b = priority_class_builtin_names; *b; b++)
        if (strcmp(*b, name) == 0)
            return true;
    return false;
}

/* A cause unless the thing a job names (found at `arrival_ms`) is there when the job arrives. */
static void check_arrives_after(struct fields *f, const json_t *meta, const struct trace_job *tj, const char *what,
                                const char *name, int64_t arrival_ms)
{
    if (arrival_ms <= tj->arrival_ms)
        return;
    char at[32];
    field_error(f, json_object_get(meta, "annotations"), ANNOTATION_ARRIVAL,
                "metadata.annotations[" ANNOTATION_ARRIVAL "]", "FieldValueInvalid",
                "Invalid value: the job would arrive before its %s \"%s\" (at %s)", what, name,
                duration_text(arrival_ms, at, sizeof at));
}

/* A job's name is free, and its queue and priority class are declared and there before it. */
static void check_job(struct loading *l, int d, const struct trace *t, const struct trace_job *tj)
{
    struct fields f = {&l->in.docs[d], &l->st};
    json_t *root = l->in.docs[d].root, *meta = json_object_get(root, "metadata");
    json_t *spec = json_object_get(root, "spec");
    const struct job *job = tj->job;
    for (int i = 0; i < t->njobs; i++)
        if (strcmp(t->jobs[i].job->name, job->name) == 0 && strcmp(t->jobs[i].job->ns, job->ns) == 0)
            field_error(&f, meta, "name", "metadata.name", "FieldValueDuplicate",
                        "Duplicate value: \"%s\": document %d declares a Job of this name in namespace %s already",
                        job->name, t->jobs[i].doc, job->ns);
    const struct trace_queue *q = find_queue(t, job->queue);
    if (!q && strcmp(job->queue, "default") != 0)
        field_error(&f, spec, "queue", "spec.queue", "FieldValueNotFound",
                    "Not found: \"%s\": no Queue document of the trace declares it", job->queue);
    else if (q && strcmp(job->queue, "default") != 0)
        check_arrives_after(&f, meta, tj, "queue", job->queue, q->arrival_ms);
    const char *pc = job->priority_class;
    if (!pc || !*pc || builtin_priority_class(pc))
        return;
    const struct trace_object *o = find_object(t, TRACE_DOC_PRIORITY_CLASS, pc);
    if (!o)
        field_error(&f, spec, "priorityClassName", "spec.priorityClassName", "FieldValueNotFound",
                    "Not found: \"%s\": no PriorityClass document of the trace declares it", pc);
    else
        check_arrives_after(&f, meta, tj, "PriorityClass", pc, o->arrival_ms);
}

static int add_job(struct loading *l, int d, struct trace *t)
{
    struct trace_job tj, *slot = NULL;
    if (trace_load_job(&l->in.docs[d], &tj, &l->st) != 0)
        return fail_doc(l, d);
    check_job(l, d, t, &tj);
    if (l->st.ncauses == 0) {
        slot = realloc(t->jobs, (size_t)(t->njobs + 1) * sizeof *slot);
        if (slot)
            t->jobs = slot;
        else
            api_fail(&l->st, 500, "InternalError", "out of memory");
    }
    if (!slot) {
        job_free(tj.job);
        return fail_doc(l, d);
    }
    tj.doc = d + 1;
    t->jobs[t->njobs++] = tj;
    return 0;
}

/* Settings, queues, priority classes, quotas and which documents are nodes; refuses what a trace
 * cannot hold. */
static int first_pass(struct loading *l, struct trace *t, bool *is_node, int *nnode_docs)
{
    int settings_doc = 0;
    for (int d = 0; d < l->in.ndocs; d++) {
        const struct intake_doc *doc = &l->in.docs[d];
        switch (trace_classify(doc->root)) {
        case TRACE_DOC_NODE:
        case TRACE_DOC_NODE_LIST:
            is_node[d] = true;
            (*nnode_docs)++;
            break;
        case TRACE_DOC_SIMULATION:
            if (settings_doc) {
                api_fail(&l->st, 400, "BadRequest", "a trace has one Simulation document; document %d is the first",
                         settings_doc);
                return fail_doc(l, d);
            }
            settings_doc = d + 1;
            if (trace_load_settings(doc, &t->settings, &l->st) != 0)
                return fail_doc(l, d);
            break;
        case TRACE_DOC_QUEUE:
            if (add_queue(l, d, t) != 0)
                return -1;
            break;
        case TRACE_DOC_PRIORITY_CLASS:
        case TRACE_DOC_RESOURCE_QUOTA:
            if (add_object(l, d, trace_classify(doc->root), t) != 0)
                return -1;
            break;
        case TRACE_DOC_JOB: break;
        case TRACE_DOC_UNKNOWN:
            api_fail(&l->st, 400, "BadRequest",
                     "not a document of a trace: expected v1 Node or List, scheduling.volcano.sh/v1beta1 Queue, "
                     "scheduling.k8s.io/v1 PriorityClass, v1 ResourceQuota, batch.volcano.sh/v1alpha1 Job or "
                     "caldera.io/v1 Simulation");
            return fail_doc(l, d);
        }
    }
    return 0;
}

static int load_nodes(struct loading *l, struct trace *t, const bool *is_node, int nnode_docs, size_t len)
{
    if (nnode_docs == 0) {
        snprintf(l->err, l->errlen, "%s: the trace declares no Node (v1 Node documents or a v1 List of them)", l->file);
        return -1;
    }
    if (trace_load_nodes(l->data, len, &l->in, is_node, &t->nodes, &t->nnodes, &l->st) == 0)
        return 0;
    int d = l->st.ncauses > 0 ? trace_doc_at_line(l->data, &l->in, l->st.causes[0].line) : 0;
    if (d > 0)
        return fail_doc(l, d - 1);
    trace_format_error(l->err, l->errlen, l->file, 0, "", "", &l->st);
    return -1;
}

int trace_load(const char *file, const char *data, size_t len, struct trace *out, char *err, size_t errlen)
{
    struct loading l = {.file = file, .data = data, .err = err, .errlen = errlen};
    memset(out, 0, sizeof *out);
    out->settings.period_ms = 1000;
    out->settings.until_ms = -1;
    sched_conf_default(&out->settings.conf);
    if (intake_parse(data, len, INTAKE_YAML, &l.in, &l.st) != 0) {
        trace_format_error(err, errlen, file, 0, "", "", &l.st);
        trace_free(out);
        return -1;
    }
    bool *is_node = calloc((size_t)l.in.ndocs + 1, sizeof *is_node);
    int nnode_docs = 0, rc = is_node ? 0 : -1;
    if (!is_node)
        snprintf(err, errlen, "%s: out of memory", file);
    if (rc == 0)
        rc = first_pass(&l, out, is_node, &nnode_docs);
    if (rc == 0)
        rc = load_nodes(&l, out, is_node, nnode_docs, len);
    for (int d = 0; rc == 0 && d < l.in.ndocs; d++)
        if (trace_classify(l.in.docs[d].root) == TRACE_DOC_JOB)
            rc = add_job(&l, d, out);
    if (out->settings.sample_ms == 0)
        out->settings.sample_ms = out->settings.period_ms;
    free(is_node);
    intake_free(&l.in);
    if (rc != 0)
        trace_free(out);
    return rc;
}

void trace_free(struct trace *t)
{
    for (int i = 0; i < t->nnodes; i++)
        node_clear(&t->nodes[i]);
    free(t->nodes);
    for (int i = 0; i < t->nqueues; i++)
        queue_free(t->queues[i].queue);
    free(t->queues);
    for (int i = 0; i < t->nobjects; i++)
        trace_object_free(&t->objects[i]);
    free(t->objects);
    for (int i = 0; i < t->njobs; i++)
        job_free(t->jobs[i].job);
    free(t->jobs);
    sched_conf_free(&t->settings.conf);
    memset(t, 0, sizeof *t);
}
