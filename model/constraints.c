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

void constraints_free(struct placement_constraints *c)
{
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
