/* A JobFlow's steps as a graph, pure: the checks made at submit (a target that is no step of the
 * flow, a cycle) and the plan of each sync (which steps start now, the flow's phase). */
#ifndef CALDERA_MODEL_FLOW_DAG_H
#define CALDERA_MODEL_FLOW_DAG_H

#include <stdbool.h>

#include "model/jobflow.h"

enum flow_dag_problem { FLOW_DAG_OK, FLOW_DAG_MISSING_TARGET, FLOW_DAG_CYCLE, FLOW_DAG_DUPLICATE, FLOW_DAG_NOMEM };

/* Resolves every step's targets to step indexes (target_idx). Returns 0, or -1 out of memory. */
int flow_dag_resolve(struct job_flow *f);

/* The first problem of f's graph: a step named twice (*step the second), a dependsOn target that is
 * not a step (*step and *target its index in targets), or a cycle (*step one of its steps, *target
 * the target closing it). Resolves the targets first. */
enum flow_dag_problem flow_dag_check(struct job_flow *f, int *step, int *target);

struct flow_plan {
    int *start; /* indexes of the steps to create now (caller's array of f->nsteps) */
    int nstart;
    enum flow_phase phase;
    int failed_step; /* the first failed step when phase is Failed, else -1 */
};

/* From the steps' states: a waiting step starts when each target completed, or, with a probe, when
 * each target's job exists and probe_ok[i] says its probes pass; nothing starts once a step failed.
 * The phase: Failed when a step failed, Succeed when all completed, Running once a job runs or
 * completed, else Pending (Volcano's rules). plan->start must hold f->nsteps. */
void flow_dag_plan(const struct job_flow *f, const bool *probe_ok, struct flow_plan *plan);

#endif
