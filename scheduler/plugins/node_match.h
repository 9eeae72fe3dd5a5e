/* Does a node satisfy what a task asks of it? Kubernetes' rules for nodeSelector, node selector
 * terms and taints/tolerations, as pure functions the predicates and nodeorder plugins share. */
#ifndef CALDERA_NODE_MATCH_H
#define CALDERA_NODE_MATCH_H

#include <jansson.h>
#include <stdbool.h>

#include "model/constraints.h"
#include "model/job.h"
#include "model/node.h"

/* A taint as the matching rules see it; the strings belong to the node's taints array. */
struct taint_view {
    const char *key;
    const char *value; /* "" when unset */
    const char *effect;
};

/* A task's constraints; a task without a spec (a hand-built snapshot) asks nothing of nodes. */
static inline const struct placement_constraints *constraints_of(const struct task_spec *spec)
{
    static const struct placement_constraints none;
    return spec ? &spec->constraints : &none;
}

/* Reads element i of a node's taints array (missing fields read as ""). */
void taint_view_of(const json_t *taints, size_t i, struct taint_view *out);

/* Every nodeSelector entry equals the node's label of that key (true for an empty selector). */
bool node_matches_selector(const struct placement_constraints *c, const struct node *node);
/* All of a term's matchExpressions (on labels) and matchFields (on metadata.name) hold. A term
 * with neither matches no node, as in Kubernetes. */
bool node_matches_term(const struct node_selector_term *t, const struct node *node);
/* Required node affinity: some term matches (true when the task has no required terms). */
bool node_matches_required_affinity(const struct placement_constraints *c, const struct node *node);
/* The sum of the weights of the preferred terms the node matches. */
int node_preferred_weight(const struct placement_constraints *c, const struct node *node);
/* The sum of the weights of all preferred terms: the most node_preferred_weight can give. */
int constraints_preferred_total(const struct placement_constraints *c);

/* Kubernetes' Toleration.ToleratesTaint: an empty effect matches every effect, an empty key (with
 * Exists) every key; Exists matches any value, Equal only the same value. */
bool toleration_tolerates(const struct toleration *t, const struct taint_view *taint);
/* Some toleration of the task tolerates the taint. */
bool constraints_tolerate(const struct placement_constraints *c, const struct taint_view *taint);
/* The first taint of the node with effect NoSchedule or NoExecute that the task does not
 * tolerate: true and *out set, or false when it tolerates them all. */
bool node_untolerated_taint(const struct placement_constraints *c, const struct node *node, struct taint_view *out);
/* How many of the given taints (a node's PreferNoSchedule ones) the task does not tolerate. */
int intolerable_taints(const struct placement_constraints *c, const struct taint_view *taints, int n);

#endif
