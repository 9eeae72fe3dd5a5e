/* Queues, PriorityClasses and ResourceQuotas on the core thread: the checks that need live state,
 * Volcano's queue states, job priority admission, recovery and the built-in classes. Every change
 * is one journal entry (event + row) stamped with the next sequence number. */
#include "scheduler/controller/objects.h"

#include "scheduler/controller/companions.h"
#include "scheduler/controller/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/priority_class.h"
#include "adapters/objects/resource_quota.h"
#include "common/log.h"

#define QUEUE_GROUP "scheduling.volcano.sh"
#define PC_GROUP "scheduling.k8s.io"
#define DEFAULT_QUEUE "default"
/* PriorityClasses and ResourceQuotas have no phase; their events say Active while they exist. */
#define ACTIVE "Active"

/* --- recording ------------------------------------------------------------ */

static void record_queue(struct controller *ctl, struct queue *q, enum journal_op op, const char *from,
                         const char *reason, const char *message)
{
    const char *to = op == JOURNAL_QUEUE_DELETE ? "" : queue_state_name(q->state);
    struct journal_entry *e = record_object_event(ctl, op, "Queue", "", q->name, &q->resource_version, from, to, reason,
                                                  "%s", message);
    if (!e)
        return;
    e->queue_name = strdup(q->name);
    if (op == JOURNAL_QUEUE_PUT)
        e->queue_json = queue_to_store_json(q);
}

void controller_queue_changed(struct controller *ctl, struct queue *q, const char *reason, const char *message)
{
    cluster_assert_owner(ctl->cluster);
    record_queue(ctl, q, JOURNAL_QUEUE_PUT, queue_state_name(q->state), reason, message);
}

static void record_priority_class(struct controller *ctl, struct priority_class *pc, enum journal_op op,
                                  const char *reason, const char *message)
{
    bool put = op == JOURNAL_OBJECT_PUT;
    const char *from = strcmp(reason, "Created") == 0 ? "" : ACTIVE;
    struct journal_entry *e = record_object_event(ctl, op, "PriorityClass", "", pc->name, &pc->resource_version, from,
                                                  put ? ACTIVE : "", reason, "%s", message);
    record_object_row(e, "PriorityClass", "", pc->name, put ? priority_class_to_store_json(pc) : NULL);
}

static void record_quota(struct controller *ctl, struct resource_quota *q, enum journal_op op, const char *reason,
                         const char *message)
{
    bool put = op == JOURNAL_OBJECT_PUT;
    const char *from = strcmp(reason, "Created") == 0 ? "" : ACTIVE;
    struct journal_entry *e = record_object_event(ctl, op, "ResourceQuota", q->ns, q->name, &q->resource_version, from,
                                                  put ? ACTIVE : "", reason, "%s", message);
    record_object_row(e, "ResourceQuota", q->ns, q->name, put ? resource_quota_to_store_json(q) : NULL);
}

/* --- Status answers ------------------------------------------------------- */

static void *fail_not_found(struct api_status *st, const char *resource, const char *group, const char *name)
{
    api_set_details(st, resource, group, name);
    api_fail(st, 404, "NotFound", "%s%s%s \"%s\" not found", resource, *group ? "." : "", group, name);
    return NULL;
}

static void *fail_exists(struct api_status *st, const char *resource, const char *group, const char *name)
{
    api_set_details(st, resource, group, name);
    api_fail(st, 409, "AlreadyExists", "%s%s%s \"%s\" already exists", resource, *group ? "." : "", group, name);
    return NULL;
}

/* Kubernetes' optimistic concurrency: an update naming a resourceVersion must name the current one. */
static bool version_conflicts(struct api_status *st, const char *resource, const char *group, const char *name,
                              uint64_t expected, uint64_t current)
{
    if (expected == 0 || expected == current)
        return false;
    api_set_details(st, resource, group, name);
    api_fail(st, 409, "Conflict",
             "Operation cannot be fulfilled on %s%s%s \"%s\": the object has been modified; please apply your "
             "changes to the latest version and try again",
             resource, *group ? "." : "", group, name);
    return true;
}

