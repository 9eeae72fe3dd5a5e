/* Registering plugin callbacks and asking them, in tier order. The combination rules are Volcano's:
 * order functions stop at the first that decides; predicates, readiness and validity need every
 * plugin's yes; enqueueing is refused by any rejection and decided by the first tier that permits. */
#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/hooks.h"

static void add_hook(struct hook_list *l, int tier, union hook_fn fn, void *state)
{
    if (l->n < MAX_HOOKS)
        l->items[l->n++] = (struct hook){tier, fn, state};
}

#define REGISTER(point, field, sw, type)                                                                        \
    void session_add_##point(struct session *ssn, const struct plugin_conf *pc, int tier, type fn, void *state) \
    {                                                                                                           \
        if (pc->enabled[sw])                                                                                    \
            add_hook(&ssn->hooks->field, tier, (union hook_fn){.field = fn}, state);                            \
    }

REGISTER(job_order, job_order, SW_JOB_ORDER, job_order_fn)
REGISTER(queue_order, queue_order, SW_QUEUE_ORDER, queue_order_fn)
REGISTER(task_order, task_order, SW_TASK_ORDER, task_order_fn)
REGISTER(namespace_order, namespace_order, SW_NAMESPACE_ORDER, namespace_order_fn)
REGISTER(predicate, predicate, SW_PREDICATE, predicate_fn)
REGISTER(node_filter, node_filter, SW_PREDICATE, node_filter_fn)
REGISTER(node_order, node_order, SW_NODE_ORDER, node_order_fn)
REGISTER(job_ready, job_ready, SW_JOB_READY, job_ready_fn)
REGISTER(job_starving, job_starving, SW_JOB_STARVING, job_starving_fn)
REGISTER(job_enqueueable, job_enqueueable, SW_JOB_ENQUEUED, job_enqueueable_fn)
REGISTER(allocatable, allocatable, SW_ALLOCATABLE, allocatable_fn)
REGISTER(overused, overused, SW_OVERUSED, overused_fn)

void session_add_job_valid(struct session *ssn, const struct plugin_conf *pc, int tier, job_valid_fn fn, void *state)
{
    (void)pc; /* Volcano has no switch for JobValid: it always applies */
    add_hook(&ssn->hooks->job_valid, tier, (union hook_fn){.job_valid = fn}, state);
}

void session_add_preemptable(struct session *ssn, const struct plugin_conf *pc, int tier, victims_fn fn, void *state)
{
    if (pc->enabled[SW_PREEMPTABLE])
        add_hook(&ssn->hooks->preemptable, tier, (union hook_fn){.victims = fn}, state);
}

void session_add_reclaimable(struct session *ssn, const struct plugin_conf *pc, int tier, victims_fn fn, void *state)
{
    if (pc->enabled[SW_RECLAIMABLE])
        add_hook(&ssn->hooks->reclaimable, tier, (union hook_fn){.victims = fn}, state);
}

void session_add_allocate_event(struct session *ssn, allocate_event_fn fn, void *state)
{
    add_hook(&ssn->hooks->allocate_event, 0, (union hook_fn){.allocate_event = fn}, state);
}

void session_add_bind_event(struct session *ssn, bind_event_fn fn, void *state)
{
    add_hook(&ssn->hooks->bind_event, 0, (union hook_fn){.bind_event = fn}, state);
}

int session_job_order(const struct session *ssn, const struct job_info *a, const struct job_info *b)
{
    const struct hook_list *l = &ssn->hooks->job_order;
    for (int i = 0; i < l->n; i++) {
        int r = l->items[i].fn.job_order(l->items[i].state, a, b);
        if (r != 0)
            return r;
    }
    if (a->job->created_ms != b->job->created_ms)
        return a->job->created_ms < b->job->created_ms ? -1 : 1;
    return strcmp(a->job->uid, b->job->uid);
}

int session_task_order(const struct session *ssn, const struct job_info *job, const struct task_info *a,
                       const struct task_info *b)
{
    const struct hook_list *l = &ssn->hooks->task_order;
    for (int i = 0; i < l->n; i++) {
        int r = l->items[i].fn.task_order(l->items[i].state, job, a, b);
        if (r != 0)
            return r;
    }
    return a->task < b->task ? -1 : a->task > b->task;
}

int session_queue_order(const struct session *ssn, const struct queue_info *a, const struct queue_info *b)
{
    const struct hook_list *l = &ssn->hooks->queue_order;
    for (int i = 0; i < l->n; i++) {
        int r = l->items[i].fn.queue_order(l->items[i].state, a, b);
        if (r != 0)
            return r;
    }
    if (a->queue->created_ms != b->queue->created_ms)
        return a->queue->created_ms < b->queue->created_ms ? -1 : 1;
    return strcmp(a->queue->name, b->queue->name);
}

int session_namespace_order(const struct session *ssn, const char *a, const char *b)
{
    const struct hook_list *l = &ssn->hooks->namespace_order;
    for (int i = 0; i < l->n; i++) {
        int r = l->items[i].fn.namespace_order(l->items[i].state, a, b);
        if (r != 0)
            return r;
    }
    return strcmp(a, b);
}

bool session_predicate(const struct session *ssn, const struct job_info *job, const struct task_info *task,
                       const struct node_info *node, char *reason, int reason_len)
{
    const struct hook_list *l = &ssn->hooks->predicate;
    for (int i = 0; i < l->n; i++)
        if (!l->items[i].fn.predicate(l->items[i].state, job, task, node, reason, reason_len))
            return false;
    return true;
}

