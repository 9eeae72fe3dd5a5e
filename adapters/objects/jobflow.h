/* Volcano's JobFlow and JobTemplate (flow.volcano.sh/v1alpha1) in and out: each checked with causes
 * naming their fields (a flow's targets and cycles too), rendered with Volcano's status, stored and
 * read back, and the Volcano Job a flow's step creates ("<flow>-<template>", owned by the flow). */
#ifndef CALDERA_JOBFLOW_ADAPTER_H
#define CALDERA_JOBFLOW_ADAPTER_H

#include <jansson.h>

#include "adapters/intake/intake.h"
#include "common/api_status.h"
#include "model/jobflow.h"

#define FLOW_API_VERSION "flow.volcano.sh/v1alpha1"
#define FLOW_GROUP "flow.volcano.sh"
/* Volcano's label and annotation on a flow's jobs: "<namespace>.<template>". */
#define FLOW_CREATED_BY_TEMPLATE "volcano.sh/createdByJobTemplate"
/* Caldera's: the flow a job belongs to (its name), beside the owner reference. */
#define FLOW_CREATED_BY_FLOW "caldera.io/jobflow"
/* A job's name is "<flow>-<template>" and must stay a 63-character label. */
#define FLOW_JOB_NAME_MAX 63

/* A JobTemplate POSTed to url_ns: 400 for another kind or namespace, 422 with causes. The spec is
 * checked as a Volcano Job's by the caller (volcano_job_from_doc on jobtemplate_job_document). */
int jobtemplate_from_doc(const struct intake_doc *doc, const char *url_ns, struct job_template **out,
                         struct api_status *st);
/* depends_on: status.jobDependsOnList, the jobs made from it (borrowed, may be NULL). */
json_t *jobtemplate_render(const struct job_template *t, const json_t *depends_on);
char *jobtemplate_to_store_json(const struct job_template *t);
struct job_template *jobtemplate_from_store_json(const char *json);

/* A JobFlow POSTed to url_ns: the fields, then the graph (spec.flows[i].dependsOn.targets[j]: a
 * target that is no flow of it, or one closing a cycle; spec.flows[i].name given twice). Whether
 * each template exists is the core's to say. */
int jobflow_from_doc(const struct intake_doc *doc, const char *url_ns, struct job_flow **out, struct api_status *st);
json_t *jobflow_render(const struct job_flow *f);
char *jobflow_to_store_json(const struct job_flow *f);
struct job_flow *jobflow_from_store_json(const char *json);

/* "<flow>-<template>". */
void jobflow_job_name(const struct job_flow *f, const struct flow_step *s, char *out, size_t len);
/* The Volcano Job of step s: the template's spec with the step's patch.spec merged in (strategic
 * merge: tasks and containers by name), Volcano's createdByJobTemplate label and annotation, and
 * each completed target's outputs as CALDERA_INPUT_<TARGET>_<NAME> in every container. NULL with
 * why in st. */
json_t *jobflow_job_document(const struct job_flow *f, const struct flow_step *s, const struct job_template *t,
                             struct api_status *st);
json_t *jobflow_owner_references(const struct job_flow *f);
/* A template's spec as a Volcano Job document named name (for its admission check). */
json_t *jobtemplate_job_document(const struct job_template *t, const char *name);
/* "CALDERA_INPUT_<STEP>_<NAME>": upper case, every other character than [A-Z0-9] as '_'. */
void jobflow_input_env_name(const char *step, const char *output, char *out, size_t len);

#endif
