/* Placing one job's pending replicas as a statement (Volcano's Statement): tentative binds on the
 * session's node snapshot, kept only when the gang is ready, undone otherwise.
 *
 * Speed: replicas of one task are identical, so a task group scans nodes once (Volcano's sampling:
 * at most nodes_to_find feasible nodes, from a rotating start), keeps them in a heap by score, and
 * after each placement re-scores only the node it used. A task shape that fits nowhere is
 * remembered until resources come free in the session, so a long backlog of alike jobs costs one
 * full scan, not one per job. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "scheduler/framework/hooks.h"
#include "scheduler/framework/pod_index.h"

#define MAX_REASONS 16
#define UNFIT_SLOTS 64

/* Counts of predicate failure reasons over nodes, for "0/5 nodes are available: ..." messages. */
struct fit_histogram {
    int nreasons;
    char reason[MAX_REASONS][SESSION_REASON_MAX];
    int count[MAX_REASONS];
};

struct unfit_entry {
    int filter;
    struct resvec request;
    uint32_t gen;
    char message[SESSION_MESSAGE_MAX];
};

struct unfit_cache {
    int n, next;
    struct unfit_entry slots[UNFIT_SLOTS];
};

struct candidate {
    double score;
    int node;
    int order; /* scan order: ties go to the node found first */
};

struct group_scan {
    struct candidate *heap;
    int n, cap;
    struct candidate *deferred; /* refused for now by rules about other pods: tried again later */
    int ndeferred, deferred_cap;
    int start, scanned;
    struct fit_histogram why;
};

static void histogram_add(struct fit_histogram *h, const char *reason)
{
    for (int i = 0; i < h->nreasons; i++) {
        if (strcmp(h->reason[i], reason) == 0) {
            h->count[i]++;
            return;
        }
    }
    if (h->nreasons == MAX_REASONS)
        return;
    snprintf(h->reason[h->nreasons], SESSION_REASON_MAX, "%s", reason[0] ? reason : "node(s) didn't fit");
    h->count[h->nreasons++] = 1;
}

/* Kubernetes' FitError shape: most frequent reason first, ties by name. */
static void histogram_format(const struct fit_histogram *h, int nnodes, char *out, size_t len)
{
    int order[MAX_REASONS];
    for (int i = 0; i < h->nreasons; i++)
        order[i] = i;
    for (int i = 1; i < h->nreasons; i++) {
        for (int j = i; j > 0; j--) {
            int a = order[j - 1], b = order[j];
            bool swap = h->count[b] > h->count[a] ||
                        (h->count[b] == h->count[a] && strcmp(h->reason[b], h->reason[a]) < 0);
            if (!swap)
                break;
            order[j - 1] = b;
            order[j] = a;
        }
    }
    size_t at = (size_t)snprintf(out, len, "0/%d nodes are available", nnodes);
    for (int i = 0; i < h->nreasons && at < len; i++)
        at += (size_t)snprintf(out + at, len - at, "%s%d %s", i ? ", " : ": ", h->count[order[i]], h->reason[order[i]]);
    if (at < len)
        snprintf(out + at, len - at, ".");
}

/* --- the candidate heap: best score on top ------------------------------ */

static bool better(const struct candidate *a, const struct candidate *b)
{
    return a->score > b->score || (a->score == b->score && a->order < b->order);
}

static void sift_up(struct candidate *h, int i)
{
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!better(&h[i], &h[p]))
            break;
        struct candidate t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static void sift_down(struct candidate *h, int n, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, best = i;
        if (l < n && better(&h[l], &h[best]))
            best = l;
        if (r < n && better(&h[r], &h[best]))
            best = r;
        if (best == i)
            return;
        struct candidate t = h[i];
        h[i] = h[best];
        h[best] = t;
        i = best;
    }
}

static int heap_push(struct group_scan *g, struct candidate c)
{
    if (GROW(g->heap, g->cap, (size_t)g->n + 1, 64) != 0)
        return -1;
    g->heap[g->n] = c;
    sift_up(g->heap, g->n++);
    return 0;
}

