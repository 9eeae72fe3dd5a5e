/* The session's index of pods for inter-pod rules: groups (a job's task: its replicas share labels)
 * with their pods per node, topology keys read into domains once, and counters per rule updated
 * as replicas are placed or undone, so a rule costs a lookup per node, not a walk over pods. */
#include "scheduler/framework/pod_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/hashmap.h"

struct node_count {
    int node; /* session node */
    int32_t count;
};

struct int_list {
    int *items;
    int n, cap;
};

struct pod_group {
    const struct job *job;
    int task;
    const json_t *labels; /* the template's metadata.labels, or NULL */
    struct node_count *pods;
    int npods, pods_cap;
    struct pod_counter **counters; /* the counters that count this group's pods */
    int ncounters, counters_cap;
};

struct topo_key {
    char *key;
    int32_t *domain; /* per session node, -1 where the node lacks the label */
    int ndomains;
};

struct pod_counter {
    const struct topo_key *key;
    int32_t *count; /* per domain */
    int64_t total;
    int32_t max;
    /* Spread counters only: which domains the task may use, and how many of them hold each count. */
    uint8_t *eligible;
    int32_t neligible;
    int32_t *hist;
    int hist_cap;
    int32_t min;
};

struct owner_term {
    int group;
    const struct pod_affinity_term *term;
};

struct pod_index {
    struct pod_group *groups;
    int ngroups;
    struct hmap first_group;   /* job -> (index of its first group) + 1 */
    struct hmap label_groups;  /* "key=value" -> struct int_list of groups */
    struct hmap keys;          /* topology key -> struct topo_key */
    struct hmap counters;      /* rule identity -> struct pod_counter */
    struct owner_term *owners; /* required anti-affinity terms of every group */
    int nowners, owners_cap;
    struct hmap owners_by_label;      /* "key=value" of a term's first In requirement -> struct int_list of owners */
    struct int_list owners_unindexed; /* terms with no In requirement: tried against every task */
    struct hmap task_rules;           /* task_info -> struct task_pod_rules */
};

/* --- labels ------------------------------------------------------------------------------------ */

/* The pod's label of that key, as pod.c renders it (the per-replica task-index aside). */
static const char *group_label(const struct pod_group *g, const char *key)
{
    if (strncmp(key, "volcano.sh/", 11) == 0) {
        const char *k = key + 11;
        if (strcmp(k, "job-name") == 0)
            return g->job->name;
        if (strcmp(k, "job-namespace") == 0)
            return g->job->ns;
        if (strcmp(k, "task-spec") == 0)
            return g->job->tasks[g->task].name;
        if (strcmp(k, "queue-name") == 0)
            return g->job->queue;
    }
    return json_string_value(json_object_get(g->labels, key));
}

static bool requirement_holds(const struct label_requirement *r, const char *value)
{
    switch (r->op) {
    case SEL_EXISTS: return value != NULL;
    case SEL_DOES_NOT_EXIST: return value == NULL;
    case SEL_IN:
    case SEL_NOT_IN: {
        bool in = false;
        for (int i = 0; value && i < r->nvalues && !in; i++)
            in = strcmp(r->values[i], value) == 0;
        return r->op == SEL_IN ? in : !in;
    }
    default: return false;
    }
}

static bool selector_matches(const struct pod_selector *s, const struct pod_group *g)
{
    if (!s->present)
        return false;
    for (int i = 0; i < s->nexprs; i++)
        if (!requirement_holds(&s->exprs[i], group_label(g, s->exprs[i].key)))
            return false;
    return true;
}

static bool namespace_matches(const struct pod_affinity_term *t, const char *own_ns, const struct pod_group *g)
{
    if (t->all_namespaces)
        return true;
    if (t->nnamespaces == 0)
        return strcmp(own_ns, g->job->ns) == 0;
    for (int i = 0; i < t->nnamespaces; i++)
        if (strcmp(t->namespaces[i], g->job->ns) == 0)
            return true;
    return false;
}

static int list_add(struct int_list *l, int v)
{
    if (GROW(l->items, l->cap, (size_t)l->n + 1, 4) != 0)
        return -1;
    l->items[l->n++] = v;
    return 0;
}

