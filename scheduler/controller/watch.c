/* Watch objects: what a Kubernetes watch shows after each change. At the end of a core loop iteration
 * every object the iteration's journal touched is rendered once, in its state at that moment, and
 * attached to the last entry about it (whose sequence number is the object's resourceVersion); the
 * store writer hands them to the hub once committed. Pods and jobs remember what watches were last
 * shown of them, which tells ADDED from MODIFIED and finds pods that left the API without an event. */
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/command.h"
#include "adapters/objects/config_object.h"
#include "adapters/dialects/dialect.h"
#include "adapters/objects/node.h"
#include "adapters/objects/pod.h"
#include "adapters/objects/podgroup.h"
#include "adapters/objects/priority_class.h"
#include "adapters/objects/queue.h"
#include "adapters/objects/cronjob.h"
#include "adapters/objects/jobflow.h"
#include "adapters/objects/resource_quota.h"
#include "adapters/dialects/volcano/job.h"
#include "common/grow.h"
#include "common/log.h"
#include "scheduler/controller/companions.h"
#include "scheduler/controller/configs.h"
#include "scheduler/controller/internal.h"
#include "scheduler/controller/cron_view.h"
#include "scheduler/controller/flow_view.h"
#include "scheduler/controller/objects.h"

#define POD_API "v1"

static void attach(struct journal_entry *e, enum watch_type type, const char *api_version, const char *kind,
                   const char *ns, const char *name, json_t *object)
{
    struct watch_object *w = watch_object_new(type, api_version, kind, ns, name, object);
    if (!w)
        log_warn("watch: out of memory rendering %s %s/%s; watches miss this change", kind, ns, name);
    journal_entry_add_watch(e, w);
}

/* --- jobs, their PodGroups and pods ------------------------------------------------ */

static const struct node *bound_node(const struct controller *ctl, const struct replica *r)
{
    return r->node >= 0 && r->node < ctl->cluster->nnodes ? &ctl->cluster->nodes[r->node] : NULL;
}

/* A pod as watches see it; a pod that left the API shows the last phase they saw. */
static json_t *render_pod(const struct controller *ctl, const struct job *job, int flat, uint8_t shown_phase)
{
    int task = job_task_of(job, flat);
    json_t *pod = pod_render(job, task, flat - job->task_first[task], bound_node(ctl, &job->replicas[flat]));
    json_t *status = json_object_get(pod, "status");
    if (shown_phase < POD_PHASE_COUNT && json_is_object(status))
        json_object_set_new(status, "phase", json_string(pod_phase_name((enum pod_phase)shown_phase)));
    return pod;
}

static void attach_pod(struct controller *ctl, struct journal_entry *e, struct job *job, int flat, enum watch_type type,
                       uint8_t shown_phase)
{
    char name[320];
    int task = job_task_of(job, flat);
    job_pod_name(job, task, flat - job->task_first[task], name, sizeof name);
    attach(e, type, POD_API, "Pod", job->ns, name, render_pod(ctl, job, flat, shown_phase));
}

/* The Job (and, for a job posted in another dialect, that dialect's object) and its PodGroup. */
static void attach_job(struct journal_entry *e, const struct job *job, enum watch_type type)
{
    json_t *volcano = volcano_job_render(job);
    const struct dialect *d = job->source ? dialect_of_source(job->source) : NULL;
    if (d && volcano) {
        char api_version[128];
        snprintf(api_version, sizeof api_version, "%s/%s", d->group, d->version);
        attach(e, type, api_version, d->kind, job->ns, job->name, dialect_render(d, job->source, volcano));
    }
    struct watch_object *w = watch_object_new(type, VOLCANO_JOB_API_VERSION, "Job", job->ns, job->name, volcano);
    if (w && d)
        w->source_kind = strdup(d->kind);
    journal_entry_add_watch(e, w);
    char pg[PODGROUP_NAME_MAX];
    attach(e, type, PODGROUP_API_VERSION, "PodGroup", job->ns, podgroup_name(job->name, job->uid, pg),
           podgroup_render(job));
}

