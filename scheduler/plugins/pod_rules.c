/* Kubernetes' InterPodAffinity and PodTopologySpread over the framework's pod index: required
 * terms and DoNotSchedule constraints filter nodes, preferred terms and ScheduleAnyway ones score. */
#include "scheduler/plugins/pod_rules.h"

#include <string.h>

#include "scheduler/framework/pod_index.h"

#define MAX_SCORE 100

static bool has_rules(const struct placement_constraints *c) { return c->npod_terms > 0 || c->nspread > 0; }

bool pod_rules_in_session(const struct session *ssn)
{
    for (const struct job *job = ssn->cluster->active_first; job; job = job->active_next)
        for (int t = 0; t < job->ntasks && !job->dormant; t++)
            if (has_rules(&job->tasks[t].constraints))
                return true;
    return false;
}

/* Refusals come by the thousand in a cycle (every candidate a rule turns down): the words are
 * copied, not formatted. */
static bool refuse(struct task_info *ti, char *reason, int len, const char *words)
{
    size_t n = strlen(words);
    if (len > 0) {
        if (n >= (size_t)len)
            n = (size_t)len - 1;
        memcpy(reason, words, n);
        reason[n] = '\0';
    }
    ti->pod_rules = true;
    return false;
}

/* Skew if one more matching pod went to the node's domain: count + self - global minimum. */
static bool spread_admits(const struct pod_rule *r, int node, char *reason, int len, struct task_info *ti)
{
    const struct spread_constraint *s = r->spread;
    int d = pod_counter_domain(r->counter, node);
    if (d < 0)
        return refuse(ti, reason, len, "node(s) didn't match pod topology spread constraints (missing required label)");
    int64_t skew = (int64_t)pod_counter_count(r->counter, d) + (r->self_match ? 1 : 0) -
                   pod_counter_min(r->counter, s->min_domains);
    if (skew > s->max_skew)
        return refuse(ti, reason, len, "node(s) didn't match pod topology spread constraints");
    return true;
}

bool pod_rules_admit(struct session *ssn, const struct job_info *ji, struct task_info *ti, int node, char *reason,
                     int len)
{
    const struct task_pod_rules *rules = session_task_pod_rules(ssn, ji, ti);
    if (!rules)
        return true;
    for (int i = 0; i < rules->nrules; i++) {
        const struct pod_rule *r = &rules->rules[i];
        if (r->spread && r->spread->do_not_schedule && !spread_admits(r, node, reason, len, ti))
            return false;
    }
    for (int i = 0; i < rules->nowners; i++) {
        int d = pod_counter_domain(rules->owners[i], node);
        if (d >= 0 && pod_counter_count(rules->owners[i], d) > 0)
            return refuse(ti, reason, len, "node(s) didn't satisfy existing pods anti-affinity rules");
    }
    for (int i = 0; i < rules->nrules; i++) {
        const struct pod_rule *r = &rules->rules[i];
        if (!r->term || !r->term->required || !r->term->anti)
            continue;
        int d = pod_counter_domain(r->counter, node);
        if (d >= 0 && pod_counter_count(r->counter, d) > 0)
            return refuse(ti, reason, len, "node(s) didn't match pod anti-affinity rules");
    }
    /* Kubernetes lets the first pod of a series that selects itself start anywhere the keys exist:
     * when no pod matches yet and the pod matches all of its own terms. */
    bool self_all = true, none_yet = false;
    for (int i = 0; i < rules->nrules; i++) {
        const struct pod_rule *r = &rules->rules[i];
        if (r->term && r->term->required && !r->term->anti) {
            self_all = self_all && r->self_match;
            none_yet = none_yet || pod_counter_total(r->counter) == 0;
        }
    }
    for (int i = 0; i < rules->nrules; i++) {
        const struct pod_rule *r = &rules->rules[i];
        if (!r->term || !r->term->required || r->term->anti)
            continue;
        int d = pod_counter_domain(r->counter, node);
        if (d < 0 || (pod_counter_count(r->counter, d) == 0 && !(none_yet && self_all)))
            return refuse(ti, reason, len, "node(s) didn't match pod affinity rules");
    }
    return true;
}

double pod_affinity_score(const struct session *ssn, const struct task_info *ti, int node)
{
    if (!ti->spec || ti->spec->constraints.npod_terms == 0)
        return 0;
    const struct task_pod_rules *rules = session_task_pod_rules_known(ssn, ti);
    double raw = 0, range = 0;
    for (int i = 0; rules && i < rules->nrules; i++) {
        const struct pod_rule *r = &rules->rules[i];
        if (!r->term || r->term->required)
            continue;
        int32_t most = pod_counter_max(r->counter);
        int d = pod_counter_domain(r->counter, node);
        double count = d >= 0 ? pod_counter_count(r->counter, d) : 0;
        raw += (r->term->anti ? -1.0 : 1.0) * r->term->weight * count;
        range += (double)r->term->weight * (most > 0 ? most : 1);
    }
    return range > 0 ? MAX_SCORE / 2.0 + MAX_SCORE / 2.0 * raw / range : 0;
}

double pod_spread_score(const struct session *ssn, const struct task_info *ti, int node)
{
    if (!ti->spec || ti->spec->constraints.nspread == 0)
        return 0;
    const struct task_pod_rules *rules = session_task_pod_rules_known(ssn, ti);
    double sum = 0;
    int n = 0;
    for (int i = 0; rules && i < rules->nrules; i++) {
        const struct pod_rule *r = &rules->rules[i];
        if (!r->spread || r->spread->do_not_schedule)
            continue;
        n++;
        int d = pod_counter_domain(r->counter, node);
        if (d < 0) /* kube-scheduler scores a node without the key lowest */
            continue;
        double most = (double)pod_counter_max(r->counter) + 1;
        sum += MAX_SCORE * (most - pod_counter_count(r->counter, d)) / most;
    }
    return n ? sum / n : 0;
}
