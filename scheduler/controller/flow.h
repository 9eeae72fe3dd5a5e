/* The JobFlow controller on the core thread: JobTemplates and JobFlows kept in the cluster and
 * stored as objects rows (kinds JobTemplate and JobFlow), and, at each loop iteration, every flow
 * with work synced: its steps' jobs created through admission as their dependencies allow. */
#ifndef CALDERA_CONTROLLER_FLOW_H
#define CALDERA_CONTROLLER_FLOW_H

#include <jansson.h>
#include <stdint.h>

#include "common/api_status.h"
#include "scheduler/controller/controller.h"
#include "scheduler/controller/flow_view.h"

#define JOBFLOW_KIND "JobFlow"
#define JOBTEMPLATE_KIND "JobTemplate"

/* Create: name free (409). On success the cluster owns the object. A JobFlow naming a JobTemplate
 * that does not exist is refused (422, the cause at spec.flows[i].name). */
struct job_template *controller_create_jobtemplate(struct controller *ctl, struct job_template *t,
                                                   struct api_status *st);
int controller_delete_jobtemplate(struct controller *ctl, const char *ns, const char *name, uint64_t *seq,
                                  struct api_status *st);
struct job_flow *controller_create_jobflow(struct controller *ctl, struct job_flow *f, struct api_status *st);
/* Stops the flow's running jobs; deletes its jobs under jobRetainPolicy delete, else keeps them. */
int controller_delete_jobflow(struct controller *ctl, const char *ns, const char *name, uint64_t *seq,
                              struct api_status *st);
/* Runs a Failed flow again from its failed steps: their jobs are deleted and made anew once their
 * dependencies allow; completed steps keep their jobs and outputs. 409 unless Failed. */
struct job_flow *controller_retry_jobflow(struct controller *ctl, const char *ns, const char *name,
                                          struct api_status *st);
/* Syncs every flow with work. Returns how many jobs it created or deleted (the core runs a cycle). */
int controller_flow_tick(struct controller *ctl);
int controller_restore_jobtemplate(struct controller *ctl, const char *json, const char *ns, const char *name);
int controller_restore_jobflow(struct controller *ctl, const char *json, const char *ns, const char *name);

#endif