static int index_in(struct hmap *map, const char *key, const char *value, int item)
{
    char text[512];
    snprintf(text, sizeof text, "%s=%s", key, value);
    struct int_list *l = strmap_get(map, text);
    if (!l) {
        char *k = strdup(text);
        if (!k || !(l = calloc(1, sizeof *l)) || strmap_put(map, k, l) != 0) {
            free(k);
            free(l);
            return -1;
        }
    }
    return list_add(l, item);
}

static int index_label(struct pod_index *px, const char *key, const char *value, int group)
{
    return index_in(&px->label_groups, key, value, group);
}

/* Files an owner's term under the values of its first In requirement: only a pod with one of
 * them can match it. */
static int index_owner(struct pod_index *px, int owner)
{
    const struct pod_selector *s = &px->owners[owner].term->selector;
    for (int i = 0; i < s->nexprs; i++) {
        const struct label_requirement *r = &s->exprs[i];
        if (r->op != SEL_IN || strcmp(r->key, "volcano.sh/task-index") == 0)
            continue;
        for (int v = 0; v < r->nvalues; v++)
            if (index_in(&px->owners_by_label, r->key, r->values[v], owner) != 0)
                return -1;
        return 0;
    }
    return s->present ? list_add(&px->owners_unindexed, owner) : 0;
}

/* --- building ---------------------------------------------------------------------------------- */

static int add_pods(struct pod_group *g, int node, int32_t count)
{
    for (int i = 0; i < g->npods; i++)
        if (g->pods[i].node == node) {
            g->pods[i].count += count;
            return 0;
        }
    if (GROW(g->pods, g->pods_cap, (size_t)g->npods + 1, 4) != 0)
        return -1;
    g->pods[g->npods++] = (struct node_count){node, count};
    return 0;
}

static int add_group(struct pod_index *px, const struct job *job, int task, const int *session_node_of)
{
    struct pod_group *g = &px->groups[px->ngroups];
    memset(g, 0, sizeof *g);
    g->job = job;
    g->task = task;
    const json_t *meta = json_object_get(job_task_template(job, task), "metadata");
    g->labels = json_object_get(meta, "labels");
    for (int32_t i = 0; i < job->tasks[task].replicas && job->task_first; i++) {
        const struct replica *r = &job->replicas[job->task_first[task] + i];
        if (r->node < 0 || (r->phase != POD_RUNNING && r->phase != POD_PENDING))
            continue;
        int n = session_node_of[r->node];
        if (n >= 0 && add_pods(g, n, 1) != 0)
            return -1;
    }
    int id = px->ngroups++;
    const char *keys[] = {"volcano.sh/job-name", "volcano.sh/job-namespace", "volcano.sh/task-spec",
                          "volcano.sh/queue-name"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (index_label(px, keys[k], group_label(g, keys[k]), id) != 0)
            return -1;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)g->labels, key, v)
    {
        if (json_is_string(v) && index_label(px, key, json_string_value(v), id) != 0)
            return -1;
    }
    const struct placement_constraints *c = &job->tasks[task].constraints;
    for (int t = 0; t < c->npod_terms; t++) {
        if (!c->pod_terms[t].anti || !c->pod_terms[t].required)
            continue;
        if (GROW(px->owners, px->owners_cap, (size_t)px->nowners + 1, 16) != 0)
            return -1;
        px->owners[px->nowners++] = (struct owner_term){id, &c->pod_terms[t]};
        if (index_owner(px, px->nowners - 1) != 0)
            return -1;
    }
    return 0;
}

static struct pod_index *build(struct session *ssn)
{
    struct pod_index *px = calloc(1, sizeof *px);
    const struct cluster *c = ssn->cluster;
    int *session_node_of = malloc((size_t)(c->nnodes > 0 ? c->nnodes : 1) * sizeof *session_node_of);
    size_t ngroups = 0;
    for (const struct job *job = c->active_first; job; job = job->active_next)
        ngroups += (size_t)job->ntasks;
    if (!px || !session_node_of || !(px->groups = calloc(ngroups + 1, sizeof *px->groups)))
        goto fail;
    for (int i = 0; i < c->nnodes; i++)
        session_node_of[i] = -1;
    for (int i = 0; i < ssn->nnodes; i++)
        session_node_of[ssn->nodes[i].index] = i;
    for (const struct job *job = c->active_first; job; job = job->active_next) {
        if (job->deleted || job->dormant || job->ntasks == 0)
            continue;
        if (ptrmap_put(&px->first_group, job, (void *)(intptr_t)(px->ngroups + 1)) != 0)
            goto fail;
        for (int t = 0; t < job->ntasks; t++)
            if (add_group(px, job, t, session_node_of) != 0)
                goto fail;
    }
    free(session_node_of);
    return px;
fail:
    free(session_node_of);
    ssn->pods = px;
    session_pod_index_free(ssn);
    ssn->out_of_memory = true;
    return NULL;
}

