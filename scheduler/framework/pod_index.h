/* Where pods are, for rules about other pods (pod affinity, anti-affinity, topology spread): the
 * session's pods grouped by job task (replicas of a task share their labels), counted per domain of
 * a topology key, kept current as the session places and undoes replicas. Built on first use. */
#ifndef CALDERA_POD_INDEX_H
#define CALDERA_POD_INDEX_H

#include "scheduler/framework/session.h"

/* Pods of the groups a selector picks, per domain (the nodes sharing one value of the topology
 * key), over the session's nodes. Private fields; read through the functions below. */
struct pod_counter;

/* A task's rules about other pods, resolved once per session. */
struct pod_rule {
    const struct pod_affinity_term *term;   /* an affinity or anti-affinity term, or NULL */
    const struct spread_constraint *spread; /* else a spread constraint */
    struct pod_counter *counter;            /* the pods the rule looks at */
    bool self_match;                        /* the task's own pods match the rule's selector */
};

struct task_pod_rules {
    int nrules;
    struct pod_rule *rules;
    /* Required anti-affinity of pods already placed that selects this task (Kubernetes' symmetry):
     * counters of the owning task's pods per domain of that term's key. */
    int nowners;
    struct pod_counter **owners;
    const char **owner_names; /* the owning job's name */
    const struct pod_affinity_term **owner_terms;
};

/* The task's rules; NULL when it has none and no placed pod's anti-affinity selects it, or when
 * out of memory (ssn->out_of_memory set). */
const struct task_pod_rules *session_task_pod_rules(struct session *ssn, const struct job_info *job,
                                                    struct task_info *task);

/* The rules session_task_pod_rules resolved for this task before, or NULL (for scoring, which
 * runs after the predicates have resolved them). */
const struct task_pod_rules *session_task_pod_rules_known(const struct session *ssn, const struct task_info *task);

/* The domain of session node `node` under the counter's key, -1 when the node lacks the label. */
int pod_counter_domain(const struct pod_counter *c, int node);
/* Pods counted in a domain, in all domains, and the most in any one domain (an upper bound). */
int32_t pod_counter_count(const struct pod_counter *c, int domain);
int64_t pod_counter_total(const struct pod_counter *c);
int32_t pod_counter_max(const struct pod_counter *c);
/* Spread counters: the fewest pods in a domain the task may use (Kubernetes' global minimum;
 * 0 while fewer such domains exist than min_domains). */
int32_t pod_counter_min(const struct pod_counter *c, int32_t min_domains);

/* Placement tells the index that count replicas (negative: undone) of job's task went to session
 * node `node`; nothing happens until the index is built. */
void session_pods_moved(struct session *ssn, const struct job *job, int task, int node, int32_t count);
/* Frees the index (session_free). */
void session_pod_index_free(struct session *ssn);

#endif