static void *fail_invalid(struct api_status *st, const char *kind, const char *group, const char *name)
{
    char kind_group[96];
    snprintf(kind_group, sizeof kind_group, "%s%s%s", kind, *group ? "." : "", group);
    api_fail_invalid(st, kind_group, name);
    api_set_details(st, kind, group, name);
    return NULL;
}

/* --- queues --------------------------------------------------------------- */

struct queue_counts controller_count_podgroups(const struct cluster *c, const struct queue *q)
{
    struct queue_counts n = {0};
    for (const struct job *job = c->first; job; job = job->next) {
        if (job->deleted || strcmp(job->queue, q->name) != 0)
            continue;
        switch (job->pg.phase) {
        case PG_PENDING: n.pending++; break;
        case PG_INQUEUE: n.inqueue++; break;
        case PG_RUNNING: n.running++; break;
        case PG_COMPLETED: n.completed++; break;
        default: n.unknown++; break;
        }
    }
    return n;
}

static int32_t active_podgroups(const struct cluster *c, const struct queue *q)
{
    struct queue_counts n = controller_count_podgroups(c, q);
    return n.pending + n.inqueue + n.running;
}

static int queue_index(const struct cluster *c, const char *name)
{
    for (int i = 0; i < c->nqueues; i++)
        if (strcmp(c->queues[i]->name, name) == 0)
            return i;
    return -1;
}

static void remove_queue_at(struct cluster *c, int i)
{
    memmove(&c->queues[i], &c->queues[i + 1], (size_t)(c->nqueues - i - 1) * sizeof c->queues[0]);
    c->nqueues--;
}

/* spec.parent must name a queue, and following parents up from it must never come back to q. */
static int check_parent(const struct cluster *c, const struct queue *q, struct api_status *st)
{
    if (!q->parent)
        return 0;
    const struct queue *p = cluster_find_queue(c, q->parent);
    if (!p) {
        api_add_cause(st, "spec.parent", "FieldValueNotFound", 0, 0, "Not found: \"%s\": no such queue", q->parent);
        fail_invalid(st, "Queue", QUEUE_GROUP, q->name);
        return -1;
    }
    for (int hops = 0; p && hops <= c->nqueues; hops++) {
        if (strcmp(p->name, q->name) == 0) {
            api_add_cause(st, "spec.parent", "FieldValueInvalid", 0, 0,
                          "Invalid value: \"%s\": queue \"%s\" would become its own ancestor", q->parent, q->name);
            fail_invalid(st, "Queue", QUEUE_GROUP, q->name);
            return -1;
        }
        p = p->parent ? cluster_find_queue(c, p->parent) : NULL;
    }
    return 0;
}

static const struct queue *first_child(const struct cluster *c, const char *name)
{
    for (int i = 0; i < c->nqueues; i++)
        if (c->queues[i]->parent && strcmp(c->queues[i]->parent, name) == 0)
            return c->queues[i];
    return NULL;
}

struct queue *controller_create_queue(struct controller *ctl, struct queue *q, struct api_status *st)
{
    if (cluster_find_queue(ctl->cluster, q->name))
        return fail_exists(st, "queues", QUEUE_GROUP, q->name);
    if (check_parent(ctl->cluster, q, st) != 0)
        return NULL;
    uuid_v4(q->uid);
    q->created_ms = ctl->now_ms;
    q->state = QUEUE_OPEN;
    memset(&q->allocated, 0, sizeof q->allocated);
    if (cluster_add_queue(ctl->cluster, q) != 0) {
        api_fail(st, 500, "InternalError", "out of memory");
        return NULL;
    }
    record_queue(ctl, q, JOURNAL_QUEUE_PUT, "", "Created", "queue created");
    ctl->capability_dirty = true; /* the WatchDog may give it its share of the cluster */
    return q;
}