static int group_of(const struct pod_index *px, const struct job *job, int task)
{
    intptr_t first = (intptr_t)ptrmap_get(&px->first_group, job);
    return first > 0 ? (int)first - 1 + task : -1;
}

/* --- topology keys and counters ------------------------------------------------------------------ */

static const struct topo_key *topo_key_for(struct session *ssn, const char *key)
{
    struct pod_index *px = ssn->pods;
    struct topo_key *k = strmap_get(&px->keys, key);
    if (k)
        return k;
    struct hmap values = {0};
    if (!(k = calloc(1, sizeof *k)) || !(k->key = strdup(key)) ||
        !(k->domain = malloc((size_t)(ssn->nnodes > 0 ? ssn->nnodes : 1) * sizeof *k->domain)))
        goto fail;
    for (int n = 0; n < ssn->nnodes; n++) {
        const char *v = json_string_value(json_object_get(ssn->nodes[n].node->labels, key));
        k->domain[n] = -1;
        if (!v)
            continue;
        intptr_t id = (intptr_t)strmap_get(&values, v);
        if (id == 0) {
            id = ++k->ndomains;
            if (strmap_put(&values, v, (void *)id) != 0)
                goto fail;
        }
        k->domain[n] = (int32_t)id - 1;
    }
    hmap_free(&values);
    if (strmap_put(&px->keys, k->key, k) != 0)
        goto fail;
    return k;
fail:
    hmap_free(&values);
    if (k) {
        free(k->key);
        free(k->domain);
        free(k);
    }
    return NULL;
}

static int hist_add(struct pod_counter *c, int32_t value, int32_t delta)
{
    if (value >= c->hist_cap) {
        int cap = c->hist_cap ? c->hist_cap : 8;
        while (cap <= value)
            cap *= 2;
        int32_t *h = realloc(c->hist, (size_t)cap * sizeof *h);
        if (!h)
            return -1;
        memset(h + c->hist_cap, 0, (size_t)(cap - c->hist_cap) * sizeof *h);
        c->hist = h;
        c->hist_cap = cap;
    }
    c->hist[value] += delta;
    return 0;
}

static void counter_add(struct pod_counter *c, int node, int32_t count)
{
    int d = node >= 0 ? c->key->domain[node] : -1;
    if (d < 0)
        return;
    int32_t before = c->count[d], after = before + count;
    c->count[d] = after;
    c->total += count;
    if (after > c->max)
        c->max = after;
    if (!c->eligible || !c->eligible[d])
        return;
    if (hist_add(c, before, -1) != 0 || hist_add(c, after, +1) != 0)
        return;
    if (after < c->min)
        c->min = after;
    while (c->min < c->hist_cap && c->hist[c->min] == 0 && c->min < c->max)
        c->min++;
}

static void counter_free(struct pod_counter *c)
{
    if (!c)
        return;
    free(c->count);
    free(c->eligible);
    free(c->hist);
    free(c);
}

