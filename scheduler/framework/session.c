/* One scheduling cycle: building the snapshot, opening plugins tier by tier, running the actions
 * and answering the actions' questions through the registered callbacks, in tier order. */
#include "scheduler/framework/session.h"

#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/plugin.h"

#define MAX_HOOKS (CONF_MAX_TIERS * CONF_MAX_PLUGINS)

union hook_fn {
    job_order_fn job_order;
    predicate_fn predicate;
    node_order_fn node_order;
    job_ready_fn job_ready;
    job_valid_fn job_valid;
    job_enqueueable_fn job_enqueueable;
};

struct hook {
    int tier;
    union hook_fn fn;
    void *state;
};

struct hook_list {
    int n;
    struct hook items[MAX_HOOKS];
};

struct session_hooks {
    struct hook_list job_order, predicate, node_order, job_ready, job_valid, job_enqueueable;
    int nopen;
    const struct plugin_def *open_plugins[MAX_HOOKS];
    void *open_states[MAX_HOOKS];
};

static void add_hook(struct hook_list *l, int tier, union hook_fn fn, void *state)
{
    if (l->n < MAX_HOOKS)
        l->items[l->n++] = (struct hook){tier, fn, state};
}

void session_add_job_order(struct session *ssn, const struct plugin_conf *pc, int tier, job_order_fn fn, void *state)
{
    if (pc->enabled[SW_JOB_ORDER])
        add_hook(&ssn->hooks->job_order, tier, (union hook_fn){.job_order = fn}, state);
}

void session_add_predicate(struct session *ssn, const struct plugin_conf *pc, int tier, predicate_fn fn, void *state)
{
    if (pc->enabled[SW_PREDICATE])
        add_hook(&ssn->hooks->predicate, tier, (union hook_fn){.predicate = fn}, state);
}

void session_add_node_order(struct session *ssn, const struct plugin_conf *pc, int tier, node_order_fn fn, void *state)
{
    if (pc->enabled[SW_NODE_ORDER])
        add_hook(&ssn->hooks->node_order, tier, (union hook_fn){.node_order = fn}, state);
}

void session_add_job_ready(struct session *ssn, const struct plugin_conf *pc, int tier, job_ready_fn fn, void *state)
{
    if (pc->enabled[SW_JOB_READY])
        add_hook(&ssn->hooks->job_ready, tier, (union hook_fn){.job_ready = fn}, state);
}

void session_add_job_valid(struct session *ssn, const struct plugin_conf *pc, int tier, job_valid_fn fn, void *state)
{
    (void)pc; /* Volcano has no switch for JobValid: it always applies */
    add_hook(&ssn->hooks->job_valid, tier, (union hook_fn){.job_valid = fn}, state);
}