struct queue *controller_update_queue(struct controller *ctl, struct queue *q, struct api_status *st)
{
    struct cluster *c = ctl->cluster;
    int i = queue_index(c, q->name);
    if (i < 0)
        return fail_not_found(st, "queues", QUEUE_GROUP, q->name);
    struct queue *old = c->queues[i];
    if (version_conflicts(st, "queues", QUEUE_GROUP, q->name, q->resource_version, old->resource_version) ||
        check_parent(c, q, st) != 0)
        return NULL;
    if (json_equal(old->manifest, q->manifest)) {
        queue_free(q); /* nothing changes, so no new version either, as in Kubernetes */
        return old;
    }
    memcpy(q->uid, old->uid, sizeof q->uid);
    q->created_ms = old->created_ms;
    q->state = old->state;
    q->allocated = old->allocated;
    c->queues[i] = q;
    queue_free(old);
    record_queue(ctl, q, JOURNAL_QUEUE_PUT, queue_state_name(q->state), "Updated", "queue spec updated");
    ctl->capability_dirty = true;
    return q;
}

static int refuse_queue_delete(struct api_status *st, const struct cluster *c, const struct queue *q)
{
    api_set_details(st, "queues", QUEUE_GROUP, q->name);
    if (strcmp(q->name, DEFAULT_QUEUE) == 0)
        return api_fail(st, 403, "Forbidden",
                        "queues." QUEUE_GROUP " \"%s\" is forbidden: the default queue cannot be deleted", q->name);
    if (q->state != QUEUE_CLOSED)
        return api_fail(st, 409, "Conflict",
                        "queue \"%s\" is %s: only a Closed queue can be deleted; close it first (POST "
                        "/apis/caldera.io/v1/queues/%s/close, or jobctl queue close %s) and delete it once it is "
                        "Closed (when none of its PodGroups is Pending, Inqueue or Running)",
                        q->name, queue_state_name(q->state), q->name, q->name);
    const struct queue *child = first_child(c, q->name);
    if (child)
        return api_fail(st, 409, "Conflict",
                        "queue \"%s\" is the parent of queue \"%s\": delete its child queues or give them another "
                        "parent first",
                        q->name, child->name);
    return 0;
}

int controller_delete_queue(struct controller *ctl, const char *name, uint64_t *seq, struct api_status *st)
{
    struct cluster *c = ctl->cluster;
    int i = queue_index(c, name);
    if (i < 0) {
        fail_not_found(st, "queues", QUEUE_GROUP, name);
        return -1;
    }
    struct queue *q = c->queues[i];
    if (refuse_queue_delete(st, c, q) != 0)
        return -1;
    remove_queue_at(c, i);
    record_queue(ctl, q, JOURNAL_QUEUE_DELETE, queue_state_name(q->state), "Deleted", "queue deleted");
    *seq = q->resource_version;
    queue_free(q);
    return 0;
}

static void set_queue_state(struct controller *ctl, struct queue *q, enum queue_state to, const char *reason,
                            const char *message)
{
    const char *from = queue_state_name(q->state);
    q->state = to;
    record_queue(ctl, q, JOURNAL_QUEUE_PUT, from, reason, message);
}

struct queue *controller_close_queue(struct controller *ctl, const char *name, struct api_status *st)
{
    struct queue *q = cluster_find_queue(ctl->cluster, name);
    if (!q)
        return fail_not_found(st, "queues", QUEUE_GROUP, name);
    if (q->state != QUEUE_OPEN)
        return q;
    int32_t active = active_podgroups(ctl->cluster, q);
    char message[160];
    if (active == 0) {
        set_queue_state(ctl, q, QUEUE_CLOSED, "Closed", "queue closed: it accepts no new jobs");
        return q;
    }
    snprintf(message, sizeof message,
             "queue closing: it accepts no new jobs; %d PodGroup%s still Pending, Inqueue or Running", active,
             active == 1 ? " is" : "s are");
    set_queue_state(ctl, q, QUEUE_CLOSING, "Closing", message);
    return q;
}

