/* Placing one job's pending replicas as a statement (Volcano's Statement): tentative binds on the
 * session's node snapshot, kept only when the gang is ready, undone otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/framework/session.h"

#define MAX_REASONS 16

/* Counts of predicate failure reasons over nodes, for "0/5 nodes are available: ..." messages. */
struct fit_histogram {
    int nreasons;
    char reason[MAX_REASONS][SESSION_REASON_MAX];
    int count[MAX_REASONS];
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
    snprintf(h->reason[h->nreasons], SESSION_REASON_MAX, "%s", reason);
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
            bool swap = h->count[b] > h->count[a] || (h->count[b] == h->count[a] && strcmp(h->reason[b], h->reason[a]) < 0);
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

/* The best node for one replica: passes every predicate, highest score, lowest index on ties. */
static int pick_node(const struct session *ssn, const struct job_info *ji, const struct task_info *ti,
                     struct fit_histogram *why)
{
    int best = -1;
    double best_score = 0;
    char reason[SESSION_REASON_MAX];
    for (int n = 0; n < ssn->nnodes; n++) {
        reason[0] = '\0';
        if (!session_predicate(ssn, ji, ti, &ssn->nodes[n], reason, sizeof reason)) {
            histogram_add(why, reason[0] ? reason : "node(s) didn't fit");
            continue;
        }
        double score = session_node_score(ssn, ti, &ssn->nodes[n]);
        if (best < 0 || score > best_score) {
            best = n;
            best_score = score;
        }
    }
    return best;
}

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
    if (ssn->nbinds == ssn->binds_cap) {
        int cap = ssn->binds_cap ? ssn->binds_cap * 2 : 64;
        struct bind_decision *b = realloc(ssn->binds, (size_t)cap * sizeof *b);
        if (!b) {
            ssn->out_of_memory = true;
            return -1;
        }
        ssn->binds = b;
        ssn->binds_cap = cap;
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
        ji->ready -= d->count;
    }
    ssn->nbinds = mark;
}

/* Places as many replicas of one task group as fit; returns false when one found no node. */
static bool place_task(struct session *ssn, int mark, struct job_info *ji, struct task_info *ti)
{
    int job_index = (int)(ji - ssn->jobs);
    while (ti->pending > 0) {
        struct fit_histogram why = {0};
        int node = pick_node(ssn, ji, ti, &why);
        if (node < 0) {
            if (ji->fit_error[0] == '\0')
                histogram_format(&why, ssn->nnodes, ji->fit_error, sizeof ji->fit_error);
            return false;
        }
        if (record_bind(ssn, mark, job_index, ti->task, node) != 0)
            return false;
        resvec_sub(&ssn->nodes[node].idle, ti->request);
        ti->pending--;
        ji->pending--;
        ji->ready++;
    }
    return true;
}

bool session_place_job(struct session *ssn, struct job_info *ji, bool best_effort_only)
{
    int mark = ssn->nbinds;
    ji->tried = true;
    ji->fit_error[0] = '\0';
    for (int pass = best_effort_only ? 1 : 0; pass < 2; pass++) {
        for (int i = 0; i < ji->ntasks; i++) {
            struct task_info *ti = &ji->tasks[i];
            if (ti->best_effort == (pass == 1))
                place_task(ssn, mark, ji, ti);
        }
    }
    if (ssn->nbinds > mark && !ssn->out_of_memory && session_job_ready(ssn, ji)) {
        ji->placed_now = true;
        return true;
    }
    rollback(ssn, ji, mark);
    return false;
}
