/* What a pod template asks of nodes and of the pods around it: nodeSelector, node affinity,
 * tolerations, pod (anti-)affinity and topology spread, parsed once at admission into a compact form
 * placement can test quickly. */
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

/* A label selector over pods: matchLabels folded into In requirements, all ANDed. A selector the
 * pod spec leaves out (present false) matches no pod, an empty one every pod, as in Kubernetes. */
struct pod_selector {
    bool present;
    int nexprs;
    struct label_requirement *exprs; /* ops In, NotIn, Exists, DoesNotExist */
};

/* One podAffinity or podAntiAffinity term, required or preferred. */
struct pod_affinity_term {
    bool anti;
    bool required;
    int32_t weight; /* preferred: 1..100; required: 0 */
    struct pod_selector selector;
    int nnamespaces;
    char **namespaces;   /* none: the pod's own namespace (unless all_namespaces) */
    bool all_namespaces; /* namespaceSelector: {} */
    char *topology_key;
};

/* One topologySpreadConstraints entry. */
struct spread_constraint {
    int32_t max_skew;
    int32_t min_domains;  /* 0 when unset (one domain) */
    bool do_not_schedule; /* whenUnsatisfiable: DoNotSchedule (a filter), else ScheduleAnyway (a score) */
    char *topology_key;
    struct pod_selector selector;
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
    int npod_terms; /* affinity.podAffinity and podAntiAffinity, required and preferred */
    struct pod_affinity_term *pod_terms;
    int nspread; /* topologySpreadConstraints */
    struct spread_constraint *spread;
    /* A canonical text of everything that decides which nodes pass (selector, required terms,
     * tolerations): tasks with equal signatures pass on the same nodes, so placement computes
     * that set once per signature. "" when the task asks nothing of nodes. */
    char *signature;
};

void constraints_free(struct placement_constraints *c);
/* Does the task's placement depend on where other pods are (required pod affinity, anti-affinity,
 * or a DoNotSchedule spread constraint)? */
bool constraints_have_pod_rules(const struct placement_constraints *c);

#endif