struct queue *controller_open_queue(struct controller *ctl, const char *name, struct api_status *st)
{
    struct queue *q = cluster_find_queue(ctl->cluster, name);
    if (!q)
        return fail_not_found(st, "queues", QUEUE_GROUP, name);
    if (q->state != QUEUE_OPEN)
        set_queue_state(ctl, q, QUEUE_OPEN, "Opened", "queue opened: it accepts new jobs again");
    return q;
}

void controller_sync_queues(struct controller *ctl)
{
    cluster_assert_owner(ctl->cluster);
    for (int i = 0; i < ctl->cluster->nqueues; i++) {
        struct queue *q = ctl->cluster->queues[i];
        if (q->state == QUEUE_CLOSING && active_podgroups(ctl->cluster, q) == 0)
            set_queue_state(ctl, q, QUEUE_CLOSED, "Closed", "queue closed: none of its PodGroups is left running");
    }
}

/* --- priority classes ------------------------------------------------------ */

static int priority_class_index(const struct cluster *c, const char *name)
{
    for (int i = 0; i < c->npriority_classes; i++)
        if (strcmp(c->priority_classes[i]->name, name) == 0)
            return i;
    return -1;
}

/* Built-ins stay at the front of the list, as the cluster promises; created classes follow. */
static int add_priority_class(struct cluster *c, struct priority_class *pc)
{
    struct priority_class **all = realloc(c->priority_classes, (size_t)(c->npriority_classes + 1) * sizeof *all);
    if (!all)
        return -1;
    c->priority_classes = all;
    int at = c->npriority_classes;
    if (pc->builtin)
        for (at = 0; at < c->npriority_classes && all[at]->builtin; at++)
            ;
    memmove(&all[at + 1], &all[at], (size_t)(c->npriority_classes - at) * sizeof *all);
    all[at] = pc;
    c->npriority_classes++;
    return 0;
}

static void remove_priority_class_at(struct cluster *c, int i)
{
    memmove(&c->priority_classes[i], &c->priority_classes[i + 1],
            (size_t)(c->npriority_classes - i - 1) * sizeof c->priority_classes[0]);
    c->npriority_classes--;
}

static void *fail_builtin(struct api_status *st, const char *name, const char *verb)
{
    api_set_details(st, "priorityclasses", PC_GROUP, name);
    api_fail(st, 403, "Forbidden",
             "priorityclasses." PC_GROUP " \"%s\" is forbidden: %s is a built-in PriorityClass and cannot be %s", name,
             name, verb);
    return NULL;
}

/* At most one class is the globalDefault. */
static int check_single_default(const struct cluster *c, const struct priority_class *pc, struct api_status *st)
{
    const struct priority_class *other = pc->global_default ? cluster_default_priority_class(c) : NULL;
    if (!other || strcmp(other->name, pc->name) == 0)
        return 0;
    api_add_cause(st, "globalDefault", "FieldValueInvalid", 0, 0,
                  "Invalid value: true: PriorityClass \"%s\" is already marked as default. Only one default can exist",
                  other->name);
    fail_invalid(st, "PriorityClass", PC_GROUP, pc->name);
    return -1;
}

struct priority_class *controller_create_priority_class(struct controller *ctl, struct priority_class *pc,
                                                        struct api_status *st)
{
    if (pc->builtin)
        return fail_builtin(st, pc->name, "created");
    if (cluster_find_priority_class(ctl->cluster, pc->name))
        return fail_exists(st, "priorityclasses", PC_GROUP, pc->name);
    if (check_single_default(ctl->cluster, pc, st) != 0)
        return NULL;
    uuid_v4(pc->uid);
    pc->created_ms = ctl->now_ms;
    if (add_priority_class(ctl->cluster, pc) != 0) {
        api_fail(st, 500, "InternalError", "out of memory");
        return NULL;
    }
    char message[96];
    snprintf(message, sizeof message, "priority class created with value %d%s", pc->value,
             pc->global_default ? " (the global default)" : "");
    record_priority_class(ctl, pc, JOURNAL_OBJECT_PUT, "Created", message);
    return pc;
}

