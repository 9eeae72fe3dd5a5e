/* Freeing placement constraints (node selectors, affinities, tolerations); matching them against
 * nodes is the predicates plugin's job. */
#include "model/constraints.h"

#include <stdlib.h>
#include <string.h>

static void requirements_free(struct label_requirement *r, int n)
{
    for (int i = 0; i < n; i++) {
        free(r[i].key);
        for (int v = 0; v < r[i].nvalues; v++)
            free(r[i].values[v]);
        free(r[i].values);
    }
    free(r);
}

static void term_free(struct node_selector_term *t)
{
    requirements_free(t->exprs, t->nexprs);
    requirements_free(t->fields, t->nfields);
}

static void pod_selector_free(struct pod_selector *s) { requirements_free(s->exprs, s->nexprs); }

static void pod_rules_free(struct placement_constraints *c)
{
    for (int i = 0; i < c->npod_terms; i++) {
        struct pod_affinity_term *t = &c->pod_terms[i];
        pod_selector_free(&t->selector);
        for (int n = 0; n < t->nnamespaces; n++)
            free(t->namespaces[n]);
        free(t->namespaces);
        free(t->topology_key);
    }
    free(c->pod_terms);
    for (int i = 0; i < c->nspread; i++) {
        pod_selector_free(&c->spread[i].selector);
        free(c->spread[i].topology_key);
    }
    free(c->spread);
}

bool constraints_have_pod_rules(const struct placement_constraints *c)
{
    for (int i = 0; i < c->npod_terms; i++)
        if (c->pod_terms[i].required)
            return true;
    for (int i = 0; i < c->nspread; i++)
        if (c->spread[i].do_not_schedule)
            return true;
    return false;
}

void constraints_free(struct placement_constraints *c)
{
    pod_rules_free(c);
    for (int i = 0; i < c->nselector; i++) {
        free(c->selector_keys[i]);
        free(c->selector_values[i]);
    }
    free(c->selector_keys);
    free(c->selector_values);
    for (int i = 0; i < c->nrequired; i++)
        term_free(&c->required[i]);
    free(c->required);
    for (int i = 0; i < c->npreferred; i++)
        term_free(&c->preferred[i].term);
    free(c->preferred);
    for (int i = 0; i < c->ntolerations; i++) {
        free(c->tolerations[i].key);
        free(c->tolerations[i].value);
        free(c->tolerations[i].effect);
    }
    free(c->tolerations);
    free(c->signature);
    memset(c, 0, sizeof *c);
}