/* Compares every pod of a touched job with what watches saw, and the job itself. */
static void publish_job(struct controller *ctl, struct job *job)
{
    struct journal_entry *e = job->watch_entry;
    bool render = ctl->watch_render && e;
    if (render) {
        enum watch_type type = job->watch_shown == WATCH_SHOWN_HIDDEN ? WATCH_ADDED : WATCH_MODIFIED;
        attach_job(e, job, type);
    }
    job->watch_shown = WATCH_SHOWN_VISIBLE;
    for (int32_t flat = 0; flat < job->total_replicas; flat++) {
        struct replica *r = &job->replicas[flat];
        bool visible = job_pod_exists(job, flat);
        uint8_t was = r->watch_shown, now = visible ? (uint8_t)(WATCH_SHOWN_VISIBLE + r->phase) : WATCH_SHOWN_HIDDEN;
        bool dirty = r->watch_dirty;
        r->watch_shown = now;
        r->watch_dirty = false;
        if (!render)
            continue;
        if (visible && (was != now || dirty))
            attach_pod(ctl, e, job, flat, was == WATCH_SHOWN_HIDDEN ? WATCH_ADDED : WATCH_MODIFIED, POD_PHASE_COUNT);
        else if (!visible && was >= WATCH_SHOWN_VISIBLE)
            attach_pod(ctl, e, job, flat, WATCH_DELETED, (uint8_t)(was - WATCH_SHOWN_VISIBLE));
    }
}

void controller_watch_job_deleted(struct controller *ctl, struct job *job, struct journal_entry *e)
{
    bool render = ctl->watch_render && e && job->watch_shown != WATCH_SHOWN_HIDDEN;
    if (render)
        attach_job(e, job, WATCH_DELETED);
    for (int32_t flat = 0; flat < job->total_replicas; flat++) {
        struct replica *r = &job->replicas[flat];
        if (render && r->watch_shown >= WATCH_SHOWN_VISIBLE)
            attach_pod(ctl, e, job, flat, WATCH_DELETED, (uint8_t)(r->watch_shown - WATCH_SHOWN_VISIBLE));
        r->watch_shown = WATCH_SHOWN_HIDDEN;
        r->watch_dirty = false;
    }
    job->watch_shown = WATCH_SHOWN_GONE;
}

/* --- scheduler objects and Commands ------------------------------------------------- */

static enum watch_type type_of_event(const struct journal_event *ev)
{
    if (!ev->from_phase || !*ev->from_phase)
        return WATCH_ADDED;
    return !ev->to_phase || !*ev->to_phase ? WATCH_DELETED : WATCH_MODIFIED;
}

/* What is left of an object that is gone: its identity and the resourceVersion of its deletion. */
static json_t *tombstone(const char *api_version, const char *kind, const struct journal_event *ev)
{
    char rv[24];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)ev->seq);
    json_t *meta = json_pack("{s:s, s:s}", "name", ev->name, "resourceVersion", rv);
    if (meta && ev->ns && *ev->ns)
        json_object_set_new(meta, "namespace", json_string(ev->ns));
    return json_pack("{s:s, s:s, s:o}", "apiVersion", api_version, "kind", kind, "metadata", meta);
}

static json_t *render_queue(const struct controller *ctl, const struct queue *q)
{
    struct queue_counts n = controller_count_podgroups(ctl->cluster, q);
    return queue_render(q, &n);
}

static json_t *render_quota(const struct controller *ctl, const struct resource_quota *q)
{
    struct resvec used;
    controller_namespace_usage(ctl->cluster, q->ns, &used);
    return resource_quota_render(q, &used);
}