/* A counter over the groups `wanted` keeps, found again by identity `id`. */
static struct pod_counter *counter_for(struct session *ssn, const char *id, const char *key,
                                       bool (*wanted)(const struct pod_group *g, const void *arg), const void *arg,
                                       const struct int_list *candidates)
{
    struct pod_index *px = ssn->pods;
    struct pod_counter *c = strmap_get(&px->counters, id);
    if (c)
        return c;
    const struct topo_key *k = topo_key_for(ssn, key);
    char *idcopy = strdup(id);
    if (!k || !idcopy || !(c = calloc(1, sizeof *c)) ||
        !(c->count = calloc((size_t)(k->ndomains > 0 ? k->ndomains : 1), sizeof *c->count)))
        goto fail;
    c->key = k;
    int n = candidates ? candidates->n : px->ngroups;
    for (int i = 0; i < n; i++) {
        struct pod_group *g = &px->groups[candidates ? candidates->items[i] : i];
        if (!wanted(g, arg))
            continue;
        if (GROW(g->counters, g->counters_cap, (size_t)g->ncounters + 1, 2) != 0)
            goto fail;
        g->counters[g->ncounters++] = c;
        for (int p = 0; p < g->npods; p++)
            counter_add(c, g->pods[p].node, g->pods[p].count);
    }
    if (strmap_put(&px->counters, idcopy, c) != 0)
        goto fail;
    return c;
fail:
    free(idcopy);
    if (c) /* groups that took it keep a dangling entry: the session is given up (out of memory) */
        counter_free(c);
    ssn->out_of_memory = true;
    return NULL;
}

struct term_match {
    const struct pod_selector *selector;
    const struct pod_affinity_term *term; /* NULL: spread, own namespace */
    const char *ns;
};

static bool term_wanted(const struct pod_group *g, const void *arg)
{
    const struct term_match *m = arg;
    if (m->term ? !namespace_matches(m->term, m->ns, g) : strcmp(m->ns, g->job->ns) != 0)
        return false;
    return selector_matches(m->selector, g);
}

static bool group_wanted(const struct pod_group *g, const void *arg) { return g == arg; }

/* The groups that may match a selector: those holding its first In requirement's values, or all. */
static const struct int_list *candidates_of(struct pod_index *px, const struct pod_selector *s,
                                            struct int_list *scratch)
{
    for (int i = 0; i < s->nexprs; i++) {
        const struct label_requirement *r = &s->exprs[i];
        if (r->op != SEL_IN || strcmp(r->key, "volcano.sh/task-index") == 0)
            continue;
        scratch->n = 0;
        for (int v = 0; v < r->nvalues; v++) {
            char text[512];
            snprintf(text, sizeof text, "%s=%s", r->key, r->values[v]);
            const struct int_list *l = strmap_get(&px->label_groups, text);
            for (int j = 0; l && j < l->n; j++)
                if (list_add(scratch, l->items[j]) != 0)
                    return NULL;
        }
        return scratch;
    }
    return NULL;
}

static struct pod_counter *rule_counter(struct session *ssn, const void *rule, const struct pod_selector *sel,
                                        const struct pod_affinity_term *term, const char *ns, const char *key)
{
    char id[64];
    snprintf(id, sizeof id, "r%p", rule);
    struct int_list scratch = {0};
    struct term_match m = {sel, term, ns};
    const struct int_list *cands = candidates_of(ssn->pods, sel, &scratch);
    struct pod_counter *c = counter_for(ssn, id, key, term_wanted, &m, cands);
    free(scratch.items);
    return c;
}

/* Spread: the domains of the nodes the task's static filters let it use. */
static int mark_eligible(struct session *ssn, struct task_info *ti, struct pod_counter *c)
{
    if (c->eligible)
        return 0;
    if (!(c->eligible = calloc((size_t)(c->key->ndomains > 0 ? c->key->ndomains : 1), 1)))
        return -1;
    char unused[SESSION_REASON_MAX];
    for (int n = 0; n < ssn->nnodes; n++) {
        int d = c->key->domain[n];
        if (d >= 0 && !c->eligible[d] && session_node_passes_filters(ssn, ti, n, unused, sizeof unused)) {
            c->eligible[d] = 1;
            c->neligible++;
        }
    }
    c->min = INT32_MAX;
    for (int d = 0; d < c->key->ndomains; d++) {
        if (!c->eligible[d])
            continue;
        if (hist_add(c, c->count[d], +1) != 0)
            return -1;
        if (c->count[d] < c->min)
            c->min = c->count[d];
    }
    if (c->min == INT32_MAX)
        c->min = 0;
    return 0;
}

/* --- a task's rules ----------------------------------------------------------------------------- */

static void rules_free(struct task_pod_rules *r)
{
    if (!r)
        return;
    free(r->rules);
    free(r->owners);
    free(r->owner_names);
    free(r->owner_terms);
    free(r);
}

