/* The events of one job as `jobctl events JOB` and `jobctl describe JOB` show them: those of the Job
 * and its PodGroup (this incarnation: by uid) and of its pods (by name, since the job was created),
 * read from the namespace's event list page by page. */
#ifndef CALDERA_JOBCTL_JOB_EVENTS_H
#define CALDERA_JOBCTL_JOB_EVENTS_H

#include <jansson.h>

#include "tools/jobctl/args.h"

/* Whether event ev is about job (a Job object as the API gives it) or one of pods (an array of Pods). */
int job_event_matches(const json_t *ev, const json_t *job, const json_t *pods);

/* The job's events, oldest first, into *out (a new array). job and pods as above. Returns JOBCTL_OK,
 * or JOBCTL_FAIL after saying why on stderr. */
int job_events_fetch(const struct jobctl_args *a, const json_t *job, const json_t *pods, json_t **out);

#endif