void session_add_job_enqueueable(struct session *ssn, const struct plugin_conf *pc, int tier, job_enqueueable_fn fn,
                                 void *state)
{
    if (pc->enabled[SW_JOB_ENQUEUED])
        add_hook(&ssn->hooks->job_enqueueable, tier, (union hook_fn){.job_enqueueable = fn}, state);
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

bool session_predicate(const struct session *ssn, const struct job_info *job, const struct task_info *task,
                       const struct node_info *node, char *reason, int reason_len)
{
    const struct hook_list *l = &ssn->hooks->predicate;
    for (int i = 0; i < l->n; i++)
        if (!l->items[i].fn.predicate(l->items[i].state, job, task, node, reason, reason_len))
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

/* Volcano's rule: any rejection refuses; a tier in which some plugin permitted decides. */
bool session_job_enqueueable(const struct session *ssn, const struct job_info *job)
{
    const struct hook_list *l = &ssn->hooks->job_enqueueable;
    bool permitted = false;
    for (int i = 0; i < l->n; i++) {
        int r = l->items[i].fn.job_enqueueable(l->items[i].state, job);
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

static int cmp_job_index(const void *a, const void *b, void *ctx)
{
    const struct session *ssn = ctx;
    return session_job_order(ssn, &ssn->jobs[*(const int *)a], &ssn->jobs[*(const int *)b]);
}

int session_each_job(struct session *ssn, void (*fn)(struct session *ssn, struct job_info *job))
{
    int *order = malloc((size_t)(ssn->njobs > 0 ? ssn->njobs : 1) * sizeof *order);
    if (!order)
        return -1;
    for (int i = 0; i < ssn->njobs; i++)
        order[i] = i;
    qsort_r(order, (size_t)ssn->njobs, sizeof *order, cmp_job_index, ssn);
    for (int i = 0; i < ssn->njobs; i++)
        fn(ssn, &ssn->jobs[order[i]]);
    free(order);
    return 0;
}

/* Jobs in these phases have nothing to place: they are finishing, stopped or done. */
static bool job_wants_placement(const struct job *job)
{
    if (job->deleted)
        return false;
    switch (job->status.phase) {
    case JOB_PENDING:
    case JOB_RUNNING:
        return true;
    default:
        return false;
    }
}

static int snapshot_job(struct session *ssn, const struct job *job, struct job_info *ji)
{
    memset(ji, 0, sizeof *ji);
    ji->job = job;
    ji->queue = -1;
    for (int q = 0; q < ssn->nqueues; q++)
        if (strcmp(ssn->queues[q].queue->name, job->queue) == 0)
            ji->queue = q;
    ji->inqueue = job->pg.phase != PG_PENDING;
    ji->tasks = calloc((size_t)job->ntasks, sizeof *ji->tasks);
    if (!ji->tasks)
        return -1;
    for (int t = 0; t < job->ntasks; t++) {
        const struct task_spec *ts = &job->tasks[t];
        int32_t pending = 0;
        for (int32_t i = 0; i < ts->replicas; i++) {
            const struct replica *r = &job->replicas[job->task_first[t] + i];
            if (r->phase == POD_PENDING && !r->stopping)
                pending++;
            else if (r->phase == POD_RUNNING || r->phase == POD_SUCCEEDED)
                ji->ready++;
        }
        if (pending == 0)
            continue;
        struct task_info *ti = &ji->tasks[ji->ntasks++];
        ti->task = t;
        ti->request = &ts->request;
        ti->pending = pending;
        ti->best_effort = resvec_best_effort(&ts->request);
        ji->pending += pending;
    }
    return 0;
}

static int open_plugins(struct session *ssn)
{
    struct session_hooks *h = ssn->hooks;
    for (int t = 0; t < ssn->conf->ntiers; t++) {
        const struct tier_conf *tier = &ssn->conf->tiers[t];
        for (int p = 0; p < tier->nplugins; p++) {
            const struct plugin_def *def = plugin_find(tier->plugins[p].name);
            if (!def || h->nopen >= MAX_HOOKS)
                continue; /* known but not implemented: reported once at start-up */
            void *state = NULL;
            if (def->open(ssn, &tier->plugins[p], t, &state) != 0)
                return -1;
            h->open_plugins[h->nopen] = def;
            h->open_states[h->nopen++] = state;
        }
    }
    return 0;
}

int session_open(struct session *ssn, const struct cluster *cluster, const struct sched_conf *conf, int64_t now_ms)
{
    memset(ssn, 0, sizeof *ssn);
    ssn->conf = conf;
    ssn->cluster = cluster;
    ssn->now_ms = now_ms;
    ssn->hooks = calloc(1, sizeof *ssn->hooks);
    ssn->nodes = calloc((size_t)(cluster->nnodes > 0 ? cluster->nnodes : 1), sizeof *ssn->nodes);
    ssn->queues = calloc((size_t)(cluster->nqueues > 0 ? cluster->nqueues : 1), sizeof *ssn->queues);
    ssn->jobs = calloc((size_t)(cluster->njobs > 0 ? cluster->njobs : 1), sizeof *ssn->jobs);
    if (!ssn->hooks || !ssn->nodes || !ssn->queues || !ssn->jobs)
        goto fail;
    for (int i = 0; i < cluster->nnodes; i++) {
        const struct node *n = &cluster->nodes[i];
        struct node_info *ni = &ssn->nodes[ssn->nnodes++];
        ni->node = n;
        ni->index = i;
        ni->idle = n->allocatable;
        resvec_sub(&ni->idle, &n->used);
    }
    for (int q = 0; q < cluster->nqueues; q++)
        ssn->queues[ssn->nqueues++].queue = cluster->queues[q];
    for (const struct job *job = cluster->first; job; job = job->next) {
        if (!job_wants_placement(job))
            continue;
        struct job_info *ji = &ssn->jobs[ssn->njobs];
        if (snapshot_job(ssn, job, ji) != 0)
            goto fail;
        ssn->njobs++;
        if (ji->inqueue && ji->pending == 0) { /* nothing to do for it this cycle */
            free(ji->tasks);
            ssn->njobs--;
        }
    }
    if (open_plugins(ssn) != 0)
        goto fail;
    return 0;
fail:
    session_free(ssn);
    return -1;
}

void session_run(struct session *ssn)
{
    for (int a = 0; a < ssn->conf->nactions; a++) {
        const struct action_def *def = action_find(ssn->conf->actions[a]);
        if (def)
            def->execute(ssn);
    }
}

void session_close(struct session *ssn)
{
    struct session_hooks *h = ssn->hooks;
    if (!h)
        return;
    for (int i = h->nopen - 1; i >= 0; i--)
        if (h->open_plugins[i]->close)
            h->open_plugins[i]->close(ssn, h->open_states[i]);
    h->nopen = 0;
}

void session_free(struct session *ssn)
{
    for (int j = 0; j < ssn->njobs; j++) {
        free(ssn->jobs[j].tasks);
        free(ssn->jobs[j].unschedulable);
    }
    free(ssn->jobs);
    free(ssn->nodes);
    free(ssn->queues);
    free(ssn->binds);
    free(ssn->hooks);
    memset(ssn, 0, sizeof *ssn);
}