bool session_run_node_filters(const struct session *ssn, const struct task_info *task, const struct node *node,
                              char *reason, int reason_len)
{
    const struct hook_list *l = &ssn->hooks->node_filter;
    for (int i = 0; i < l->n; i++)
        if (!l->items[i].fn.node_filter(l->items[i].state, task, node, reason, reason_len))
            return false;
    return true;
}

double session_node_score(const struct session *ssn, const struct task_info *task, const struct node_info *node)
{
    const struct hook_list *l = &ssn->hooks->node_order;
    double score = 0;
    for (int i = 0; i < l->n; i++)
        score += l->items[i].fn.node_order(l->items[i].state, task, node);
    return score;
}

bool session_job_ready(const struct session *ssn, const struct job_info *job)
{
    const struct hook_list *l = &ssn->hooks->job_ready;
    for (int i = 0; i < l->n; i++)
        if (!l->items[i].fn.job_ready(l->items[i].state, job))
            return false;
    return true;
}

bool session_job_valid(const struct session *ssn, const struct job_info *job, char *why, int why_len)
{
    const struct hook_list *l = &ssn->hooks->job_valid;
    for (int i = 0; i < l->n; i++)
        if (!l->items[i].fn.job_valid(l->items[i].state, job, why, why_len))
            return false;
    return true;
}

bool session_job_starving(const struct session *ssn, const struct job_info *job)
{
    const struct hook_list *l = &ssn->hooks->job_starving;
    if (l->n == 0)
        return job->pending > 0;
    for (int i = 0; i < l->n; i++)
        if (!l->items[i].fn.job_starving(l->items[i].state, job))
            return false;
    return true;
}

bool session_job_enqueueable(const struct session *ssn, const struct job_info *job, char *why, int why_len)
{
    const struct hook_list *l = &ssn->hooks->job_enqueueable;
    bool permitted = false;
    for (int i = 0; i < l->n; i++) {
        int r = l->items[i].fn.job_enqueueable(l->items[i].state, job, why, why_len);
        if (r < 0)
            return false;
        if (r > 0)
            permitted = true;
        bool tier_ends = i + 1 == l->n || l->items[i + 1].tier != l->items[i].tier;
        if (tier_ends && permitted)
            return true;
    }
    return true;
}

bool session_allocatable(const struct session *ssn, const struct job_info *job, const struct task_info *task, char *why,
                         int why_len)
{
    const struct hook_list *l = &ssn->hooks->allocatable;
    const struct queue_info *q = job->queue >= 0 ? &ssn->queues[job->queue] : NULL;
    for (int i = 0; i < l->n; i++)
        if (!l->items[i].fn.allocatable(l->items[i].state, q, job, task, why, why_len))
            return false;
    return true;
}

bool session_overused(const struct session *ssn, const struct queue_info *queue)
{
    const struct hook_list *l = &ssn->hooks->overused;
    for (int i = 0; i < l->n; i++)
        if (l->items[i].fn.overused(l->items[i].state, queue))
            return true;
    return false;
}

/* Volcano's rule for victims, tier by tier: within a tier, the plugins' answers intersect; a tier
 * in which some plugin keeps no candidate at all makes no decision, and the next tier decides; the
 * first tier that keeps some candidates decides. No deciding tier: no victims. */
static int filter_victims(const struct hook_list *l, const struct job_info *job, struct victim **cands, int n)
{
    if (n == 0 || l->n == 0)
        return 0;
    struct victim **scratch = malloc((size_t)n * sizeof *scratch);
    if (!scratch)
        return 0;
    int kept = 0;
    for (int i = 0; i < l->n;) {
        int tier = l->items[i].tier, k = n;
        memcpy(scratch, cands, (size_t)n * sizeof *scratch);
        for (; i < l->n && l->items[i].tier == tier; i++)
            if (k > 0)
                k = l->items[i].fn.victims(l->items[i].state, job, scratch, k);
        if (k > 0) {
            memcpy(cands, scratch, (size_t)k * sizeof *scratch);
            kept = k;
            break;
        }
    }
    free(scratch);
    return kept;
}

int session_preemptable(const struct session *ssn, const struct job_info *job, struct victim **cands, int n)
{
    return filter_victims(&ssn->hooks->preemptable, job, cands, n);
}

int session_reclaimable(const struct session *ssn, const struct job_info *job, struct victim **cands, int n)
{
    return filter_victims(&ssn->hooks->reclaimable, job, cands, n);
}

void session_notify_allocate(const struct session *ssn, const struct job *job, struct job_info *info,
                             const struct resvec *request, int32_t count, int sign)
{
    const struct hook_list *l = &ssn->hooks->allocate_event;
    for (int i = 0; i < l->n; i++)
        l->items[i].fn.allocate_event(l->items[i].state, job, info, request, count, sign);
}

void session_account(struct session *ssn, const struct job *job, struct job_info *info, int queue,
                     const struct resvec *request, int32_t count, int sign)
{
    for (int32_t k = 0; k < count; k++) {
        if (sign > 0) {
            if (info)
                resvec_add(&info->allocated, request);
            if (queue >= 0)
                resvec_add(&ssn->queues[queue].allocated, request);
        } else {
            if (info)
                resvec_sub(&info->allocated, request);
            if (queue >= 0)
                resvec_sub(&ssn->queues[queue].allocated, request);
        }
    }
    session_notify_allocate(ssn, job, info, request, count, sign);
}