static int add_owner(struct session *ssn, int self, const struct pod_group *me, int owner, struct task_pod_rules *r)
{
    struct pod_index *px = ssn->pods;
    const struct owner_term *o = &px->owners[owner];
    const struct pod_group *og = &px->groups[o->group];
    if (o->group == self) /* the task's own terms are its rules already */
        return 0;
    if (!namespace_matches(o->term, og->job->ns, me) || !selector_matches(&o->term->selector, me))
        return 0;
    for (int i = 0; i < r->nowners; i++) /* filed under two of its labels' values */
        if (r->owner_terms[i] == o->term && r->owner_names[i] == og->job->name)
            return 0;
    char id[96];
    snprintf(id, sizeof id, "g%d:%p", o->group, (const void *)o->term);
    struct pod_counter *c = counter_for(ssn, id, o->term->topology_key, group_wanted, og, NULL);
    if (!c)
        return -1;
    int n = r->nowners + 1;
    void *a = realloc(r->owners, (size_t)n * sizeof *r->owners);
    if (a)
        r->owners = a;
    void *b = realloc(r->owner_names, (size_t)n * sizeof *r->owner_names);
    if (b)
        r->owner_names = b;
    void *t = realloc(r->owner_terms, (size_t)n * sizeof *r->owner_terms);
    if (t)
        r->owner_terms = t;
    if (!a || !b || !t)
        return -1;
    r->owners[r->nowners] = c;
    r->owner_terms[r->nowners] = o->term;
    r->owner_names[r->nowners++] = og->job->name;
    return 0;
}

static int owners_under(struct session *ssn, int self, const struct pod_group *me, const char *key, const char *value,
                        struct task_pod_rules *r)
{
    char text[512];
    snprintf(text, sizeof text, "%s=%s", key, value);
    const struct int_list *l = strmap_get(&ssn->pods->owners_by_label, text);
    for (int i = 0; l && i < l->n; i++)
        if (add_owner(ssn, self, me, l->items[i], r) != 0)
            return -1;
    return 0;
}

/* Required anti-affinity of other tasks that selects this one: looked up by the task's labels. */
static int add_owners(struct session *ssn, int self, const struct pod_group *me, struct task_pod_rules *r)
{
    struct pod_index *px = ssn->pods;
    if (px->nowners == 0)
        return 0;
    for (int i = 0; i < px->owners_unindexed.n; i++)
        if (add_owner(ssn, self, me, px->owners_unindexed.items[i], r) != 0)
            return -1;
    static const char *const keys[] = {"volcano.sh/job-name", "volcano.sh/job-namespace", "volcano.sh/task-spec",
                                       "volcano.sh/queue-name"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (owners_under(ssn, self, me, keys[k], group_label(me, keys[k]), r) != 0)
            return -1;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)me->labels, key, v)
    {
        if (json_is_string(v) && owners_under(ssn, self, me, key, json_string_value(v), r) != 0)
            return -1;
    }
    return 0;
}

static struct task_pod_rules *resolve(struct session *ssn, const struct job_info *ji, struct task_info *ti)
{
    struct pod_index *px = ssn->pods;
    const struct placement_constraints *pc = &ti->spec->constraints;
    int self = group_of(px, ji->job, ti->task);
    struct task_pod_rules *r = calloc(1, sizeof *r);
    if (!r || !(r->rules = calloc((size_t)(pc->npod_terms + pc->nspread + 1), sizeof *r->rules)))
        goto fail;
    const struct pod_group *me = self >= 0 ? &px->groups[self] : NULL;
    for (int i = 0; i < pc->npod_terms; i++) {
        const struct pod_affinity_term *t = &pc->pod_terms[i];
        struct pod_rule *rule = &r->rules[r->nrules++];
        rule->term = t;
        rule->self_match = me && namespace_matches(t, ji->job->ns, me) && selector_matches(&t->selector, me);
        if (!(rule->counter = rule_counter(ssn, t, &t->selector, t, ji->job->ns, t->topology_key)))
            goto fail;
    }
    for (int i = 0; i < pc->nspread; i++) {
        const struct spread_constraint *s = &pc->spread[i];
        struct pod_rule *rule = &r->rules[r->nrules++];
        rule->spread = s;
        rule->self_match = me && selector_matches(&s->selector, me);
        if (!(rule->counter = rule_counter(ssn, s, &s->selector, NULL, ji->job->ns, s->topology_key)) ||
            mark_eligible(ssn, ti, rule->counter) != 0)
            goto fail;
    }
    if (me && add_owners(ssn, self, me, r) != 0)
        goto fail;
    return r;
fail:
    rules_free(r);
    ssn->out_of_memory = true;
    return NULL;
}

