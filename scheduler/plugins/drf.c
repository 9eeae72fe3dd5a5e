/* The drf plugin (Dominant Resource Fairness): jobs, and namespaces within a queue, that hold the
 * smallest dominant share of the zone go first; with enablePreemptable, a victim must hold a larger
 * share than its preemptor would after the move. */
#include <stdlib.h>
#include <string.h>

#include "common/hashmap.h"
#include "scheduler/framework/plugin.h"

struct ns_share {
    const char *ns; /* points into a job of the cluster, which outlives the session */
    struct resvec allocated;
};

struct drf {
    const struct session *ssn;
    struct hmap namespaces; /* ns -> struct ns_share */
};

static double dominant_share(const struct session *ssn, const struct resvec *allocated)
{
    double share = 0;
    for (int r = 0; r < RES_MAX; r++) {
        if (r == RES_PODS || ssn->total.v[r] <= 0)
            continue;
        double s = (double)allocated->v[r] / (double)ssn->total.v[r];
        if (s > share)
            share = s;
    }
    return share;
}

static int compare_shares(double a, double b) { return a == b ? 0 : a < b ? -1 : 1; }

static int drf_job_order(void *state, const struct job_info *a, const struct job_info *b)
{
    const struct drf *d = state;
    return compare_shares(dominant_share(d->ssn, &a->allocated), dominant_share(d->ssn, &b->allocated));
}

static int drf_namespace_order(void *state, const char *a, const char *b)
{
    const struct drf *d = state;
    const struct ns_share *x = strmap_get(&d->namespaces, a), *y = strmap_get(&d->namespaces, b);
    return compare_shares(x ? dominant_share(d->ssn, &x->allocated) : 0, y ? dominant_share(d->ssn, &y->allocated) : 0);
}

static struct ns_share *namespace_of(struct drf *d, const char *ns)
{
    struct ns_share *s = strmap_get(&d->namespaces, ns);
    if (s)
        return s;
    s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ns = ns;
    if (strmap_put(&d->namespaces, s->ns, s) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

static void drf_on_allocate(void *state, const struct job *job, struct job_info *info, const struct resvec *request,
                            int32_t count, int sign)
{
    (void)info;
    struct ns_share *s = namespace_of(state, job->ns);
    for (int32_t k = 0; s && k < count; k++) {
        if (sign > 0)
            resvec_add(&s->allocated, request);
        else
            resvec_sub(&s->allocated, request);
    }
}

/* Volcano's rule: evict a victim only if the preemptor, having taken it, still holds a smaller
 * share than the victim's job after losing it. */
static int drf_victims(void *state, const struct job_info *preemptor, struct victim **cands, int n)
{
    const struct drf *d = state;
    int kept = 0;
    for (int i = 0; i < n; i++) {
        struct resvec after_preemptor = preemptor->allocated, after_victim = cands[i]->job->allocated;
        resvec_add(&after_preemptor, cands[i]->request);
        resvec_sub(&after_victim, cands[i]->request);
        if (dominant_share(d->ssn, &after_preemptor) < dominant_share(d->ssn, &after_victim))
            cands[kept++] = cands[i];
    }
    return kept;
}

static int drf_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    struct drf *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    d->ssn = ssn;
    for (const struct job *job = ssn->cluster->active_first; job; job = job->active_next) {
        if (job->deleted || strcmp(job->scheduler_name, ssn->scheduler_name) != 0)
            continue;
        struct ns_share *s = namespace_of(d, job->ns);
        if (s)
            resvec_add(&s->allocated, &job->allocated);
    }
    *state = d;
    session_add_job_order(ssn, conf, tier, drf_job_order, d);
    session_add_namespace_order(ssn, conf, tier, drf_namespace_order, d);
    session_add_preemptable(ssn, conf, tier, drf_victims, d);
    session_add_allocate_event(ssn, drf_on_allocate, d);
    return 0;
}

static void drf_close(struct session *ssn, void *state)
{
    (void)ssn;
    struct drf *d = state;
    void *v;
    for (size_t i = 0; hmap_next(&d->namespaces, &i, NULL, &v);)
        free(v);
    hmap_free(&d->namespaces);
    free(d);
}

const struct plugin_def plugin_drf = {"drf", drf_open, drf_close};