static int check_immutable(const struct priority_class *old, const struct priority_class *pc, struct api_status *st)
{
    if (pc->value != old->value)
        api_add_cause(st, "value", "FieldValueInvalid", 0, 0, "Invalid value: %d: field is immutable", pc->value);
    if (pc->preempt_never != old->preempt_never)
        api_add_cause(st, "preemptionPolicy", "FieldValueInvalid", 0, 0, "Invalid value: \"%s\": field is immutable",
                      pc->preempt_never ? "Never" : "PreemptLowerPriority");
    if (st->ncauses == 0)
        return 0;
    fail_invalid(st, "PriorityClass", PC_GROUP, pc->name);
    return -1;
}

struct priority_class *controller_update_priority_class(struct controller *ctl, struct priority_class *pc,
                                                        struct api_status *st)
{
    struct cluster *c = ctl->cluster;
    int i = priority_class_index(c, pc->name);
    if (i < 0)
        return fail_not_found(st, "priorityclasses", PC_GROUP, pc->name);
    struct priority_class *old = c->priority_classes[i];
    if (old->builtin)
        return fail_builtin(st, pc->name, "changed");
    if (version_conflicts(st, "priorityclasses", PC_GROUP, pc->name, pc->resource_version, old->resource_version) ||
        check_immutable(old, pc, st) != 0 || check_single_default(c, pc, st) != 0)
        return NULL;
    if (json_equal(old->manifest, pc->manifest)) {
        priority_class_free(pc);
        return old;
    }
    memcpy(pc->uid, old->uid, sizeof pc->uid);
    pc->created_ms = old->created_ms;
    c->priority_classes[i] = pc;
    priority_class_free(old);
    record_priority_class(ctl, pc, JOURNAL_OBJECT_PUT, "Updated",
                          pc->global_default ? "priority class updated (the global default)"
                                             : "priority class updated");
    return pc;
}

int controller_delete_priority_class(struct controller *ctl, const char *name, uint64_t *seq, struct api_status *st)
{
    struct cluster *c = ctl->cluster;
    int i = priority_class_index(c, name);
    if (i < 0) {
        fail_not_found(st, "priorityclasses", PC_GROUP, name);
        return -1;
    }
    struct priority_class *pc = c->priority_classes[i];
    if (pc->builtin) {
        fail_builtin(st, name, "deleted");
        return -1;
    }
    remove_priority_class_at(c, i);
    record_priority_class(ctl, pc, JOURNAL_OBJECT_DELETE, "Deleted", "priority class deleted");
    *seq = pc->resource_version;
    priority_class_free(pc);
    return 0;
}

/* The priority of a job naming class (NULL or "" for none): the class's value, else the
 * globalDefault's, else 0. *found says whether a named class exists. */
static int32_t priority_for(const struct cluster *c, const char *class_name, bool *found)
{
    const struct priority_class *pc = class_name && *class_name ? cluster_find_priority_class(c, class_name) : NULL;
    *found = pc != NULL;
    if (pc)
        return pc->value;
    pc = cluster_default_priority_class(c);
    return pc ? pc->value : 0;
}

/* Each task's pods' priority: its template's class's, else the Job's (Volcano's task priority).
 * Returns how many tasks name a class that does not exist (each a cause when st). */
