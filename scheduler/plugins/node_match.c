/* Matching a task's placement constraints against a node's name, labels and taints with
 * Kubernetes' semantics (labels.Requirement.Matches, Toleration.ToleratesTaint). Pure. */
#include "scheduler/plugins/node_match.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *string_or_empty(const json_t *v)
{
    const char *s = json_string_value(v);
    return s ? s : "";
}

void taint_view_of(const json_t *taints, size_t i, struct taint_view *out)
{
    const json_t *t = json_array_get(taints, i);
    out->key = string_or_empty(json_object_get(t, "key"));
    out->value = string_or_empty(json_object_get(t, "value"));
    out->effect = string_or_empty(json_object_get(t, "effect"));
}

/* The node's label value for key, or NULL when it has no such label. */
static const char *label_of(const struct node *node, const char *key)
{
    return json_string_value(json_object_get(node->labels, key));
}

static bool in_values(const struct label_requirement *r, const char *s)
{
    for (int i = 0; i < r->nvalues; i++)
        if (strcmp(r->values[i], s) == 0)
            return true;
    return false;
}

/* strconv.ParseInt(s, 10, 64): a label that is not an integer never satisfies Gt or Lt. */
static bool parse_int64(const char *s, long long *out)
{
    if (!s || !*s || isspace((unsigned char)*s))
        return false;
    char *end;
    errno = 0;
    *out = strtoll(s, &end, 10);
    return errno == 0 && *end == '\0';
}

static bool compare_int(const struct label_requirement *r, const char *label)
{
    long long have, want;
    if (r->nvalues != 1 || !parse_int64(label, &have) || !parse_int64(r->values[0], &want))
        return false;
    return r->op == SEL_GT ? have > want : have < want;
}

/* One requirement against a value that may be absent (NULL): a missing label satisfies only
 * NotIn and DoesNotExist. */
static bool requirement_holds(const struct label_requirement *r, const char *value)
{
    switch (r->op) {
    case SEL_IN: return value && in_values(r, value);
    case SEL_NOT_IN: return !value || !in_values(r, value);
    case SEL_EXISTS: return value != NULL;
    case SEL_DOES_NOT_EXIST: return value == NULL;
    case SEL_GT:
    case SEL_LT: return value && compare_int(r, value);
    }
    return false;
}

/* matchFields may only name metadata.name (admission refuses anything else). */
static const char *field_of(const struct node *node, const char *key)
{
    return strcmp(key, "metadata.name") == 0 ? node->name : NULL;
}

bool node_matches_selector(const struct placement_constraints *c, const struct node *node)
{
    for (int i = 0; i < c->nselector; i++) {
        const char *have = label_of(node, c->selector_keys[i]);
        if (!have || strcmp(have, c->selector_values[i]) != 0)
            return false;
    }
    return true;
}

bool node_matches_term(const struct node_selector_term *t, const struct node *node)
{
    if (t->nexprs == 0 && t->nfields == 0)
        return false;
    for (int i = 0; i < t->nexprs; i++)
        if (!requirement_holds(&t->exprs[i], label_of(node, t->exprs[i].key)))
            return false;
    for (int i = 0; i < t->nfields; i++)
        if (!requirement_holds(&t->fields[i], field_of(node, t->fields[i].key)))
            return false;
    return true;
}

bool node_matches_required_affinity(const struct placement_constraints *c, const struct node *node)
{
    if (c->nrequired == 0)
        return true;
    for (int i = 0; i < c->nrequired; i++)
        if (node_matches_term(&c->required[i], node))
            return true;
    return false;
}

int node_preferred_weight(const struct placement_constraints *c, const struct node *node)
{
    int sum = 0;
    for (int i = 0; i < c->npreferred; i++)
        if (node_matches_term(&c->preferred[i].term, node))
            sum += c->preferred[i].weight;
    return sum;
}

int constraints_preferred_total(const struct placement_constraints *c)
{
    int sum = 0;
    for (int i = 0; i < c->npreferred; i++)
        sum += c->preferred[i].weight;
    return sum;
}

static bool empty(const char *s) { return !s || !*s; }

bool toleration_tolerates(const struct toleration *t, const struct taint_view *taint)
{
    if (!empty(t->effect) && strcmp(t->effect, taint->effect) != 0)
        return false;
    if (!empty(t->key) && strcmp(t->key, taint->key) != 0)
        return false;
    if (t->op == TOL_EXISTS)
        return true;
    return strcmp(t->value ? t->value : "", taint->value) == 0;
}

bool constraints_tolerate(const struct placement_constraints *c, const struct taint_view *taint)
{
    for (int i = 0; i < c->ntolerations; i++)
        if (toleration_tolerates(&c->tolerations[i], taint))
            return true;
    return false;
}

static bool effect_blocks_scheduling(const char *effect)
{
    return strcmp(effect, "NoSchedule") == 0 || strcmp(effect, "NoExecute") == 0;
}

bool node_untolerated_taint(const struct placement_constraints *c, const struct node *node, struct taint_view *out)
{
    size_t n = json_array_size(node->taints);
    for (size_t i = 0; i < n; i++) {
        taint_view_of(node->taints, i, out);
        if (effect_blocks_scheduling(out->effect) && !constraints_tolerate(c, out))
            return true;
    }
    return false;
}

int intolerable_taints(const struct placement_constraints *c, const struct taint_view *taints, int n)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        if (!constraints_tolerate(c, &taints[i]))
            count++;
    return count;
}
