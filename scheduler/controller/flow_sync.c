/* A JobFlow's sync, at each loop iteration while it has work: each created step's job read (its
 * phase, running histories, restarts; a completed step's outputs), then the plan of flow_dag.c
 * carried out: the steps whose dependencies are met created through admission as a POSTed Job,
 * owned by the flow. The flow is recorded at once when its phase changes, else at most once a
 * second, since its steps' jobs hold what it shows. Also a failed flow's retry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "adapters/objects/jobflow.h"
#include "common/clock.h"
#include "model/flow_dag.h"
#include "scheduler/controller/flow_internal.h"
#include "scheduler/controller/internal.h"

#define FLOW_RECORD_EVERY_MS 1000

static void flow_event(struct controller *ctl, struct job_flow *f, const char *reason, const char *fmt, const char *arg)
{
    char message[512];
    snprintf(message, sizeof message, fmt, arg);
    uint64_t seq; /* an event of the flow leaves its resourceVersion where it is */
    const char *phase = flow_phase_name(f->phase);
    record_object_event(ctl, JOURNAL_EVENT, JOBFLOW_KIND, f->ns, f->name, &seq, phase, phase, reason, "%s", message);
}

static void add_history(struct controller *ctl, struct flow_step *s, const char *phase)
{
    char now[RFC3339_LEN];
    rfc3339(ctl->now_ms, now);
    if (!s->histories)
        s->histories = json_array();
    size_t n = json_array_size(s->histories);
    if (n > 0)
        json_object_set_new(json_array_get(s->histories, n - 1), "endTimestamp", json_string(now));
    json_array_append_new(s->histories, json_pack("{s:s, s:s}", "startTimestamp", now, "state", phase));
}

/* Takes the job's phase into the step; returns true when it changed. */
static bool observe(struct controller *ctl, struct job_flow *f, struct flow_step *s, struct job *job)
{
    const char *phase = job ? job_phase_name(job->status.phase) : "Failed";
    if (job)
        s->restart_count = job->status.retry_count;
    if (strcmp(s->phase, phase) == 0)
        return false;
    snprintf(s->phase, sizeof s->phase, "%s", phase);
    add_history(ctl, s, phase);
    if (!job || job_phase_final(job->status.phase)) {
        s->end_ms = job ? job->status.transition_ms : ctl->now_ms;
        s->state = job && job->status.phase == JOB_COMPLETED ? STEP_COMPLETED : STEP_FAILED;
    }
    char why[512] = "";
    if (s->state == STEP_COMPLETED && s->noutputs > 0 && flow_read_outputs(ctl, job, s, why, sizeof why) != 0) {
        s->state = STEP_FAILED;
        free(f->message);
        f->message = NULL;
        char message[700];
        snprintf(message, sizeof message, "flow %s failed: %s", s->name, why);
        f->message = strdup(message);
    }
    return true;
}

/* Whether the taskStatusList probes of step s pass on its targets' jobs: each probe's task has a pod in its
 * phase (or past it: Running holds once pods ended) in some target. */
static bool probes_pass(struct controller *ctl, struct job_flow *f, struct flow_step *s)
{
    for (int p = 0; p < s->nprobes; p++) {
        bool ok = false;
        for (int t = 0; t < s->ntargets && !ok; t++) {
            int d = s->target_idx[t];
            struct job *job = d >= 0 && f->steps[d].state != STEP_WAITING ? flow_step_job(ctl, f, &f->steps[d]) : NULL;
            for (int k = 0; job && k < job->ntasks && !ok; k++) {
                if (strcmp(job->tasks[k].name, s->probes[p].task) != 0)
                    continue;
                const struct task_counts *n = &job->task_counts[k];
                const char *want = s->probes[p].phase;
                ok = strcmp(want, "Pending") == 0     ? n->pending > 0
                     : strcmp(want, "Running") == 0   ? n->running + n->succeeded + n->failed > 0
                     : strcmp(want, "Succeeded") == 0 ? n->succeeded > 0
                                                      : n->failed > 0;
            }
        }
        if (!ok)
            return false;
    }
    return true;
}

static int create_step(struct controller *ctl, struct job_flow *f, struct flow_step *s)
{
    struct api_status st = {0};
    struct job *job = NULL;
    uint64_t seq;
    char name[160];
    jobflow_job_name(f, s, name, sizeof name);
    const struct job_template *t = controller_find_jobtemplate(ctl->cluster, f->ns, s->name);
    json_t *doc = t ? jobflow_job_document(f, s, t, &st) : NULL;
    if (!t)
        api_fail(&st, 404, "NotFound", "jobtemplates.flow.volcano.sh \"%s\" not found", s->name);
    struct intake_doc d = {.root = doc};
    int rc = doc ? volcano_job_from_doc(&d, f->ns, &job, &st) : -1;
    if (rc == 0)
        json_object_set_new(json_object_get(job_manifest(job), "metadata"), "ownerReferences",
                            jobflow_owner_references(f));
    if (rc == 0 && (rc = controller_create_job(ctl, job, &seq, &st)) != 0)
        job_free(job);
    json_decref(doc);
    if (rc != 0) {
        char message[700];
        snprintf(message, sizeof message, "flow %s failed: cannot create job %s: %s", s->name, name,
                 st.message[0] ? st.message : "out of memory");
        free(f->message);
        f->message = strdup(message);
        snprintf(s->phase, sizeof s->phase, "Failed");
        s->state = STEP_FAILED;
        s->start_ms = s->end_ms = ctl->now_ms;
        flow_event(ctl, f, "FailedCreate", "%s", message);
        return 0;
    }
    s->state = STEP_CREATED;
    s->start_ms = job->created_ms;
    s->end_ms = 0;
    snprintf(s->phase, sizeof s->phase, "%s", job_phase_name(job->status.phase));
    add_history(ctl, s, s->phase);
    flow_event(ctl, f, "Created", "create a job named %s!", name);
    return 1;
}

