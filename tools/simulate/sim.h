/* Running a trace through Caldera's own controller and scheduling cycle on a virtual clock, and
 * the per-job and per-queue record of what happened, as one JSON object. */
#ifndef CALDERA_SIMULATE_SIM_H
#define CALDERA_SIMULATE_SIM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "tools/simulate/trace.h"

struct sim;

struct sim_options {
    const char *file; /* names the trace in messages */
    bool events;      /* also record every journal event */
};

/* sim_run's answer when the controller refused something the trace declares (a second
 * globalDefault PriorityClass, a queue update that conflicts): the trace is at fault. */
#define SIM_TRACE_REFUSED (-2)

/* Takes the trace's nodes, queues, jobs and settings (*trace is left empty). Returns 0, or -1 with a
 * sentence in err. */
int sim_new(struct trace *trace, const struct sim_options *opt, struct sim **out, char *err, size_t errlen);
/* Runs to the end: every job finished or nothing left to happen, `until`, or 30 days. Returns 0;
 * -1 with a sentence in err (out of memory, or an instant that never settles); or
 * SIM_TRACE_REFUSED with the document and the controller's answer in err. */
int sim_run(struct sim *s, char *err, size_t errlen);
/* {"jobs":[...],"queues":[...],"end":..,"stopped":"..."} and "events" when asked for. */
json_t *sim_render(const struct sim *s);
void sim_free(struct sim *s);

#endif
