/* The memory of JobFlows and JobTemplates, and the names of a flow's phases.
 * (Parsing is adapters/objects/jobflow.c's, the running scheduler/controller/flow.c's.) */
#include "model/jobflow.h"

#include <stdlib.h>
#include <string.h>

const char *flow_phase_name(enum flow_phase p)
{
    static const char *const names[] = {[FLOW_PENDING] = "Pending",
                                        [FLOW_RUNNING] = "Running",
                                        [FLOW_SUCCEED] = "Succeed",
                                        [FLOW_FAILED] = "Failed",
                                        [FLOW_TERMINATING] = "Terminating"};
    return (unsigned)p <= FLOW_TERMINATING ? names[p] : "Unknown";
}

void job_template_free(struct job_template *t)
{
    if (!t)
        return;
    free(t->ns);
    free(t->name);
    json_decref(t->manifest);
    free(t);
}

static void step_free(struct flow_step *s)
{
    free(s->name);
    for (int i = 0; i < s->ntargets; i++)
        free(s->targets[i]);
    free(s->targets);
    free(s->target_idx);
    for (int i = 0; i < s->nprobes; i++) {
        free(s->probes[i].task);
        free(s->probes[i].phase);
    }
    free(s->probes);
    for (int i = 0; i < s->nnets; i++) {
        free(s->nets[i].task);
        free(s->nets[i].path);
        free(s->nets[i].header);
    }
    free(s->nets);
    for (int i = 0; i < s->noutputs; i++) {
        free(s->outputs[i].name);
        free(s->outputs[i].path);
    }
    free(s->outputs);
    json_decref(s->histories);
    json_decref(s->values);
}

void job_flow_free(struct job_flow *f)
{
    if (!f)
        return;
    for (int i = 0; i < f->nsteps; i++)
        step_free(&f->steps[i]);
    free(f->steps);
    free(f->ns);
    free(f->name);
    free(f->message);
    json_decref(f->manifest);
    free(f);
}

int job_flow_step_index(const struct job_flow *f, const char *name)
{
    for (int i = 0; i < f->nsteps; i++)
        if (strcmp(f->steps[i].name, name) == 0)
            return i;
    return -1;
}

bool flow_step_probed(const struct flow_step *s) { return s->nprobes > 0 || s->nnets > 0; }