static void heap_pop(struct group_scan *g)
{
    g->heap[0] = g->heap[--g->n];
    sift_down(g->heap, g->n, 0);
}

/* Examines up to nodes_to_find more feasible nodes, continuing where the last scan stopped. */
static int scan_more(struct session *ssn, struct job_info *ji, struct task_info *ti, struct group_scan *g)
{
    int found = 0;
    char reason[SESSION_REASON_MAX];
    while (g->scanned < ssn->nnodes && found < ssn->nodes_to_find) {
        int n = (g->start + g->scanned) % ssn->nnodes;
        g->scanned++;
        reason[0] = '\0';
        if (!session_node_passes_filters(ssn, ti, n, reason, sizeof reason) ||
            !session_predicate(ssn, ji, ti, &ssn->nodes[n], reason, sizeof reason)) {
            histogram_add(&g->why, reason);
            continue;
        }
        if (heap_push(g, (struct candidate){session_node_score(ssn, ti, &ssn->nodes[n]), n, g->scanned}) != 0) {
            ssn->out_of_memory = true;
            return found;
        }
        found++;
    }
    return found;
}

/* --- candidates that rules about other pods refuse for now -------------- */

/* A node a pod rule refuses may suit the task again after more placements (a spread's minimum
 * rises), so it waits aside rather than being dropped. */
static void defer(struct session *ssn, struct group_scan *g, struct candidate c)
{
    if (GROW(g->deferred, g->deferred_cap, (size_t)g->ndeferred + 1, 16) != 0) {
        ssn->out_of_memory = true;
        return;
    }
    g->deferred[g->ndeferred++] = c;
}

/* Puts the deferred candidates that pass now back on the heap; returns how many did. */
static int retry_deferred(struct session *ssn, struct job_info *ji, struct task_info *ti, struct group_scan *g)
{
    int kept = 0, back = 0;
    char reason[SESSION_REASON_MAX];
    for (int i = 0; i < g->ndeferred; i++) {
        struct candidate c = g->deferred[i];
        if (!session_predicate(ssn, ji, ti, &ssn->nodes[c.node], reason, sizeof reason)) {
            g->deferred[kept++] = c;
            continue;
        }
        c.score = session_node_score(ssn, ti, &ssn->nodes[c.node]);
        if (heap_push(g, c) != 0) {
            ssn->out_of_memory = true;
            break;
        }
        back++;
    }
    g->ndeferred = kept;
    return back;
}

/* Gives the deferred candidates up: each counts among the nodes that do not fit, with its reason. */
static void drop_deferred(struct session *ssn, struct job_info *ji, struct task_info *ti, struct group_scan *g)
{
    char reason[SESSION_REASON_MAX];
    for (int i = 0; i < g->ndeferred; i++) {
        reason[0] = '\0';
        if (!session_predicate(ssn, ji, ti, &ssn->nodes[g->deferred[i].node], reason, sizeof reason))
            histogram_add(&g->why, reason);
    }
    g->ndeferred = 0;
}

/* --- remembering shapes that fit nowhere --------------------------------- */

static const struct unfit_entry *unfit_lookup(const struct session *ssn, const struct task_info *ti)
{
    const struct unfit_cache *uc = ssn->unfit;
    for (int i = 0; uc && i < uc->n; i++) {
        const struct unfit_entry *e = &uc->slots[i];
        if (e->gen == ssn->release_gen && e->filter == ti->filter &&
            memcmp(&e->request, ti->request, sizeof e->request) == 0)
            return e;
    }
    return NULL;
}

static void unfit_remember(struct session *ssn, const struct task_info *ti, const char *message)
{
    if (!ssn->unfit && !(ssn->unfit = calloc(1, sizeof *ssn->unfit)))
        return;
    struct unfit_cache *uc = ssn->unfit;
    struct unfit_entry *e = &uc->slots[uc->next];
    uc->next = (uc->next + 1) % UNFIT_SLOTS;
    if (uc->n < UNFIT_SLOTS)
        uc->n++;
    e->filter = ti->filter;
    e->request = *ti->request;
    e->gen = ssn->release_gen;
    snprintf(e->message, sizeof e->message, "%s", message);
}

