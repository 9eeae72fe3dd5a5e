/* The core's answers about the objects that configure the scheduler: Queues (with open and close),
 * PriorityClasses and ResourceQuotas. The controller changes them; this file renders. Core thread. */
#include <stdio.h>
#include <string.h>

#include "adapters/objects/priority_class.h"
#include "adapters/objects/queue.h"
#include "adapters/objects/resource_quota.h"
#include "scheduler/controller/objects.h"
#include "scheduler/core/internal.h"

/* --- queues --------------------------------------------------------------- */

static json_t *render_queue(const struct core *c, const struct queue *q)
{
    struct queue_counts n = controller_count_podgroups(&c->cluster, q);
    return queue_render(q, &n);
}

/* Create, update, open and close answer with the queue as it is now (NULL: the status says why). */
static void answer_queue(struct core *c, struct core_request *req, const struct queue *q, int code)
{
    if (q)
        core_answer(req, code, render_queue(c, q), q->resource_version);
}

static void queue_list(struct core *c, struct core_request *req)
{
    json_t *items = json_array();
    for (int i = 0; i < c->cluster.nqueues; i++)
        json_array_append_new(items, render_queue(c, c->cluster.queues[i]));
    core_answer_list(c, req, QUEUE_API_VERSION, "QueueList", items);
}

static void queue_get(struct core *c, struct core_request *req)
{
    const struct queue *q = cluster_find_queue(&c->cluster, req->name);
    if (!q)
        return core_not_found(req, "queues", "scheduling.volcano.sh", req->name);
    answer_queue(c, req, q, 200);
}

static void queue_create(struct core *c, struct core_request *req)
{
    const struct queue *q = controller_create_queue(&c->ctl, req->object, &req->status);
    if (q)
        req->object = NULL;
    answer_queue(c, req, q, 201);
}

static void queue_update(struct core *c, struct core_request *req)
{
    const struct queue *q = controller_update_queue(&c->ctl, req->object, &req->status);
    if (q) {
        req->object = NULL;
        c->kick = true; /* weight, capability and the rest change what the next cycle may place */
    }
    answer_queue(c, req, q, 200);
}

static void queue_delete(struct core *c, struct core_request *req)
{
    uint64_t seq;
    if (controller_delete_queue(&c->ctl, req->name, &seq, &req->status) == 0)
        core_answer_deleted(req, "queues", "scheduling.volcano.sh", NULL, seq);
}

/* Open and close kick a cycle too: what a queue's state lets through is the plugins' to weigh. */
static void queue_open(struct core *c, struct core_request *req)
{
    c->kick = true;
    answer_queue(c, req, controller_open_queue(&c->ctl, req->name, &req->status), 200);
}

static void queue_close(struct core *c, struct core_request *req)
{
    c->kick = true;
    answer_queue(c, req, controller_close_queue(&c->ctl, req->name, &req->status), 200);
}

/* --- priority classes ------------------------------------------------------ */

static void answer_priority_class(struct core_request *req, const struct priority_class *pc, int code)
{
    if (pc)
        core_answer(req, code, priority_class_render(pc), pc->resource_version);
}

static void priority_class_list(struct core *c, struct core_request *req)
{
    json_t *items = json_array();
    for (int i = 0; i < c->cluster.npriority_classes; i++)
        json_array_append_new(items, priority_class_render(c->cluster.priority_classes[i]));
    core_answer_list(c, req, PRIORITY_CLASS_API_VERSION, "PriorityClassList", items);
}

static void priority_class_get(struct core *c, struct core_request *req)
{
    const struct priority_class *pc = cluster_find_priority_class(&c->cluster, req->name);
    if (!pc)
        return core_not_found(req, "priorityclasses", "scheduling.k8s.io", req->name);
    answer_priority_class(req, pc, 200);
}

static void priority_class_create(struct core *c, struct core_request *req)
{
    const struct priority_class *pc = controller_create_priority_class(&c->ctl, req->object, &req->status);
    if (pc)
        req->object = NULL;
    answer_priority_class(req, pc, 201);
}

