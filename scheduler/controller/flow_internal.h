/* What the JobFlow controller's files share: recording a flow and reading
 * a completed step's outputs. Not for use outside scheduler/controller. */
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

#endif