/* Tells the pod index and the bind-event hooks that replicas were placed (count < 0: undone). */
static void notify_bind(struct session *ssn, const struct job_info *ji, const struct task_info *ti, int node,
                        int32_t count)
{
    session_pods_moved(ssn, ji->job, ti->task, node, count);
    const struct hook_list *l = &ssn->hooks->bind_event;
    for (int i = 0; i < l->n; i++)
        l->items[i].fn.bind_event(l->items[i].state, ji, ti, node, count);
}

/* --- the statement --------------------------------------------------------- */

/* Appends a bind, merging it into the previous one of this statement (never into an earlier,
 * committed one: a rollback must find all of its own binds at or after mark). */
static int record_bind(struct session *ssn, int mark, int job, int task, int node)
{
    if (ssn->nbinds > mark) {
        struct bind_decision *last = &ssn->binds[ssn->nbinds - 1];
        if (last->job == job && last->task == task && last->node == node) {
            last->count++;
            return 0;
        }
    }
    if (GROW(ssn->binds, ssn->binds_cap, (size_t)ssn->nbinds + 1, 256) != 0) {
        ssn->out_of_memory = true;
        return -1;
    }
    ssn->binds[ssn->nbinds++] = (struct bind_decision){job, task, node, 1};
    return 0;
}

static struct task_info *find_task(struct job_info *ji, int task)
{
    for (int i = 0; i < ji->ntasks; i++)
        if (ji->tasks[i].task == task)
            return &ji->tasks[i];
    return NULL;
}

static void rollback(struct session *ssn, struct job_info *ji, int mark)
{
    for (int b = ssn->nbinds - 1; b >= mark; b--) {
        const struct bind_decision *d = &ssn->binds[b];
        struct task_info *ti = find_task(ji, d->task);
        for (int32_t k = 0; k < d->count; k++)
            resvec_add(&ssn->nodes[d->node].idle, ti->request);
        ti->pending += d->count;
        ji->pending += d->count;
        notify_bind(ssn, ji, ti, d->node, -d->count);
        ji->ready -= d->count;
        session_account(ssn, ji->job, ji, ji->queue, ti->request, d->count, -1);
    }
    if (ssn->nbinds > mark)
        ssn->release_gen++; /* resources came back: shapes remembered as unfit may fit again */
    ssn->nbinds = mark;
}

static void place_one(struct session *ssn, int mark, struct job_info *ji, struct task_info *ti, int node)
{
    if (record_bind(ssn, mark, (int)(ji - ssn->jobs), ti->task, node) != 0)
        return;
    resvec_sub(&ssn->nodes[node].idle, ti->request);
    notify_bind(ssn, ji, ti, node, 1);
    ti->pending--;
    ji->pending--;
    ji->ready++;
    session_account(ssn, ji->job, ji, ji->queue, ti->request, 1, +1);
}

/* Places as many replicas of one task group as fit and the queue allows; returns false when one
 * could not be placed (why is in fit_error or reason). */
