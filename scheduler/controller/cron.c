/* The CronJob controller: CronJobs in the cluster (create, update, delete, restore), the jobs each
 * owns found by their names ("<cron>-<minutes>" in its namespace), and at each loop iteration the
 * due CronJobs synced: the plan of cron_sync.c carried out (jobs created through admission like a
 * POST, Replace's and the history limits' deletions, one event), lastScheduleTime stored. */
#include "scheduler/controller/cron.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "adapters/objects/cronjob.h"
#include "common/clock.h"
#include "common/log.h"
#include "scheduler/controller/cron_sync.h"
#include "scheduler/controller/cron_view.h"
#include "scheduler/controller/internal.h"

#define ACTIVE "Active"

static int add_cronjob(struct cluster *c, struct cron_job *cj)
{
    struct cron_job **all = realloc(c->cronjobs, (size_t)(c->ncronjobs + 1) * sizeof *all);
    if (!all)
        return -1;
    all[c->ncronjobs++] = cj;
    c->cronjobs = all;
    return 0;
}

static void record_cronjob(struct controller *ctl, struct cron_job *cj, enum journal_op op, const char *reason,
                           const char *message)
{
    bool put = op == JOURNAL_OBJECT_PUT;
    const char *from = strcmp(reason, "Created") == 0 ? "" : ACTIVE;
    struct journal_entry *e = record_object_event(ctl, op, CRONJOB_KIND, cj->ns, cj->name, &cj->resource_version, from,
                                                  put ? ACTIVE : "", reason, "%s", message);
    record_object_row(e, CRONJOB_KIND, cj->ns, cj->name, put ? cronjob_to_store_json(cj) : NULL);
}

struct cron_job *controller_create_cronjob(struct controller *ctl, struct cron_job *cj, struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    if (controller_find_cronjob(ctl->cluster, cj->ns, cj->name)) {
        api_set_details(st, "cronjobs", "batch.volcano.sh", cj->name);
        api_fail(st, 409, "AlreadyExists", "cronjobs.batch.volcano.sh \"%s\" already exists", cj->name);
        return NULL;
    }
    uuid_v4(cj->uid);
    cj->created_ms = ctl->now_ms;
    cj->next_sync_ms = 0;
    if (add_cronjob(ctl->cluster, cj) != 0) {
        api_fail(st, 500, "InternalError", "out of memory");
        return NULL;
    }
    record_cronjob(ctl, cj, JOURNAL_OBJECT_PUT, "Created", "cron job created");
    return cj;
}

struct cron_job *controller_update_cronjob(struct controller *ctl, struct cron_job *cj, struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    int i = controller_cronjob_index(ctl->cluster, cj->ns, cj->name);
    if (i < 0) {
        api_set_details(st, "cronjobs", "batch.volcano.sh", cj->name);
        api_fail(st, 404, "NotFound", "cronjobs.batch.volcano.sh \"%s\" not found", cj->name);
        return NULL;
    }
    struct cron_job *old = ctl->cluster->cronjobs[i];
    if (cj->resource_version && cj->resource_version != old->resource_version) {
        api_set_details(st, "cronjobs", "batch.volcano.sh", cj->name);
        api_fail(st, 409, "Conflict",
                 "Operation cannot be fulfilled on cronjobs.batch.volcano.sh \"%s\": the object has been modified; "
                 "please apply your changes to the latest version and try again",
                 cj->name);
        return NULL;
    }
    memcpy(cj->uid, old->uid, sizeof cj->uid);
    cj->created_ms = old->created_ms;
    cj->last_schedule_ms = old->last_schedule_ms;
    cj->last_successful_ms = old->last_successful_ms;
    cj->next_sync_ms = 0; /* a new schedule or suspend takes effect at once */
    ctl->cluster->cronjobs[i] = cj;
    cron_job_free(old);
    record_cronjob(ctl, cj, JOURNAL_OBJECT_PUT, "Updated", "cron job updated");
    return cj;
}

int controller_delete_cronjob(struct controller *ctl, const char *ns, const char *name, uint64_t *seq,
                              struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    int i = controller_cronjob_index(ctl->cluster, ns, name);
    if (i < 0) {
        api_set_details(st, "cronjobs", "batch.volcano.sh", name);
        return api_fail(st, 404, "NotFound", "cronjobs.batch.volcano.sh \"%s\" not found", name);
    }
    struct cron_job *cj = ctl->cluster->cronjobs[i];
    for (struct job *job = ctl->cluster->first, *next; job; job = next) {
        next = job->next; /* a deleted job may be freed at once */
        if (controller_cronjob_owns(cj, job) >= 0)
            controller_delete_job(ctl, job);
    }
    struct cluster *c = ctl->cluster;
    memmove(&c->cronjobs[i], &c->cronjobs[i + 1], (size_t)(c->ncronjobs - i - 1) * sizeof c->cronjobs[0]);
    c->ncronjobs--;
    record_cronjob(ctl, cj, JOURNAL_OBJECT_DELETE, "Deleted", "cron job deleted");
    *seq = cj->resource_version;
    cron_job_free(cj);
    return 0;
}

int controller_restore_cronjob(struct controller *ctl, const char *json, const char *ns, const char *name)
{
    struct cron_job *cj = cronjob_from_store_json(json, cronjob_current_rules());
    if (cj && add_cronjob(ctl->cluster, cj) == 0)
        return 0; /* next_sync_ms 0: the first iteration catches up what the restart missed */
    log_error("cannot restore CronJob %s/%s from the database: its stored object is not valid", ns, name);
    cron_job_free(cj);
    return -1;
}

