/* Reading CronJobs on the core thread: finding one, whether a job is one of its own (named
 * "<cron>-<scheduled time>" in its namespace) and its status.active. Changes nothing. */
#ifndef CALDERA_CONTROLLER_CRON_VIEW_H
#define CALDERA_CONTROLLER_CRON_VIEW_H

#include <jansson.h>
#include <stdint.h>

#include "scheduler/controller/controller.h"

/* Its index in the cluster's CronJobs, or -1. */
int controller_cronjob_index(const struct cluster *c, const char *ns, const char *name);
struct cron_job *controller_find_cronjob(const struct cluster *c, const char *ns, const char *name);
/* The scheduled time (in cron_name_unit_ms) a live job's name gives when it is one of cj's, else -1. */
int64_t controller_cronjob_owns(const struct cron_job *cj, const struct job *job);
/* status.active: references to the jobs it owns that have not finished (a new array). */
json_t *controller_cronjob_active(const struct controller *ctl, const struct cron_job *cj);

#endif