static bool place_task(struct session *ssn, int mark, struct job_info *ji, struct task_info *ti)
{
    if (ti->pending == 0)
        return true;
    if (ti->filter < 0 && ssn->hooks->node_filter.n > 0) {
        char unused[SESSION_REASON_MAX];
        session_node_passes_filters(ssn, ti, 0, unused, sizeof unused); /* resolves ti->filter */
    }
    /* A task with rules about other pods: whether a node suits it changes with every replica placed
     * (its own or others'), so shapes are not remembered for it, candidates are checked again when
     * they reach the top, those refused wait aside and are tried again once more replicas are placed,
     * and a scan that ran dry is run again while placements move the domains. */
    bool pod_rules = ti->spec && constraints_have_pod_rules(&ti->spec->constraints);
    const struct unfit_entry *known = pod_rules ? NULL : unfit_lookup(ssn, ti);
    if (known) {
        if (ji->fit_error[0] == '\0')
            snprintf(ji->fit_error, sizeof ji->fit_error, "%s", known->message);
        return false;
    }
    struct group_scan g = {.start = ssn->nnodes ? ssn->next_start % ssn->nnodes : 0};
    bool placed_all = true;
    char reason[SESSION_REASON_MAX];
    /* Nodes first, then the queue's share: when nothing fits anywhere the nodes are the limit to
     * report, even if the share would also have stopped the task. */
    int placed_since_scan = 0, placed_since_retry = 0;
    while (ti->pending > 0 && !ssn->out_of_memory) {
        if (g.n == 0 && g.ndeferred > 0 && placed_since_retry > 0) {
            placed_since_retry = 0;
            if (retry_deferred(ssn, ji, ti, &g) > 0)
                continue;
        }
        if (g.n == 0 && scan_more(ssn, ji, ti, &g) == 0) {
            if (pod_rules && placed_since_scan > 0 && g.scanned == ssn->nnodes) {
                g.scanned = 0; /* every node again, the deferred ones with them */
                g.ndeferred = 0;
                placed_since_scan = 0;
                memset(&g.why, 0, sizeof g.why);
                continue;
            }
            drop_deferred(ssn, ji, ti, &g);
            char message[SESSION_MESSAGE_MAX];
            histogram_format(&g.why, ssn->nnodes, message, sizeof message);
            if (ji->fit_error[0] == '\0')
                snprintf(ji->fit_error, sizeof ji->fit_error, "%s", message);
            if (g.scanned == ssn->nnodes && ssn->nbinds == mark && !pod_rules && !ti->pod_rules)
                unfit_remember(ssn, ti, message);
            placed_all = false;
            break;
        }
        if (!session_allocatable(ssn, ji, ti, ji->reason, sizeof ji->reason)) {
            placed_all = false;
            break;
        }
        int node = g.heap[0].node;
        reason[0] = '\0';
        if (pod_rules && !session_predicate(ssn, ji, ti, &ssn->nodes[node], reason, sizeof reason)) {
            defer(ssn, &g, g.heap[0]);
            heap_pop(&g);
            continue;
        }
        place_one(ssn, mark, ji, ti, node);
        placed_since_scan++;
        placed_since_retry++;
        reason[0] = '\0';
        if (ti->pending > 0 && session_predicate(ssn, ji, ti, &ssn->nodes[node], reason, sizeof reason)) {
            g.heap[0].score = session_node_score(ssn, ti, &ssn->nodes[node]);
            sift_down(g.heap, g.n, 0);
        } else {
            if (pod_rules)
                defer(ssn, &g, g.heap[0]);
            else if (reason[0])
                histogram_add(&g.why, reason); /* full now: it counts among the nodes that do not fit */
            heap_pop(&g);
        }
    }
    ssn->next_start = (g.start + g.scanned) % (ssn->nnodes ? ssn->nnodes : 1);
    free(g.heap);
    free(g.deferred);
    return placed_all;
}

bool session_place_job(struct session *ssn, struct job_info *ji, bool best_effort_only)
{
    int mark = ssn->nbinds;
    ji->tried = true;
    ji->fit_error[0] = '\0';
    ji->reason[0] = '\0';
    /* The job's tasks in task order: a stable insertion sort, a job having few tasks. */
    struct task_info **order = malloc((size_t)(ji->ntasks > 0 ? ji->ntasks : 1) * sizeof *order);
    if (!order) {
        ssn->out_of_memory = true;
        return false;
    }
    int n = 0;
    for (int i = 0; i < ji->ntasks; i++) {
        int at = n++;
        for (; at > 0 && session_task_order(ssn, ji, &ji->tasks[i], order[at - 1]) < 0; at--)
            order[at] = order[at - 1];
        order[at] = &ji->tasks[i];
    }
    for (int pass = best_effort_only ? 1 : 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
            struct task_info *ti = order[i];
            if (ti->best_effort == (pass == 1))
                place_task(ssn, mark, ji, ti);
        }
    }
    free(order);
    if (ssn->nbinds > mark && !ssn->out_of_memory && session_job_ready(ssn, ji)) {
        ji->placed_now = true;
        return true;
    }
    rollback(ssn, ji, mark);
    return false;
}
