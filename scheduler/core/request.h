/* What a gateway thread asks of the core and what it gets back: a request (its op, arguments and
 * answer), with the records and list cursors in it. core.h posts them; the core's files answer them. */
#ifndef CALDERA_CORE_REQUEST_H
#define CALDERA_CORE_REQUEST_H

#include <jansson.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/api_status.h"
#include "common/namespace_set.h"
#include "model/cluster.h"
#include "model/gpu_usage.h"
#include "model/sched_conf.h"
#include "common/watch_demand.h"
#include "store/store.h"

enum core_op {
    CORE_JOB_CREATE,
    CORE_JOB_GET,
    CORE_JOB_LIST,
    CORE_JOB_DELETE,
    CORE_JOB_UPDATE,   /* req->job: the parsed new Job for req->name (the caller keeps it) */
    CORE_JOB_ACTION,   /* req->action on job req->name (Caldera's POST .../jobs/{name}/{action}) */
    CORE_JOB_WITHDRAW, /* takes back job req->uid, created at req->created_seq, whose creation could
                                   not be recorded in time: 200 withdrawn (never written, never run), 201 its
                                   creation was committed after all, else a Status saying why it stays */
    CORE_COMMAND,      /* req->object: a parsed struct command, run at once (never stored) */
    CORE_POD_GET,
    CORE_POD_LIST,
    CORE_POD_LOG,
    CORE_POD_DELETE,
    CORE_PODGROUP_GET,
    CORE_PODGROUP_LIST,
    CORE_NODE_GET,
    CORE_NODE_LIST,
    CORE_QUEUE_GET,
    CORE_QUEUE_LIST,
    CORE_QUEUE_CREATE, /* req->object: the parsed struct queue, taken on success */
    CORE_QUEUE_UPDATE, /* req->object: the new struct queue for req->name */
    CORE_QUEUE_DELETE,
    CORE_QUEUE_OPEN,
    CORE_QUEUE_CLOSE,
    CORE_PRIORITYCLASS_GET,
    CORE_PRIORITYCLASS_LIST,
    CORE_PRIORITYCLASS_CREATE, /* req->object: struct priority_class */
    CORE_PRIORITYCLASS_UPDATE,
    CORE_PRIORITYCLASS_DELETE,
    CORE_QUOTA_GET,
    CORE_QUOTA_LIST,
    CORE_QUOTA_CREATE, /* req->object: struct resource_quota */
    CORE_QUOTA_UPDATE,
    CORE_QUOTA_DELETE,
    CORE_CRONJOB_GET,
    CORE_CRONJOB_LIST,
    CORE_CRONJOB_CREATE, /* req->object: struct cron_job */
    CORE_CRONJOB_UPDATE,
    CORE_CRONJOB_DELETE,
    CORE_CONFIG_GET, /* ConfigMaps and Secrets: req->config_kind says which */
    CORE_CONFIG_LIST,
    CORE_CONFIG_CREATE, /* req->object: struct config_object */
    CORE_CONFIG_UPDATE,
    CORE_CONFIG_DELETE,
    CORE_JOBTEMPLATE_GET,
    CORE_JOBTEMPLATE_LIST,
    CORE_JOBTEMPLATE_CREATE, /* req->object: struct job_template */
    CORE_JOBTEMPLATE_DELETE,
    CORE_JOBFLOW_GET,
    CORE_JOBFLOW_LIST,
    CORE_JOBFLOW_CREATE, /* req->object: struct job_flow */
    CORE_JOBFLOW_DELETE,
    CORE_JOBFLOW_RETRY,
    CORE_METRICS, /* the live part of GET /metrics, rendered into req->text */
    /* Objects the core records but does not keep (the gateway's Tokens): req->record names them. */
    CORE_RECORD_PUT,    /* an objects row (kind, "" namespace or ns, name, json) and its event */
    CORE_RECORD_DELETE, /* the objects row removed, and its event */
    CORE_RECORD_EVENT,  /* an event alone (audit): posted with core_post_event, never waited for */
    /* Companions (scheduler/controller/companions.h); req->ns and req->name name one. */
    CORE_COMPANION_LIST, /* req->ns NULL: every visible namespace */
    CORE_COMPANION_GET,
    CORE_COMPANION_CREATE, /* req->companion.job, .type, .task (NULL: the first), .index: 201 */
    CORE_COMPANION_DELETE, /* stopped, Cleaned, then gone */
    CORE_COMPANION_TARGET, /* the proxy's: req->companion_target (200), or 404 */
    CORE_COMPANION_TOUCH,  /* the proxy carried traffic at req->companion.touch_ms: core_post_touch */
    CORE_GPU_SAMPLES,      /* req->gpu_samples: this machine's GPUs now (core_post_gpu_samples) */
    CORE_GPU_HEALTH,       /* req->gpu_health: a device unhealthy or back (core_post_gpu_health) */
};

/* What CORE_COMPANION_* take. */
struct core_companion_args {
    const char *job, *type, *task;
    int32_t index;
    int64_t touch_ms;
};