/* The object an entry without a job is about, in its state now (or a tombstone when it is gone). */
static void attach_object(struct controller *ctl, struct journal_entry *e)
{
    const struct journal_event *ev = &e->ev;
    enum watch_type type = type_of_event(ev);
    const char *kind = ev->kind;
    if (strcmp(kind, "Queue") == 0) {
        const struct queue *q = type == WATCH_DELETED ? NULL : cluster_find_queue(ctl->cluster, ev->name);
        if (e->op == JOURNAL_COMMAND)
            type = WATCH_MODIFIED;
        attach(e, type, QUEUE_API_VERSION, kind, "", ev->name,
               q ? render_queue(ctl, q) : tombstone(QUEUE_API_VERSION, kind, ev));
    } else if (strcmp(kind, "PriorityClass") == 0) {
        const struct priority_class *pc = type == WATCH_DELETED ? NULL
                                                                : cluster_find_priority_class(ctl->cluster, ev->name);
        attach(e, type, PRIORITY_CLASS_API_VERSION, kind, "", ev->name,
               pc ? priority_class_render(pc) : tombstone(PRIORITY_CLASS_API_VERSION, kind, ev));
    } else if (strcmp(kind, "ResourceQuota") == 0) {
        const struct resource_quota *q = type == WATCH_DELETED ? NULL
                                                               : controller_find_quota(ctl->cluster, ev->ns, ev->name);
        attach(e, type, POD_API, kind, ev->ns, ev->name, q ? render_quota(ctl, q) : tombstone(POD_API, kind, ev));
    } else if (strcmp(kind, "CronJob") == 0) {
        const struct cron_job *cj = type == WATCH_DELETED ? NULL
                                                          : controller_find_cronjob(ctl->cluster, ev->ns, ev->name);
        json_t *active = cj ? controller_cronjob_active(ctl, cj) : NULL;
        attach(e, type, CRONJOB_API_VERSION, kind, ev->ns, ev->name,
               cj ? cronjob_render(cj, active) : tombstone(CRONJOB_API_VERSION, kind, ev));
        json_decref(active);
    } else if (strcmp(kind, "ConfigMap") == 0 || strcmp(kind, "Secret") == 0) {
        enum config_kind ck = strcmp(kind, "Secret") == 0 ? CONFIG_SECRET : CONFIG_MAP;
        const struct config_object *o = type == WATCH_DELETED
                                            ? NULL
                                            : controller_find_config(ctl->cluster, ck, ev->ns, ev->name);
        attach(e, type, CONFIG_API_VERSION, kind, ev->ns, ev->name,
               o ? config_object_render(o) : tombstone(CONFIG_API_VERSION, kind, ev));
    } else if (strcmp(kind, "JobFlow") == 0) {
        const struct job_flow *f = type == WATCH_DELETED ? NULL
                                                         : controller_find_jobflow(ctl->cluster, ev->ns, ev->name);
        attach(e, type, FLOW_API_VERSION, kind, ev->ns, ev->name,
               f ? jobflow_render(f) : tombstone(FLOW_API_VERSION, kind, ev));
    } else if (strcmp(kind, "JobTemplate") == 0) {
        const struct job_template *t = type == WATCH_DELETED
                                           ? NULL
                                           : controller_find_jobtemplate(ctl->cluster, ev->ns, ev->name);
        json_t *jobs = t ? controller_jobtemplate_jobs(ctl, t) : NULL;
        attach(e, type, FLOW_API_VERSION, kind, ev->ns, ev->name,
               t ? jobtemplate_render(t, jobs) : tombstone(FLOW_API_VERSION, kind, ev));
        json_decref(jobs);
    } else if (strcmp(kind, "Node") == 0) {
        int i = cluster_find_node(ctl->cluster, ev->name);
        if (i >= 0)
            attach(e, type, POD_API, kind, "", ev->name, node_render(&ctl->cluster->nodes[i]));
    }
}

/* A Command is shown once, as it was run (Volcano's controller deletes it right after). */
static void attach_command(struct journal_entry *e)
{
    json_t *cmd = e->command_json ? json_loads(e->command_json, 0, NULL) : NULL;
    command_stamp_record(cmd, e->ev.seq);
    const json_t *meta = json_object_get(cmd, "metadata");
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    if (!name) {
        json_decref(cmd);
        return;
    }
    attach(e, WATCH_ADDED, COMMAND_API_VERSION, "Command", ns ? ns : e->ns ? e->ns : "", name, cmd);
}

/* --- companions ---------------------------------------------------------------------------------- */

