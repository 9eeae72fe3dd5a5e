/* A simulation trace: the nodes, queues, priority classes, quotas and Volcano Jobs of a YAML file,
 * when each arrives, how long jobs' replicas run and exit with, and the simulator's settings. */
#ifndef CALDERA_SIMULATE_TRACE_H
#define CALDERA_SIMULATE_TRACE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "model/job.h"
#include "model/node.h"
#include "model/queue.h"
#include "model/sched_conf.h"

/* Virtual time never runs past 30 days. */
#define SIM_LIMIT_MS (30LL * 24 * 3600 * 1000)

enum trace_doc_kind {
    TRACE_DOC_NODE,           /* v1 Node */
    TRACE_DOC_NODE_LIST,      /* v1 List (of Nodes) */
    TRACE_DOC_QUEUE,          /* scheduling.volcano.sh/v1beta1 Queue */
    TRACE_DOC_JOB,            /* batch.volcano.sh/v1alpha1 Job */
    TRACE_DOC_PRIORITY_CLASS, /* scheduling.k8s.io/v1 PriorityClass */
    TRACE_DOC_RESOURCE_QUOTA, /* v1 ResourceQuota */
    TRACE_DOC_SIMULATION,     /* caldera.io/v1 Simulation: the settings */
    TRACE_DOC_UNKNOWN,
};

/* What a document is, by its apiVersion and kind. Pure. */
enum trace_doc_kind trace_classify(const json_t *root);
/* "Node", "Queue", ...: the kind as messages name it. */
const char *trace_doc_kind_name(enum trace_doc_kind kind);

struct trace_settings {
    int64_t period_ms;      /* scheduling period; default 1 s */
    int64_t until_ms;       /* stop time, or -1: when everything has finished (at most SIM_LIMIT_MS) */
    int64_t sample_ms;      /* how often queue shares are recorded; default the period */
    struct sched_conf conf; /* schedulerConf, or Volcano's default */
};

struct trace_queue {
    struct queue *queue; /* parsed; the simulator takes it when it arrives */
    int64_t arrival_ms;  /* caldera.io/arrival */
    int doc;             /* 1-based document number */
};

/* A PriorityClass or ResourceQuota: configuration the controller keeps, arriving like the rest. */
struct trace_object {
    enum trace_doc_kind kind; /* TRACE_DOC_PRIORITY_CLASS or TRACE_DOC_RESOURCE_QUOTA */
    void *object;             /* struct priority_class * or struct resource_quota *, taken when it arrives */
    int64_t arrival_ms;       /* caldera.io/arrival */
    int doc;
};

struct trace_job {
    struct job *job;     /* parsed with Volcano's admission defaults; taken when it arrives */
    int64_t arrival_ms;  /* caldera.io/arrival */
    int64_t duration_ms; /* caldera.io/duration: how long each replica runs once started */
    int32_t exit_code;   /* caldera.io/exit-code: what every replica exits with */
    int doc;
};

struct trace {
    struct node *nodes;
    int nnodes;
    struct trace_queue *queues; /* in file order */
    int nqueues;
    struct trace_object *objects; /* in file order */
    int nobjects;
    struct trace_job *jobs; /* in file order */
    int njobs;
    struct trace_settings settings;
};

/* Reads a trace. `file` names it in messages. Returns 0, or -1 with one line in err naming the
 * document, the field and its line:
 *   `t.yaml: document 3 (Job job1): metadata.annotations[caldera.io/duration]: Required value (line 4, column 5)` */
int trace_load(const char *file, const char *data, size_t len, struct trace *out, char *err, size_t errlen);
void trace_free(struct trace *t);

/* The name an object of the trace goes by in messages ("ns/name" for a quota). */
const char *trace_object_name(const struct trace_object *o, char *buf, size_t len);
void trace_object_free(struct trace_object *o);

#endif
