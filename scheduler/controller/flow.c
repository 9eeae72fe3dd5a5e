/* JobTemplates and JobFlows in the cluster: found, created, deleted, restored, and recorded as
 * objects rows with an event each. A flow's deletion stops its running jobs and, under
 * jobRetainPolicy delete, deletes them. The syncing is flow_sync.c's. */
#include "scheduler/controller/flow.h"

#include <stdlib.h>
#include <string.h>

#include "adapters/objects/jobflow.h"
#include "common/log.h"
#include "scheduler/controller/flow_internal.h"
#include "scheduler/controller/internal.h"

static int grow_push(void ***all, int *n, void *item)
{
    void **more = realloc(*all, (size_t)(*n + 1) * sizeof *more);
    if (!more)
        return -1;
    more[(*n)++] = item;
    *all = more;
    return 0;
}

void flow_record(struct controller *ctl, struct job_flow *f, enum journal_op op, const char *reason,
                 const char *message)
{
    bool put = op == JOURNAL_OBJECT_PUT;
    const char *phase = flow_phase_name(f->phase);
    struct journal_entry *e = record_object_event(ctl, op, JOBFLOW_KIND, f->ns, f->name, &f->resource_version, phase,
                                                  put ? phase : "", reason, "%s", message);
    record_object_row(e, JOBFLOW_KIND, f->ns, f->name, put ? jobflow_to_store_json(f) : NULL);
    f->dirty = false;
    f->recorded_ms = ctl->now_ms;
}

static void record_template(struct controller *ctl, struct job_template *t, enum journal_op op, const char *reason,
                            const char *message)
{
    bool put = op == JOURNAL_OBJECT_PUT;
    struct journal_entry *e = record_object_event(ctl, op, JOBTEMPLATE_KIND, t->ns, t->name, &t->resource_version, "",
                                                  "", reason, "%s", message);
    record_object_row(e, JOBTEMPLATE_KIND, t->ns, t->name, put ? jobtemplate_to_store_json(t) : NULL);
}

static int already_exists(struct api_status *st, const char *resource, const char *name)
{
    api_set_details(st, resource, FLOW_GROUP, name);
    return api_fail(st, 409, "AlreadyExists", "%s.%s \"%s\" already exists", resource, FLOW_GROUP, name);
}

static int not_found(struct api_status *st, const char *resource, const char *name)
{
    api_set_details(st, resource, FLOW_GROUP, name);
    return api_fail(st, 404, "NotFound", "%s.%s \"%s\" not found", resource, FLOW_GROUP, name);
}

struct job_template *controller_create_jobtemplate(struct controller *ctl, struct job_template *t,
                                                   struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    if (controller_find_jobtemplate(ctl->cluster, t->ns, t->name)) {
        already_exists(st, "jobtemplates", t->name);
        return NULL;
    }
    uuid_v4(t->uid);
    t->created_ms = ctl->now_ms;
    if (grow_push((void ***)&ctl->cluster->jobtemplates, &ctl->cluster->njobtemplates, t) != 0) {
        api_fail(st, 500, "InternalError", "out of memory");
        return NULL;
    }
    record_template(ctl, t, JOURNAL_OBJECT_PUT, "Created", "job template created");
    return t;
}

int controller_delete_jobtemplate(struct controller *ctl, const char *ns, const char *name, uint64_t *seq,
                                  struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    struct cluster *c = ctl->cluster;
    int i = 0;
    while (i < c->njobtemplates &&
           (strcmp(c->jobtemplates[i]->ns, ns) != 0 || strcmp(c->jobtemplates[i]->name, name) != 0))
        i++;
    if (i == c->njobtemplates)
        return not_found(st, "jobtemplates", name);
    struct job_template *t = c->jobtemplates[i];
    memmove(&c->jobtemplates[i], &c->jobtemplates[i + 1], (size_t)(c->njobtemplates - i - 1) * sizeof t);
    c->njobtemplates--;
    record_template(ctl, t, JOURNAL_OBJECT_DELETE, "Deleted", "job template deleted");
    *seq = t->resource_version;
    job_template_free(t);
    return 0;
}