const struct task_pod_rules *session_task_pod_rules(struct session *ssn, const struct job_info *ji,
                                                    struct task_info *ti)
{
    if (ti->pod_rules_resolved)
        return ti->rules_of;
    if (!ti->spec)
        return NULL;
    if (!ssn->pods && !(ssn->pods = build(ssn)))
        return NULL;
    struct task_pod_rules *r = resolve(ssn, ji, ti);
    if (!r)
        return NULL;
    if (ptrmap_put(&ssn->pods->task_rules, ti, r) != 0) {
        rules_free(r);
        ssn->out_of_memory = true;
        return NULL;
    }
    ti->pod_rules_resolved = true;
    ti->rules_of = r->nrules + r->nowners > 0 ? r : NULL;
    return ti->rules_of;
}

const struct task_pod_rules *session_task_pod_rules_known(const struct session *ssn, const struct task_info *ti)
{
    (void)ssn;
    return ti->rules_of;
}

/* --- reading counters ------------------------------------------------------------------------------ */

int pod_counter_domain(const struct pod_counter *c, int node) { return c->key->domain[node]; }
int32_t pod_counter_count(const struct pod_counter *c, int domain) { return domain >= 0 ? c->count[domain] : 0; }
int64_t pod_counter_total(const struct pod_counter *c) { return c->total; }
int32_t pod_counter_max(const struct pod_counter *c) { return c->max; }

int32_t pod_counter_min(const struct pod_counter *c, int32_t min_domains)
{
    if (c->neligible < (min_domains > 0 ? min_domains : 1))
        return 0;
    return c->min;
}

/* --- keeping current ------------------------------------------------------------------------------ */

void session_pods_moved(struct session *ssn, const struct job *job, int task, int node, int32_t count)
{
    struct pod_index *px = ssn->pods;
    if (!px)
        return;
    int g = group_of(px, job, task);
    if (g < 0)
        return;
    struct pod_group *grp = &px->groups[g];
    if (add_pods(grp, node, count) != 0) {
        ssn->out_of_memory = true;
        return;
    }
    for (int i = 0; i < grp->ncounters; i++)
        counter_add(grp->counters[i], node, count);
}

void session_pod_index_free(struct session *ssn)
{
    struct pod_index *px = ssn->pods;
    if (!px)
        return;
    for (int i = 0; i < px->ngroups; i++) {
        free(px->groups[i].pods);
        free(px->groups[i].counters);
    }
    free(px->groups);
    size_t pos = 0;
    const void *key;
    void *value;
    while (hmap_next(&px->label_groups, &pos, &key, &value)) {
        free((void *)key);
        free(((struct int_list *)value)->items);
        free(value);
    }
    pos = 0;
    while (hmap_next(&px->keys, &pos, &key, &value)) {
        struct topo_key *k = value;
        free(k->key);
        free(k->domain);
        free(k);
    }
    pos = 0;
    while (hmap_next(&px->counters, &pos, &key, &value)) {
        free((void *)key);
        counter_free(value);
    }
    pos = 0;
    while (hmap_next(&px->task_rules, &pos, &key, &value))
        rules_free(value);
    pos = 0;
    while (hmap_next(&px->owners_by_label, &pos, &key, &value)) {
        free((void *)key);
        free(((struct int_list *)value)->items);
        free(value);
    }
    hmap_free(&px->owners_by_label);
    free(px->owners_unindexed.items);
    hmap_free(&px->first_group);
    hmap_free(&px->label_groups);
    hmap_free(&px->keys);
    hmap_free(&px->counters);
    hmap_free(&px->task_rules);
    free(px->owners);
    free(px);
    ssn->pods = NULL;
}
