/* What the JobFlow controller's files share: recording a flow, reading a completed step's outputs,
 * its steps' network probes. Not for use outside scheduler/controller. */
#ifndef CALDERA_CONTROLLER_FLOW_INTERNAL_H
#define CALDERA_CONTROLLER_FLOW_INTERNAL_H

#include "scheduler/controller/flow.h"
#include "store/journal.h"

/* Records the flow (OBJECT_PUT or OBJECT_DELETE) with an event of reason and message. */
void flow_record(struct controller *ctl, struct job_flow *f, enum journal_op op, const char *reason,
                 const char *message);
/* Reads s's outputs from job's working directory into s->values. Returns 0, or -1 with why (an
 * output missing, not a regular file, behind a symbolic link, or over FLOW_OUTPUT_MAX). */
int flow_read_outputs(const struct controller *ctl, const struct job *job, struct flow_step *s, char *why,
                      size_t why_len);

/* Whether s's httpGet and tcpSocket probes pass: each one's task has a Running pod in a target and
 * the probe thread saw 127.0.0.1:port answer since. A probe whose task runs is handed to the probe
 * thread; one whose task stopped running is dropped and judged again. */
bool flow_net_probes_pass(const struct controller *ctl, const struct job_flow *f, struct flow_step *s);
/* Takes the probe thread's answers into the probes they belong to. */
void flow_probes_collect(struct controller *ctl);
/* Stops polling s's probes (its step started, or the flow ended or went); forget: their answers too. */
void flow_probes_stop(struct flow_step *s, bool forget);

#endif
