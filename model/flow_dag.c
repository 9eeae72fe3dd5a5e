/* The JobFlow graph, pure: a depth-first walk with three colours finds a cycle; each sync's plan is
 * one pass over the steps. Steps are few (at most thousands), targets fewer. */
#include "model/flow_dag.h"

#include <stdlib.h>
#include <string.h>

enum { WHITE, GREY, BLACK };

int flow_dag_resolve(struct job_flow *f)
{
    for (int s = 0; s < f->nsteps; s++) {
        struct flow_step *step = &f->steps[s];
        free(step->target_idx);
        step->target_idx = malloc(((size_t)step->ntargets + 1) * sizeof *step->target_idx);
        if (!step->target_idx)
            return -1;
        for (int t = 0; t < step->ntargets; t++)
            step->target_idx[t] = job_flow_step_index(f, step->targets[t]);
    }
    return 0;
}

/* Iterative DFS from root: returns true and sets *step and *target at the edge that closes a cycle. */
static bool find_cycle(const struct job_flow *f, unsigned char *colour, int *stack, int *next, int root, int *step,
                       int *target)
{
    int depth = 0;
    stack[0] = root;
    next[0] = 0;
    colour[root] = GREY;
    while (depth >= 0) {
        int s = stack[depth];
        if (next[depth] >= f->steps[s].ntargets) {
            colour[s] = BLACK;
            depth--;
            continue;
        }
        int t = next[depth]++;
        int d = f->steps[s].target_idx[t];
        if (colour[d] == GREY) {
            *step = s;
            *target = t;
            return true;
        }
        if (colour[d] == WHITE) {
            colour[d] = GREY;
            depth++;
            stack[depth] = d;
            next[depth] = 0;
        }
    }
    return false;
}

enum flow_dag_problem flow_dag_check(struct job_flow *f, int *step, int *target)
{
    *step = *target = -1;
    for (int s = 0; s < f->nsteps; s++)
        if (job_flow_step_index(f, f->steps[s].name) != s) {
            *step = s;
            return FLOW_DAG_DUPLICATE;
        }
    if (flow_dag_resolve(f) != 0)
        return FLOW_DAG_NOMEM;
    enum flow_dag_problem problem = FLOW_DAG_OK;
    for (int s = 0; s < f->nsteps && !problem; s++)
        for (int t = 0; t < f->steps[s].ntargets && !problem; t++)
            if (f->steps[s].target_idx[t] < 0) {
                *step = s;
                *target = t;
                problem = FLOW_DAG_MISSING_TARGET;
            }
    unsigned char *colour = problem ? NULL : calloc((size_t)f->nsteps + 1, 1);
    int *stack = colour ? malloc(((size_t)f->nsteps + 1) * sizeof *stack) : NULL;
    int *next = stack ? malloc(((size_t)f->nsteps + 1) * sizeof *next) : NULL;
    if (!problem && !next)
        problem = FLOW_DAG_NOMEM;
    for (int s = 0; s < f->nsteps && !problem; s++)
        if (colour[s] == WHITE && find_cycle(f, colour, stack, next, s, step, target))
            problem = FLOW_DAG_CYCLE;
    free(colour);
    free(stack);
    free(next);
    return problem;
}

static bool ready(const struct job_flow *f, int s, const bool *probe_ok)
{
    const struct flow_step *step = &f->steps[s];
    bool probed = flow_step_probed(step);
    for (int t = 0; t < step->ntargets; t++) {
        int d = step->target_idx ? step->target_idx[t] : -1;
        if (d < 0)
            return false;
        uint8_t st = f->steps[d].state;
        if (probed ? st == STEP_WAITING : st != STEP_COMPLETED)
            return false;
    }
    return !probed || (probe_ok && probe_ok[s]);
}

void flow_dag_plan(const struct job_flow *f, const bool *probe_ok, struct flow_plan *plan)
{
    int completed = 0;
    bool started = false;
    plan->nstart = 0;
    plan->failed_step = -1;
    for (int s = 0; s < f->nsteps; s++) {
        const struct flow_step *step = &f->steps[s];
        if (step->state == STEP_FAILED && plan->failed_step < 0)
            plan->failed_step = s;
        if (step->state == STEP_COMPLETED)
            completed++;
        if (step->state == STEP_COMPLETED || (step->state == STEP_CREATED && strcmp(step->phase, "Pending") != 0))
            started = true;
    }
    if (plan->failed_step >= 0)
        plan->phase = FLOW_FAILED;
    else if (completed == f->nsteps)
        plan->phase = FLOW_SUCCEED;
    else
        plan->phase = started ? FLOW_RUNNING : FLOW_PENDING;
    if (plan->failed_step >= 0)
        return;
    for (int s = 0; s < f->nsteps; s++)
        if (f->steps[s].state == STEP_WAITING && ready(f, s, probe_ok))
            plan->start[plan->nstart++] = s;
}