static bool about_companion(const struct journal_entry *e)
{
    return e->ev.kind && strcmp(e->ev.kind, COMPANION_KIND) == 0 && e->op != JOURNAL_EVENT;
}

/* Whether a later entry of the iteration is about the same companion (it is shown there, once). */
static bool companion_changes_again(const struct journal_entry *e)
{
    for (const struct journal_entry *x = e->next; x; x = x->next)
        if (about_companion(x) && strcmp(x->ev.ns, e->ev.ns) == 0 && strcmp(x->ev.name, e->ev.name) == 0)
            return true;
    return false;
}

/* A companion in its state at the end of the iteration, or gone. Its ADDED is remembered even while
 * nobody watches, as a pod's is. */
static void attach_companion(struct controller *ctl, struct journal_entry *e)
{
    const struct journal_event *ev = &e->ev;
    if (companion_changes_again(e))
        return;
    struct companion *c = controller_companion_find(ctl, ev->ns, ev->name);
    if (!c || e->op == JOURNAL_OBJECT_DELETE) {
        if (ctl->watch_render)
            attach(e, WATCH_DELETED, COMPANION_API_VERSION, COMPANION_KIND, ev->ns, ev->name,
                   c ? controller_companion_render(c, false) : tombstone(COMPANION_API_VERSION, COMPANION_KIND, ev));
        return;
    }
    enum watch_type type = c->watch_shown ? WATCH_MODIFIED : WATCH_ADDED;
    c->watch_shown = true;
    if (ctl->watch_render)
        attach(e, type, COMPANION_API_VERSION, COMPANION_KIND, ev->ns, ev->name, controller_companion_render(c, false));
}

/* --- the end of an iteration ---------------------------------------------------------- */

static void touch_job(struct controller *ctl, struct job *job, struct journal_entry *e)
{
    job->watch_entry = e;
    if (job->watch_touched)
        return;
    if (GROW(ctl->watch_touched, ctl->watch_touched_cap, (size_t)ctl->nwatch_touched + 1, 64) != 0) {
        log_warn("watch: out of memory: a change of job %s/%s is not shown to watches", job->ns, job->name);
        return;
    }
    ctl->watch_touched[ctl->nwatch_touched++] = job;
    job->watch_touched = true;
}

/* A pod's own event: it changes even when its phase does not (a restart in place, a new attempt). */
static void mark_pod(struct controller *ctl, const struct journal_event *ev)
{
    int task, index;
    struct job *job = cluster_find_pod(ctl->cluster, ev->ns, ev->name, &task, &index);
    if (job)
        job_replica(job, task, index)->watch_dirty = true;
}

void controller_watch_flush(struct controller *ctl)
{
    cluster_assert_owner(ctl->cluster);
    for (struct journal_entry *e = ctl->journal.head; e; e = e->next) {
        const struct journal_event *ev = &e->ev;
        e->watch_rendered = ctl->watch_render;
        if (about_companion(e))
            attach_companion(ctl, e);
        if (ev->job_uid && *ev->job_uid) {
            struct job *job = cluster_find_job_uid(ctl->cluster, ev->job_uid);
            if (!job || job->dormant || job->watch_shown == WATCH_SHOWN_GONE)
                continue;
            touch_job(ctl, job, e);
            if (ctl->watch_render && ev->kind && strcmp(ev->kind, "Pod") == 0)
                mark_pod(ctl, ev);
        } else if (ctl->watch_render && ev->kind && e->op != JOURNAL_EVENT && !about_companion(e)) {
            attach_object(ctl, e);
        }
        if (ctl->watch_render && e->op == JOURNAL_COMMAND)
            attach_command(e);
    }
    for (int i = 0; i < ctl->nwatch_touched; i++) {
        struct job *job = ctl->watch_touched[i];
        job->watch_touched = false;
        publish_job(ctl, job);
        job->watch_entry = NULL;
    }
    ctl->nwatch_touched = 0;
}

void controller_watch_free(struct controller *ctl)
{
    free(ctl->watch_touched);
    ctl->watch_touched = NULL;
    ctl->nwatch_touched = ctl->watch_touched_cap = 0;
}