/* Where a companion is, for the proxy (gateway/proxy/proxy.h's proxy_target). */
#define CORE_COMPANION_MAX_HEADERS 8
#define CORE_COMPANION_HEADER_MAX 512
struct core_companion_target {
    int port;
    char phase[16];
    bool strip_prefix;
    int nheaders;
    char headers[CORE_COMPANION_MAX_HEADERS][CORE_COMPANION_HEADER_MAX];
};

/* What CORE_RECORD_* record: the objects row's kind (and the event's), the event's reason and
 * message, and for a put the object as stored. Namespace and name are req->ns ("" when NULL) and
 * req->name. */
struct core_record {
    const char *kind;
    const char *reason;
    const char *message;
    const char *json;
};

#define CORE_MAX_SELECTORS 8

struct dialect;

/* Where a page of a job, PodGroup or pod list ends: lists are in the order of the jobs'
 * (creationTimestamp, uid), a job's pods by task and index (cluster.h: job_order_compare). */
struct core_list_cursor {
    int64_t created_ms;
    char uid[UUID_STR_LEN];
    int32_t task, index; /* the pod; -1 in a list of jobs or PodGroups */
};

struct core_request {
    enum core_op op;
    const char *ns; /* NULL lists every namespace */
    const char *name;
    /* The namespaces the caller may see (its principal's): lists across namespaces show only
     * these. NULL: every namespace. */
    const struct namespace_set *visible;
    struct core_record record;            /* CORE_RECORD_* */
    struct core_companion_args companion; /* CORE_COMPANION_* */
    const struct gpu_sample *gpu_samples; /* CORE_GPU_SAMPLES: ngpu_samples of them */
    int ngpu_samples;
    const struct gpu_health_change *gpu_health; /* CORE_GPU_HEALTH */
    struct job *job;                            /* CORE_JOB_CREATE: taken by the core when the answer is 201 */
    void *object;                               /* queue, priority class or quota to create/update: taken on success */
    /* labelSelector "k=v,k2=v2" already split (equality only) */
    int nselectors;
    const char *selector_key[CORE_MAX_SELECTORS];
    const char *selector_value[CORE_MAX_SELECTORS];
    int attempt;     /* CORE_POD_LOG: 1..n, 0 for the latest */
    bool previous;   /* CORE_POD_LOG: the attempt before the latest */
    int action;      /* CORE_JOB_ACTION: enum job_action */
    int config_kind; /* CORE_CONFIG_*: enum config_kind */
    /* CORE_JOB_*: the dialect whose path was asked (a PyTorchJob's): only jobs posted in it are seen,
     * and they answer in its shape unless as_volcano; NULL: the Volcano Job path, every job. */
    const struct dialect *dialect;
    bool as_volcano;
    bool as_manifest;      /* CORE_JOB_GET: the manifest a real Volcano cluster accepts (volcano/manifest.h) */
    const char *owner_uid; /* as_manifest: the Job's uid in the cluster, for its companions' ownerReferences;
                              NULL: Caldera's own */
    /* CORE_JOB_UPDATE at a dialect's path: the new object (PUT), or a merge patch of the stored one
     * (merge_patch: PATCH, application/merge-patch+json); the caller keeps it. */
    json_t *document;
    bool merge_patch;
    /* CORE_JOB_LIST, CORE_PODGROUP_LIST, CORE_POD_LIST: at most limit items (0: all), after `after`
     * when has_after. The answer sets more, and page_end (its last item) when more follow. */
    int32_t limit;
    const char *name_eq; /* the same lists: only objects of this name (fieldSelector metadata.name=) */
    bool count_rest;     /* CORE_JOB_LIST (Volcano's path) and CORE_PODGROUP_LIST without selectors: count
                            what follows a full page into `remaining` (Kubernetes' remainingItemCount) */
    bool has_after;
    struct core_list_cursor after;
    /* CORE_JOB_LIST of Volcano Jobs, CORE_PODGROUP_LIST, CORE_POD_LIST, for Kubernetes' Table (gateway/table/table.h):
     * the answer's items stay empty and text gets the rows' JSON array, each row the kind's cells and,
     * unless table_no_object, the object's PartialObjectMetadata of table_api_version. */
    bool as_table;
    bool table_no_object;
    const char *table_api_version;
    const char *uid; /* CORE_JOB_WITHDRAW: the job's uid and its creation's sequence number */
    uint64_t created_seq;

    /* The answer. */
    int http_code; /* 200 or 201 on success; 0 when status says what failed */
    struct api_status status;
    json_t *body;         /* the caller owns it */
    char *log_path;       /* CORE_POD_LOG: absolute path of the log file (caller frees) */
    char *text;           /* CORE_METRICS: Prometheus text exposition lines; as_table: the rows (caller frees) */
    uint64_t durable_seq; /* answer only once the store has committed up to this */
    struct core_companion_target companion_target; /* CORE_COMPANION_TARGET */
    bool more;                                     /* a list page: items follow `page_end` */
    struct core_list_cursor page_end;              /* the page's last item, when more */
    int64_t remaining;                             /* with count_rest and more: the items after the page */

    /* Private to the mailbox. */
    bool posted; /* core_post_event's: freed by the core, nobody waits */
    sem_t done;
    struct core_request *next;
};

#endif