static void priority_class_update(struct core *c, struct core_request *req)
{
    const struct priority_class *pc = controller_update_priority_class(&c->ctl, req->object, &req->status);
    if (pc)
        req->object = NULL;
    answer_priority_class(req, pc, 200);
}

static void priority_class_delete(struct core *c, struct core_request *req)
{
    uint64_t seq;
    if (controller_delete_priority_class(&c->ctl, req->name, &seq, &req->status) == 0)
        core_answer_deleted(req, "priorityclasses", "scheduling.k8s.io", NULL, seq);
}

/* --- resource quotas ------------------------------------------------------- */

static json_t *render_quota(const struct core *c, const struct resource_quota *q)
{
    struct resvec used;
    controller_namespace_usage(&c->cluster, q->ns, &used);
    return resource_quota_render(q, &used);
}

static void answer_quota(struct core *c, struct core_request *req, const struct resource_quota *q, int code)
{
    if (q)
        core_answer(req, code, render_quota(c, q), q->resource_version);
}

static void quota_list(struct core *c, struct core_request *req)
{
    json_t *items = json_array();
    for (int i = 0; i < c->cluster.nquotas; i++) {
        const struct resource_quota *q = c->cluster.quotas[i];
        if (core_sees_namespace(req, q->ns))
            json_array_append_new(items, render_quota(c, q));
    }
    core_answer_list(c, req, "v1", "ResourceQuotaList", items);
}

static void quota_get(struct core *c, struct core_request *req)
{
    const struct resource_quota *q = controller_find_quota(&c->cluster, req->ns, req->name);
    if (!q)
        return core_not_found(req, "resourcequotas", "", req->name);
    answer_quota(c, req, q, 200);
}

static void quota_create(struct core *c, struct core_request *req)
{
    const struct resource_quota *q = controller_create_quota(&c->ctl, req->object, &req->status);
    if (q) {
        req->object = NULL;
        c->kick = true; /* jobs waiting on their namespace's quota are weighed again */
    }
    answer_quota(c, req, q, 201);
}

static void quota_update(struct core *c, struct core_request *req)
{
    const struct resource_quota *q = controller_update_quota(&c->ctl, req->object, &req->status);
    if (q) {
        req->object = NULL;
        c->kick = true;
    }
    answer_quota(c, req, q, 200);
}

static void quota_delete(struct core *c, struct core_request *req)
{
    uint64_t seq;
    if (controller_delete_quota(&c->ctl, req->ns, req->name, &seq, &req->status) != 0)
        return;
    c->kick = true;
    core_answer_deleted(req, "resourcequotas", "", NULL, seq);
}

void core_handle_object_request(struct core *c, struct core_request *req)
{
    switch (req->op) {
    case CORE_QUEUE_GET: queue_get(c, req); break;
    case CORE_QUEUE_LIST: queue_list(c, req); break;
    case CORE_QUEUE_CREATE: queue_create(c, req); break;
    case CORE_QUEUE_UPDATE: queue_update(c, req); break;
    case CORE_QUEUE_DELETE: queue_delete(c, req); break;
    case CORE_QUEUE_OPEN: queue_open(c, req); break;
    case CORE_QUEUE_CLOSE: queue_close(c, req); break;
    case CORE_PRIORITYCLASS_GET: priority_class_get(c, req); break;
    case CORE_PRIORITYCLASS_LIST: priority_class_list(c, req); break;
    case CORE_PRIORITYCLASS_CREATE: priority_class_create(c, req); break;
    case CORE_PRIORITYCLASS_UPDATE: priority_class_update(c, req); break;
    case CORE_PRIORITYCLASS_DELETE: priority_class_delete(c, req); break;
    case CORE_QUOTA_GET: quota_get(c, req); break;
    case CORE_QUOTA_LIST: quota_list(c, req); break;
    case CORE_QUOTA_CREATE: quota_create(c, req); break;
    case CORE_QUOTA_UPDATE: quota_update(c, req); break;
    case CORE_QUOTA_DELETE: quota_delete(c, req); break;
    default: core_handle_cronjob_request(c, req); break;
    }
}
