/* Rules about other pods, judged on the framework's pod index: Kubernetes' InterPodAffinity and
 * PodTopologySpread, filter and score, in kube-scheduler's words; the predicates and nodeorder
 * plugins call them. */
#ifndef CALDERA_POD_RULES_H
#define CALDERA_POD_RULES_H

#include <stdbool.h>

#include "scheduler/framework/session.h"

/* Does any job of the session (pending or running) carry pod affinity, anti-affinity or spread?
 * When none does, the rules cost nothing. */
bool pod_rules_in_session(const struct session *ssn);
/* May one more replica of the task go to session node `node`? Spread first, then existing pods'
 * anti-affinity, the task's anti-affinity, its affinity (kube-scheduler's order); reason gets
 * the failing rule's words and task->pod_rules is set when one refuses. */
bool pod_rules_admit(struct session *ssn, const struct job_info *job, struct task_info *task, int node, char *reason,
                     int reason_len);
/* 0..100: preferred pod affinity (more matching pods in the node's domain is better, fewer for
 * anti-affinity); 0 when the task has no preferred terms. */
double pod_affinity_score(const struct session *ssn, const struct task_info *task, int node);
/* 0..100: ScheduleAnyway spread constraints (fewer matching pods in the node's domain is better);
 * 0 when the task has none. */
double pod_spread_score(const struct session *ssn, const struct task_info *task, int node);

#endif
