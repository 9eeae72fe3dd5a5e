/* What is read of JobFlows and JobTemplates without changing anything: finding one, a step's job
 * (by its name "<flow>-<template>" and its owner's uid), and a template's jobDependsOnList. Used by
 * the flow controller and by the watch rendering. */
#include "scheduler/controller/flow_view.h"

#include <string.h>

#include "adapters/objects/jobflow.h"

struct job_template *controller_find_jobtemplate(const struct cluster *c, const char *ns, const char *name)
{
    for (int i = 0; i < c->njobtemplates; i++)
        if (strcmp(c->jobtemplates[i]->ns, ns) == 0 && strcmp(c->jobtemplates[i]->name, name) == 0)
            return c->jobtemplates[i];
    return NULL;
}

int controller_jobflow_index(const struct cluster *c, const char *ns, const char *name)
{
    for (int i = 0; i < c->njobflows; i++)
        if (strcmp(c->jobflows[i]->ns, ns) == 0 && strcmp(c->jobflows[i]->name, name) == 0)
            return i;
    return -1;
}

struct job_flow *controller_find_jobflow(const struct cluster *c, const char *ns, const char *name)
{
    int i = controller_jobflow_index(c, ns, name);
    return i < 0 ? NULL : c->jobflows[i];
}

json_t *controller_jobtemplate_jobs(const struct controller *ctl, const struct job_template *t)
{
    json_t *names = json_array();
    for (int i = 0; names && i < ctl->cluster->njobflows; i++) {
        const struct job_flow *f = ctl->cluster->jobflows[i];
        int k = strcmp(f->ns, t->ns) == 0 ? job_flow_step_index(f, t->name) : -1;
        if (k >= 0 && f->steps[k].state != STEP_WAITING) {
            char name[160];
            jobflow_job_name(f, &f->steps[k], name, sizeof name);
            json_array_append_new(names, json_string(name));
        }
    }
    return names;
}

struct job *flow_step_job(const struct controller *ctl, const struct job_flow *f, const struct flow_step *s)
{
    char name[160];
    jobflow_job_name(f, s, name, sizeof name);
    struct job *job = cluster_find_job(ctl->cluster, f->ns, name);
    if (!job)
        return NULL;
    json_t *owner = json_array_get(json_object_get(json_object_get(job_manifest(job), "metadata"), "ownerReferences"),
                                   0);
    const char *uid = json_string_value(json_object_get(owner, "uid"));
    return uid && strcmp(uid, f->uid) == 0 ? job : NULL;
}