static int finish(struct controller *ctl, struct job_flow *f, const struct flow_plan *plan)
{
    int changes = 0;
    if (plan->phase == FLOW_FAILED && !f->message) {
        char message[300];
        snprintf(message, sizeof message, "flow %s failed", f->steps[plan->failed_step].name);
        f->message = strdup(message);
    }
    if (plan->phase == FLOW_SUCCEED && f->delete_jobs)
        for (int k = 0; k < f->nsteps; k++) {
            struct job *job = flow_step_job(ctl, f, &f->steps[k]);
            if (job) {
                controller_delete_job(ctl, job);
                changes++;
            }
        }
    return changes;
}

static int sync_flow(struct controller *ctl, struct job_flow *f, int *start, bool *probe_ok)
{
    int changes = 0;
    bool running = false;
    for (int k = 0; k < f->nsteps; k++) {
        struct flow_step *s = &f->steps[k];
        if (s->state == STEP_WAITING && f->adopt) {
            struct job *job = flow_step_job(ctl, f, s);
            if (job) {
                s->state = STEP_CREATED;
                s->start_ms = job->created_ms;
            }
        }
        if (s->state == STEP_CREATED)
            f->dirty |= observe(ctl, f, s, flow_step_job(ctl, f, s));
        if (flow_step_probed(s) && s->state == STEP_WAITING) {
            bool by_status = probes_pass(ctl, f, s);
            bool by_network = flow_net_probes_pass(ctl, f, s); /* hands new probes to the thread */
            probe_ok[k] = by_status && by_network;
        }
    }
    f->adopt = false;
    struct flow_plan plan = {.start = start};
    flow_dag_plan(f, probe_ok, &plan);
    for (int i = 0; i < plan.nstart; i++) {
        changes += create_step(ctl, f, &f->steps[plan.start[i]]);
        f->dirty = true;
    }
    if (plan.nstart > 0) /* what was created (or failed to be) moves the phase */
        flow_dag_plan(f, probe_ok, &plan);
    bool over = plan.phase == FLOW_SUCCEED || plan.phase == FLOW_FAILED;
    for (int k = 0; k < f->nsteps; k++) {
        running |= f->steps[k].state == STEP_CREATED;
        if (f->steps[k].state != STEP_WAITING || over)
            flow_probes_stop(&f->steps[k], false);
    }
    bool moved = plan.phase != f->phase;
    if (moved) {
        f->phase = (uint8_t)plan.phase;
        changes += finish(ctl, f, &plan);
    }
    f->active = running || !over;
    if (moved)
        flow_record(ctl, f, JOURNAL_OBJECT_PUT, flow_phase_name(f->phase),
                    f->phase == FLOW_FAILED && f->message ? f->message : "job flow status updated");
    else if (f->dirty && (!f->active || ctl->now_ms - f->recorded_ms >= FLOW_RECORD_EVERY_MS))
        flow_record(ctl, f, JOURNAL_OBJECT_PUT, "Synced", "job flow status updated");
    return changes;
}

int controller_flow_tick(struct controller *ctl)
{
    cluster_assert_owner(ctl->cluster);
    int changes = 0;
    flow_probes_collect(ctl);
    for (int i = 0; i < ctl->cluster->njobflows; i++) {
        struct job_flow *f = ctl->cluster->jobflows[i];
        if (!f->active && !f->dirty)
            continue;
        int *start = malloc(((size_t)f->nsteps + 1) * sizeof *start);
        bool *probe_ok = calloc((size_t)f->nsteps + 1, sizeof *probe_ok);
        if (start && probe_ok)
            changes += sync_flow(ctl, f, start, probe_ok);
        free(start);
        free(probe_ok);
    }
    return changes;
}

struct job_flow *controller_retry_jobflow(struct controller *ctl, const char *ns, const char *name,
                                          struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    struct job_flow *f = controller_find_jobflow(ctl->cluster, ns, name);
    if (!f) {
        api_set_details(st, "jobflows", FLOW_GROUP, name);
        api_fail(st, 404, "NotFound", "jobflows.flow.volcano.sh \"%s\" not found", name);
        return NULL;
    }
    if (f->phase != FLOW_FAILED) {
        api_set_details(st, "jobflows", FLOW_GROUP, name);
        api_fail(st, 409, "Conflict", "JobFlow \"%s\" is %s: only a Failed flow is retried", name,
                 flow_phase_name(f->phase));
        return NULL;
    }
    for (int k = 0; k < f->nsteps; k++) {
        struct flow_step *s = &f->steps[k];
        if (s->state != STEP_FAILED)
            continue;
        struct job *job = flow_step_job(ctl, f, s);
        if (job)
            controller_delete_job(ctl, job); /* in the history as Deleted; the name is free at once */
        s->state = STEP_WAITING;
        s->phase[0] = '\0';
        s->start_ms = s->end_ms = 0;
        s->restart_count = 0;
        flow_probes_stop(s, true);
        json_decref(s->histories);
        json_decref(s->values);
        s->histories = s->values = NULL;
    }
    free(f->message);
    f->message = NULL;
    f->retries++;
    f->phase = FLOW_RUNNING;
    f->active = true;
    flow_record(ctl, f, JOURNAL_OBJECT_PUT, "Retried", "job flow retried from its failed flows");
    return f;
}