struct job_flow *controller_create_jobflow(struct controller *ctl, struct job_flow *f, struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    if (controller_find_jobflow(ctl->cluster, f->ns, f->name)) {
        already_exists(st, "jobflows", f->name);
        return NULL;
    }
    for (int i = 0; i < f->nsteps; i++)
        if (!controller_find_jobtemplate(ctl->cluster, f->ns, f->steps[i].name)) {
            char path[64];
            snprintf(path, sizeof path, "spec.flows[%d].name", i);
            api_add_cause(st, path, "FieldValueNotFound", 0, 0, "Not found: \"%s\": no JobTemplate of namespace %s",
                          f->steps[i].name, f->ns);
        }
    if (st->ncauses > 0) {
        api_fail_invalid(st, "JobFlow." FLOW_GROUP, f->name);
        return NULL;
    }
    uuid_v4(f->uid);
    f->created_ms = ctl->now_ms;
    f->phase = FLOW_PENDING;
    if (grow_push((void ***)&ctl->cluster->jobflows, &ctl->cluster->njobflows, f) != 0) {
        api_fail(st, 500, "InternalError", "out of memory");
        return NULL;
    }
    f->active = true;
    flow_record(ctl, f, JOURNAL_OBJECT_PUT, "Created", "job flow created");
    return f;
}

int controller_delete_jobflow(struct controller *ctl, const char *ns, const char *name, uint64_t *seq,
                              struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    struct cluster *c = ctl->cluster;
    int i = controller_jobflow_index(c, ns, name);
    if (i < 0)
        return not_found(st, "jobflows", name);
    struct job_flow *f = c->jobflows[i];
    for (int k = 0; k < f->nsteps; k++) {
        struct job *job = flow_step_job(ctl, f, &f->steps[k]);
        if (!job)
            continue;
        if (f->delete_jobs) {
            controller_delete_job(ctl, job);
        } else if (!job_phase_final(job->status.phase)) {
            struct api_status ignored = {0};
            controller_command(ctl, job, ACT_TERMINATE_JOB, "JobFlowDeleted", NULL, &ignored);
        }
    }
    for (int k = 0; k < f->nsteps; k++)
        flow_probes_stop(&f->steps[k], true);
    memmove(&c->jobflows[i], &c->jobflows[i + 1], (size_t)(c->njobflows - i - 1) * sizeof f);
    c->njobflows--;
    f->phase = FLOW_TERMINATING;
    flow_record(ctl, f, JOURNAL_OBJECT_DELETE, "Deleted", "job flow deleted");
    *seq = f->resource_version;
    job_flow_free(f);
    return 0;
}

int controller_restore_jobtemplate(struct controller *ctl, const char *json, const char *ns, const char *name)
{
    struct job_template *t = jobtemplate_from_store_json(json);
    if (t && grow_push((void ***)&ctl->cluster->jobtemplates, &ctl->cluster->njobtemplates, t) == 0)
        return 0;
    log_error("cannot restore JobTemplate %s/%s from the database: its stored object is not valid", ns, name);
    job_template_free(t);
    return -1;
}

int controller_restore_jobflow(struct controller *ctl, const char *json, const char *ns, const char *name)
{
    struct job_flow *f = jobflow_from_store_json(json);
    if (f && grow_push((void ***)&ctl->cluster->jobflows, &ctl->cluster->njobflows, f) == 0) {
        f->active = f->adopt = true; /* the first sync adopts what its jobs did meanwhile */
        return 0;
    }
    log_error("cannot restore JobFlow %s/%s from the database: its stored object is not valid", ns, name);
    job_flow_free(f);
    return -1;
}
