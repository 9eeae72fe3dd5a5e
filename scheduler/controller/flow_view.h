/* Reading JobFlows and JobTemplates on the core thread: finding them, a flow step's job and the
 * jobs made from a template. Changes nothing. */
#ifndef CALDERA_CONTROLLER_FLOW_VIEW_H
#define CALDERA_CONTROLLER_FLOW_VIEW_H

#include <jansson.h>

#include "scheduler/controller/controller.h"

struct job_template *controller_find_jobtemplate(const struct cluster *c, const char *ns, const char *name);
/* Its index in the cluster's JobFlows, or -1. */
int controller_jobflow_index(const struct cluster *c, const char *ns, const char *name);
struct job_flow *controller_find_jobflow(const struct cluster *c, const char *ns, const char *name);
/* status.jobDependsOnList of t: the jobs flows made from it (a new array). */
json_t *controller_jobtemplate_jobs(const struct controller *ctl, const struct job_template *t);
/* The live job of step s ("<flow>-<template>" owned by f), or NULL. */
struct job *flow_step_job(const struct controller *ctl, const struct job_flow *f, const struct flow_step *s);

#endif
