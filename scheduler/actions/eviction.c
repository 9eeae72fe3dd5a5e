/* Eviction for a starving job (Volcano's preempt and reclaim). For each pending replica: a node
 * where idle plus releasing resources already fit it (no new victim needed), else the node where
 * the fewest acceptable victims make room. Victims go in Caldera's order: lower priority first,
 * then replicas of elastic jobs above their minAvailable (elastic jobs shrink before gangs break),
 * then one that alone covers what is missing (the fewest evictions), then the most recently
 * started (the least work lost). */
#include "scheduler/actions/eviction.h"

#include <stdlib.h>
#include <string.h>

#define MAX_CANDIDATES 4096

/* Resources a node can give a pipelined replica: idle plus what evicted replicas release, minus
 * what replicas pipelined in this session already claimed. */
struct claim {
    struct resvec *claimed; /* per session node */
};

static bool job_has_slack(const struct session *ssn, const struct victim *v)
{
    if (v->job_info < 0)
        return job_ready_count(v->job) > v->job->min_available;
    const struct job_info *ji = &ssn->jobs[v->job_info];
    return ji->ready > ji->job->min_available;
}

/* What the comparator needs besides the victims: the session, and what the replica still lacks on
 * the node (a victim that covers it alone spares the others). */
struct victim_order {
    const struct session *ssn;
    struct resvec shortfall;
};

static bool covers(const struct resvec *request, const struct resvec *shortfall)
{
    for (int r = 0; r < RES_MAX; r++)
        if (shortfall->v[r] > 0 && request->v[r] < shortfall->v[r])
            return false;
    return true;
}

static int cmp_victims(const void *a, const void *b, void *ctx)
{
    const struct victim_order *o = ctx;
    const struct victim *x = *(struct victim *const *)a, *y = *(struct victim *const *)b;
    if (x->priority != y->priority)
        return x->priority < y->priority ? -1 : 1;
    bool sx = job_has_slack(o->ssn, x), sy = job_has_slack(o->ssn, y);
    if (sx != sy)
        return sx ? -1 : 1;
    bool cx = covers(x->request, &o->shortfall), cy = covers(y->request, &o->shortfall);
    if (cx != cy)
        return cx ? -1 : 1;
    if (x->start_ms != y->start_ms)
        return x->start_ms > y->start_ms ? -1 : 1;
    if (x->job != y->job) /* the same answer every time: newer job (larger uid order) first */
        return strcmp(y->job->uid, x->job->uid);
    return y->flat - x->flat;
}

static void future_room(const struct session *ssn, const struct claim *cl, int node, struct resvec *room)
{
    *room = ssn->nodes[node].idle;
    resvec_add(room, &ssn->nodes[node].releasing);
    resvec_sub(room, &cl->claimed[node]);
}

static bool candidate_kind_ok(const struct session *ssn, const struct job_info *ji, const struct victim *v,
                              enum eviction_kind kind)
{
    if (v->evicted || v->job == ji->job)
        return false;
    if (kind == EVICT_PREEMPT)
        return v->queue == ji->queue;
    return v->queue != ji->queue && v->queue >= 0 && ssn->queues[v->queue].queue->reclaimable;
}

/* Victims on node that would make room for one replica; returns how many (0 with *fits when none
 * are needed), or -1 when the node cannot make room. */
static int victims_for(struct session *ssn, struct job_info *ji, struct task_info *ti, int node, const struct claim *cl,
                       enum eviction_kind kind, struct victim **out)
{
    struct resvec room;
    future_room(ssn, cl, node, &room);
    if (resvec_fits(ti->request, &room))
        return 0;
    int n;
    struct victim **on_node = session_victims_on(ssn, node, &n);
    int k = 0;
    for (int i = 0; i < n && k < MAX_CANDIDATES; i++)
        if (candidate_kind_ok(ssn, ji, on_node[i], kind))
            out[k++] = on_node[i];
    struct victim_order order = {ssn, *ti->request};
    resvec_sub(&order.shortfall, &room);
    qsort_r(out, (size_t)k, sizeof *out, cmp_victims, &order);
    k = kind == EVICT_PREEMPT ? session_preemptable(ssn, ji, out, k) : session_reclaimable(ssn, ji, out, k);
    for (int i = 0; i < k; i++) {
        resvec_add(&room, out[i]->request);
        if (resvec_fits(ti->request, &room))
            return i + 1;
    }
    return -1;
}

/* The best node for one more replica: no eviction needed if possible, else the fewest victims.
 * Returns -1 when no node can make room. */