static int task_priorities(const struct cluster *c, struct job *job, struct api_status *st)
{
    int missing = 0;
    for (int t = 0; t < job->ntasks; t++) {
        struct task_spec *ts = &job->tasks[t];
        bool found = false;
        ts->priority = ts->priority_class ? priority_for(c, ts->priority_class, &found) : job->priority;
        if (ts->priority_class && !found) {
            ts->priority = job->priority; /* a class deleted since: the Job's */
            missing++;
            if (st) {
                char path[160];
                snprintf(path, sizeof path, "spec.tasks[%d].template.spec.priorityClassName", t);
                api_add_cause(st, path, "FieldValueNotFound", 0, 0,
                              "Not found: \"%s\": no PriorityClass with this name", ts->priority_class);
            }
        }
    }
    return missing;
}

int controller_admit_priority(struct controller *ctl, struct job *job, struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    bool found;
    int32_t priority = priority_for(ctl->cluster, job->priority_class, &found);
    if (job->priority_class && *job->priority_class && !found)
        api_add_cause(st, "spec.priorityClassName", "FieldValueNotFound", 0, 0,
                      "Not found: \"%s\": no PriorityClass with this name", job->priority_class);
    job->priority = priority;
    if (task_priorities(ctl->cluster, job, st) > 0 || (job->priority_class && *job->priority_class && !found)) {
        fail_invalid(st, "Job", "batch.volcano.sh", job->name);
        return -1;
    }
    return 0;
}

/* --- resource quotas ------------------------------------------------------- */

static int quota_index(const struct cluster *c, const char *ns, const char *name)
{
    for (int i = 0; i < c->nquotas; i++)
        if (strcmp(c->quotas[i]->ns, ns) == 0 && strcmp(c->quotas[i]->name, name) == 0)
            return i;
    return -1;
}

struct resource_quota *controller_find_quota(const struct cluster *c, const char *ns, const char *name)
{
    int i = quota_index(c, ns, name);
    return i < 0 ? NULL : c->quotas[i];
}

static int add_quota(struct cluster *c, struct resource_quota *q)
{
    struct resource_quota **all = realloc(c->quotas, (size_t)(c->nquotas + 1) * sizeof *all);
    if (!all)
        return -1;
    all[c->nquotas++] = q;
    c->quotas = all;
    return 0;
}

static void remove_quota_at(struct cluster *c, int i)
{
    memmove(&c->quotas[i], &c->quotas[i + 1], (size_t)(c->nquotas - i - 1) * sizeof c->quotas[0]);
    c->nquotas--;
}

void controller_namespace_usage(const struct cluster *c, const char *ns, struct resvec *used)
{
    memset(used, 0, sizeof *used);
    for (const struct job *job = c->first; job; job = job->next)
        if (!job->deleted && strcmp(job->ns, ns) == 0)
            resvec_add(used, &job->allocated);
}

struct resource_quota *controller_create_quota(struct controller *ctl, struct resource_quota *q, struct api_status *st)
{
    if (controller_find_quota(ctl->cluster, q->ns, q->name))
        return fail_exists(st, "resourcequotas", "", q->name);
    uuid_v4(q->uid);
    q->created_ms = ctl->now_ms;
    if (add_quota(ctl->cluster, q) != 0) {
        api_fail(st, 500, "InternalError", "out of memory");
        return NULL;
    }
    record_quota(ctl, q, JOURNAL_OBJECT_PUT, "Created", "resource quota created");
    return q;
}

struct resource_quota *controller_update_quota(struct controller *ctl, struct resource_quota *q, struct api_status *st)
{
    struct cluster *c = ctl->cluster;
    int i = quota_index(c, q->ns, q->name);
    if (i < 0)
        return fail_not_found(st, "resourcequotas", "", q->name);
    struct resource_quota *old = c->quotas[i];
    if (version_conflicts(st, "resourcequotas", "", q->name, q->resource_version, old->resource_version))
        return NULL;
    if (json_equal(old->manifest, q->manifest)) {
        resource_quota_free(q);
        return old;
    }
    memcpy(q->uid, old->uid, sizeof q->uid);
    q->created_ms = old->created_ms;
    c->quotas[i] = q;
    resource_quota_free(old);
    record_quota(ctl, q, JOURNAL_OBJECT_PUT, "Updated", "resource quota updated");
    return q;
}