/* The jobs cj owns, as cron_sync sees them; *jobs gets the matching struct job pointers. */
static int gather(struct controller *ctl, const struct cron_job *cj, struct cron_owned **owned, struct job ***jobs)
{
    int n = 0, cap = 0;
    *owned = NULL;
    *jobs = NULL;
    for (struct job *job = ctl->cluster->first; job; job = job->next) {
        int64_t minute = controller_cronjob_owns(cj, job);
        if (minute < 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            struct cron_owned *o = realloc(*owned, (size_t)cap * sizeof *o);
            struct job **j = o ? realloc(*jobs, (size_t)cap * sizeof *j) : NULL;
            if (o)
                *owned = o;
            if (!o || !j)
                return -1;
            *jobs = j;
        }
        enum job_phase p = job->status.phase;
        (*owned)[n] = (struct cron_owned){minute * cron_name_unit_ms(&cj->schedule),
                                          !job_phase_final(p)  ? CRON_OWNED_ACTIVE
                                          : p == JOB_COMPLETED ? CRON_OWNED_SUCCEEDED
                                                               : CRON_OWNED_FAILED,
                                          job->status.transition_ms};
        (*jobs)[n++] = job;
    }
    return n;
}

static void cron_event(struct controller *ctl, struct cron_job *cj, const char *reason, const char *fmt,
                       const char *arg)
{
    char message[512];
    snprintf(message, sizeof message, fmt, arg);
    uint64_t seq; /* an event of the CronJob leaves its resourceVersion where it is */
    record_object_event(ctl, JOURNAL_EVENT, CRONJOB_KIND, cj->ns, cj->name, &seq, ACTIVE, ACTIVE, reason, "%s",
                        message);
}

/* Creates the job for the scheduled time, through admission as a POST would. */
static int create_job(struct controller *ctl, struct cron_job *cj, int64_t scheduled_ms)
{
    json_t *doc = cronjob_job_document(cj, scheduled_ms);
    struct intake_doc d = {.root = doc};
    struct api_status st = {0};
    struct job *job = NULL;
    uint64_t seq;
    int rc = doc ? volcano_job_from_doc(&d, cj->ns, &job, &st) : -1;
    if (rc == 0)
        json_object_set_new(json_object_get(job_manifest(job), "metadata"), "ownerReferences",
                            cronjob_owner_references(cj));
    if (rc == 0 && (rc = controller_create_job(ctl, job, &seq, &st)) != 0)
        job_free(job);
    json_decref(doc);
    char name[128];
    cronjob_job_name(cj, scheduled_ms, name, sizeof name);
    if (rc != 0)
        cron_event(ctl, cj, "FailedCreate", "Error creating job: %s", st.message[0] ? st.message : "out of memory");
    else
        cron_event(ctl, cj, "SuccessfulCreate", "Created job %s", name);
    return rc;
}

static int sync_one(struct controller *ctl, struct cron_job *cj)
{
    struct cron_owned *owned;
    struct job **jobs;
    int n = gather(ctl, cj, &owned, &jobs);
    int *del = n > 0 ? calloc((size_t)n, sizeof *del) : NULL;
    if (n < 0 || (n > 0 && !del)) {
        free(owned);
        free(jobs);
        free(del);
        cj->next_sync_ms = ctl->now_ms + 1000; /* out of memory: try again soon */
        return 0;
    }
    struct cron_plan plan;
    cron_sync_plan(cj, owned, n, ctl->now_ms, &plan, del);
    int changes = 0;
    bool changed = plan.last_successful_ms != cj->last_successful_ms;
    cj->last_successful_ms = plan.last_successful_ms;
    if (plan.event_reason)
        cron_event(ctl, cj, plan.event_reason, "%s", plan.event_message);
    for (int i = 0; plan.delete_active && i < n; i++)
        if (owned[i].state == CRON_OWNED_ACTIVE) {
            cron_event(ctl, cj, "SuccessfulDelete", "Deleted job %s", jobs[i]->name);
            controller_delete_job(ctl, jobs[i]);
            changes++;
        }
    for (int d = 0; d < plan.ndelete; d++) {
        cron_event(ctl, cj, "SuccessfulDelete", "Deleted job %s", jobs[del[d]]->name);
        controller_delete_job(ctl, jobs[del[d]]);
        changes++;
    }
    free(owned);
    free(jobs);
    free(del);
    if (plan.create_ms >= 0) {
        create_job(ctl, cj, plan.create_ms); /* a failed create is not tried again for this time */
        cj->last_schedule_ms = plan.create_ms;
        changed = true;
        changes++;
    }
    if (changed)
        record_cronjob(ctl, cj, JOURNAL_OBJECT_PUT, "Synced", "status updated");
    /* finished jobs change lastSuccessfulTime and the history: look again within 5 s meanwhile */
    int64_t soon = ctl->now_ms + 5000;
    cj->next_sync_ms = plan.wake_ms >= 0 && plan.wake_ms < soon ? plan.wake_ms : soon;
    return changes;
}

int controller_cron_tick(struct controller *ctl)
{
    cluster_assert_owner(ctl->cluster);
    int changes = 0;
    for (int i = 0; i < ctl->cluster->ncronjobs; i++) {
        struct cron_job *cj = ctl->cluster->cronjobs[i];
        if (cj->next_sync_ms >= 0 && cj->next_sync_ms <= ctl->now_ms)
            changes += sync_one(ctl, cj);
    }
    return changes;
}