static int choose_node(struct session *ssn, struct job_info *ji, struct task_info *ti, const struct claim *cl,
                       enum eviction_kind kind, struct victim **best_victims, int *nbest, struct victim **scratch)
{
    int best = -1;
    char reason[SESSION_REASON_MAX];
    for (int node = 0; node < ssn->nnodes; node++) {
        if (!session_node_passes_filters(ssn, ti, node, reason, sizeof reason))
            continue;
        int k = victims_for(ssn, ji, ti, node, cl, kind, scratch);
        if (k < 0 || (best >= 0 && k >= *nbest))
            continue;
        best = node;
        *nbest = k;
        memcpy(best_victims, scratch, (size_t)k * sizeof *scratch);
        if (k == 0)
            break;
    }
    return best;
}

static const char *verb(enum eviction_kind kind) { return kind == EVICT_PREEMPT ? "preempted" : "reclaimed"; }

/* The statement's own state, so a failed attempt can be undone exactly. */
struct eviction_statement {
    int mark; /* ssn->nevicts before it */
    struct victim **chosen;
    int nchosen;
    int32_t *pipelined; /* per task_info of the job */
    struct claim cl;
};

static bool pipeline_one(struct session *ssn, struct job_info *ji, int t, enum eviction_kind kind,
                         struct eviction_statement *st, struct victim **found, struct victim **scratch)
{
    struct task_info *ti = &ji->tasks[t];
    char why[SESSION_MESSAGE_MAX];
    /* Nodes here are chosen by resources alone: a replica that rules about other pods hold (its own
     * affinity or spread, or a running pod's anti-affinity) is not pipelined onto one. */
    if (ti->pod_rules || (ti->spec && constraints_have_pod_rules(&ti->spec->constraints)))
        return false;
    if (kind == EVICT_RECLAIM && !session_allocatable(ssn, ji, ti, why, sizeof why))
        return false;
    int nfound = 0, node = choose_node(ssn, ji, ti, &st->cl, kind, found, &nfound, scratch);
    if (node < 0)
        return false;
    struct victim **grown = realloc(st->chosen, (size_t)(st->nchosen + nfound + 1) * sizeof *grown);
    if (!grown)
        return false;
    st->chosen = grown;
    for (int i = 0; i < nfound; i++) {
        session_evict(ssn, found[i], "%s by %s/%s", verb(kind), ji->job->ns, ji->job->name);
        st->chosen[st->nchosen++] = found[i];
    }
    resvec_add(&st->cl.claimed[node], ti->request);
    session_account(ssn, ji->job, ji, ji->queue, ti->request, 1, +1);
    ji->ready++;
    st->pipelined[t]++;
    return true;
}

static void undo(struct session *ssn, struct job_info *ji, struct eviction_statement *st)
{
    session_unevict(ssn, st->mark, st->chosen, st->nchosen);
    for (int t = 0; t < ji->ntasks; t++) {
        if (st->pipelined[t] == 0)
            continue;
        session_account(ssn, ji->job, ji, ji->queue, ji->tasks[t].request, st->pipelined[t], -1);
        ji->ready -= st->pipelined[t];
    }
}

bool evict_for_job(struct session *ssn, struct job_info *ji, enum eviction_kind kind)
{
    struct eviction_statement st = {.mark = ssn->nevicts};
    st.pipelined = calloc((size_t)(ji->ntasks > 0 ? ji->ntasks : 1), sizeof *st.pipelined);
    st.cl.claimed = calloc((size_t)(ssn->nnodes > 0 ? ssn->nnodes : 1), sizeof *st.cl.claimed);
    struct victim **found = malloc(MAX_CANDIDATES * sizeof *found);
    struct victim **scratch = malloc(MAX_CANDIDATES * sizeof *scratch);
    int total = 0;
    if (st.pipelined && st.cl.claimed && found && scratch) {
        for (int t = 0; t < ji->ntasks; t++)
            while (st.pipelined[t] < ji->tasks[t].pending && session_job_starving(ssn, ji) &&
                   pipeline_one(ssn, ji, t, kind, &st, found, scratch))
                total++;
    }
    bool committed = total > 0 && session_job_ready(ssn, ji);
    if (committed)
        ji->pipelined = true;
    else if (st.pipelined)
        undo(ssn, ji, &st);
    free(st.pipelined);
    free(st.cl.claimed);
    free(st.chosen);
    free(found);
    free(scratch);
    return committed;
}
