/* What a pod template asks of nodes: nodeSelector, required and preferred node affinity, and
 * tolerations, parsed once at admission into a compact form placement can test quickly. */
#ifndef CALDERA_CONSTRAINTS_H
#define CALDERA_CONSTRAINTS_H

#include <stdbool.h>
#include <stdint.h>

enum selector_op { SEL_IN, SEL_NOT_IN, SEL_EXISTS, SEL_DOES_NOT_EXIST, SEL_GT, SEL_LT };

/* One matchExpressions (or matchFields) entry. */
struct label_requirement {
    char *key;
    enum selector_op op;
    int nvalues;
    char **values;
};

/* A NodeSelectorTerm: all of its requirements must hold. matchFields may only use metadata.name. */
struct node_selector_term {
    int nexprs;
    struct label_requirement *exprs;
    int nfields;
    struct label_requirement *fields;
};

struct preferred_term {
    int32_t weight; /* 1..100 */
    struct node_selector_term term;
};

enum toleration_op { TOL_EQUAL, TOL_EXISTS };

struct toleration {
    char *key; /* NULL or "" with TOL_EXISTS tolerates every taint */
    enum toleration_op op;
    char *value;
    char *effect; /* NULL or "" matches every effect */
};

struct placement_constraints {
    int nselector; /* nodeSelector: every key must equal its value */
    char **selector_keys;
    char **selector_values;
    int nrequired;                       /* requiredDuringSchedulingIgnoredDuringExecution: */
    struct node_selector_term *required; /*   the terms are ORed */
    int npreferred;                      /* preferredDuringSchedulingIgnoredDuringExecution */
    struct preferred_term *preferred;
    int ntolerations;
    struct toleration *tolerations;
    /* A canonical text of everything that decides which nodes pass (selector, required terms,
     * tolerations): tasks with equal signatures pass on the same nodes, so placement computes
     * that set once per signature. "" when the task asks nothing of nodes. */
    char *signature;
};

void constraints_free(struct placement_constraints *c);

#endif