int controller_delete_quota(struct controller *ctl, const char *ns, const char *name, uint64_t *seq,
                            struct api_status *st)
{
    int i = quota_index(ctl->cluster, ns, name);
    if (i < 0) {
        fail_not_found(st, "resourcequotas", "", name);
        return -1;
    }
    struct resource_quota *q = ctl->cluster->quotas[i];
    remove_quota_at(ctl->cluster, i);
    record_quota(ctl, q, JOURNAL_OBJECT_DELETE, "Deleted", "resource quota deleted");
    *seq = q->resource_version;
    resource_quota_free(q);
    return 0;
}

/* --- recovery -------------------------------------------------------------- */

static int restore_priority_class(struct controller *ctl, const struct store_object_row *row)
{
    struct priority_class *pc = priority_class_from_store_json(row->json);
    if (pc && !cluster_find_priority_class(ctl->cluster, pc->name) && add_priority_class(ctl->cluster, pc) == 0)
        return 0;
    log_error("cannot restore PriorityClass %s from the database: its stored object is not valid", row->name);
    priority_class_free(pc);
    return -1;
}

static int restore_quota(struct controller *ctl, const struct store_object_row *row)
{
    struct resource_quota *q = resource_quota_from_store_json(row->json);
    if (q && add_quota(ctl->cluster, q) == 0)
        return 0;
    log_error(
        "cannot restore ResourceQuota %s/%s from the database: its stored object is not valid (does a node "
        "still offer every resource it limits?)",
        row->ns, row->name);
    resource_quota_free(q);
    return -1;
}

int controller_restore_object(struct controller *ctl, const struct store_object_row *row)
{
    if (strcmp(row->kind, CONTROLLER_GATEWAY_KIND_TOKEN) == 0 || strcmp(row->kind, "Namespace") == 0 ||
        strcmp(row->kind, "PodGroup") == 0)
        return 0; /* the gateway's: it reads them itself */
    if (strcmp(row->kind, "PriorityClass") == 0)
        return restore_priority_class(ctl, row);
    if (strcmp(row->kind, "ResourceQuota") == 0)
        return restore_quota(ctl, row);
    if (strcmp(row->kind, COMPANION_KIND) == 0)
        return controller_restore_companion(ctl, row);
    log_warn("the database holds a %s %s%s%s this server does not know; it is left as it is", row->kind, row->ns,
             *row->ns ? "/" : "", row->name);
    return 0;
}

/* Kubernetes' API server creates its system classes at start when they are missing; so does the
 * core, and stores them, so their uid and creation time stay put across restarts. */
static int seed_builtin_classes(struct controller *ctl)
{
    for (const char *const *name = priority_class_builtin_names; *name; name++) {
        if (cluster_find_priority_class(ctl->cluster, *name))
            continue;
        struct priority_class *pc = priority_class_new_builtin(*name, ctl->now_ms);
        if (!pc || add_priority_class(ctl->cluster, pc) != 0) {
            log_error("cannot create the built-in PriorityClass %s: out of memory", *name);
            priority_class_free(pc);
            return -1;
        }
        record_priority_class(ctl, pc, JOURNAL_OBJECT_PUT, "Created", "built-in priority class");
    }
    return 0;
}

int controller_finish_objects(struct controller *ctl)
{
    if (seed_builtin_classes(ctl) != 0)
        return -1;
    /* A job's priority follows from its class, as Volcano's scheduler cache derives it: a class
     * deleted since its admission leaves the job at the default priority. */
    for (struct job *job = ctl->cluster->first; job; job = job->next) {
        bool found;
        job->priority = priority_for(ctl->cluster, job->priority_class, &found);
        task_priorities(ctl->cluster, job, NULL);
    }
    return 0;
}
