/* Volcano Queues in and out. The manifest keeps what the client owns (metadata, spec with Volcano's
 * defaults applied); the stored form adds uid, times and the state, so a Closed queue stays Closed. */
#include "adapters/objects/queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/objects/object_meta.h"
#include "adapters/objects/pod_template.h"
#include "adapters/objects/render.h"
#include "common/uuid.h"

#define QUEUE_WEIGHT_MAX 65535
/* Volcano's hierarchy hangs every top-level queue below an implicit queue called root. */
#define ROOT_QUEUE "root"

static const struct object_type queue_type = {QUEUE_API_VERSION, "Queue", "queues", "scheduling.volcano.sh"};

static const char *const top_fields[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
/* QueueSpec (volcano-sh/apis scheduling/v1beta1). Honoured: weight, capability, reclaimable,
 * guarantee, deserved, parent, priority, dequeueStrategy. Refused, each for its reason. */
static const struct field_rule spec_rules[] = {
    {"weight", NULL},
    {"capability", NULL},
    {"reclaimable", NULL},
    {"guarantee", NULL},
    {"deserved", NULL},
    {"parent", NULL},
    {"priority", NULL},
    {"dequeueStrategy", NULL},
    {"extendClusters", "Caldera dispatches jobs to its own nodes only, not to other clusters"},
    {"affinity", "Caldera has no node groups for a queue's nodeGroupAffinity"},
    {"type", "Caldera does not implement queue types: a queue is a hierarchy through spec.parent"},
    {NULL, NULL},
};
static const char *const guarantee_fields[] = {"resource", NULL};

/* A resource map whose presence matters: capability {cpu: 4} limits cpu and nothing else. */
static bool parse_limits(struct fields *f, json_t *parent, const char *key, const char *path, bool *has,
                         struct resvec *out)
{
    *has = json_is_object(json_object_get(parent, key));
    return resource_map_parse(f, parent, key, path, true, out);
}

static void parse_guarantee(struct fields *f, json_t *spec, struct queue *q)
{
    json_t *g;
    if (!field_object(f, spec, "guarantee", "spec.guarantee", false, &g) || !g)
        return;
    field_check_known(f, g, "spec.guarantee", guarantee_fields);
    parse_limits(f, g, "resource", "spec.guarantee.resource", &q->has_guarantee, &q->guarantee);
}

/* Each resource of `lower` must not exceed the same resource in `upper` when upper names it. */
static void check_within(struct fields *f, const json_t *lower, const char *lower_path, const struct resvec *lv,
                         const json_t *upper, const char *upper_path, const struct resvec *uv)
{
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)lower, name, v)
    {
        int i = resource_index(name);
        if (i < 0 || !json_object_get(upper, name) || lv->v[i] <= uv->v[i])
            continue;
        char path[FIELD_PATH_MAX], detail[FIELD_PATH_MAX + 64];
        field_path(path, lower_path, name);
        snprintf(detail, sizeof detail, "must be less than or equal to %s.%s", upper_path, name);
        field_invalid(f, lower, name, path, detail);
    }
}

static void check_resource_order(struct fields *f, json_t *spec, const struct queue *q)
{
    json_t *cap = json_object_get(spec, "capability");
    json_t *guarantee = json_object_get(json_object_get(spec, "guarantee"), "resource");
    json_t *deserved = json_object_get(spec, "deserved");
    if (q->has_capability && q->has_guarantee)
        check_within(f, guarantee, "spec.guarantee.resource", &q->guarantee, cap, "spec.capability", &q->capability);
    if (q->has_capability && q->has_deserved)
        check_within(f, deserved, "spec.deserved", &q->deserved, cap, "spec.capability", &q->capability);
}

static void parse_parent(struct fields *f, json_t *spec, struct queue *q)
{
    const char *parent = NULL;
    if (!field_string(f, spec, "parent", "spec.parent", false, &parent) || !parent || !*parent)
        return;
    if (q->name && strcmp(parent, q->name) == 0)
        field_invalid(f, spec, "parent", "spec.parent", "a queue cannot be its own parent");
    else if (strcmp(parent, ROOT_QUEUE) != 0 && !(q->parent = strdup(parent)))
        api_fail(f->st, 500, "InternalError", "out of memory");
}

static void parse_dequeue_strategy(struct fields *f, json_t *spec, struct queue *q)
{
    const char *s = NULL;
    if (!field_string(f, spec, "dequeueStrategy", "spec.dequeueStrategy", false, &s))
        return;
    if (!s) {
        json_object_set_new(spec, "dequeueStrategy", json_string("traverse"));
        return;
    }
    if (strcmp(s, "fifo") != 0 && strcmp(s, "traverse") != 0)
        field_unsupported(f, spec, "dequeueStrategy", "spec.dequeueStrategy",
                          "supported values: \"fifo\", \"traverse\"");
    q->dequeue_fifo = strcmp(s, "fifo") == 0;
}

/* Volcano's mutating webhook defaults weight to 1 and reclaimable to true; both are written into
 * the spec so a client reads back what the scheduler uses. */
static void parse_spec(struct fields *f, json_t *spec, struct queue *q)
{
    field_check_rules(f, spec, "spec", spec_rules);
    int64_t weight = 1, priority = 0;
    if (field_int(f, spec, "weight", "spec.weight", false, 1, QUEUE_WEIGHT_MAX, &weight) &&
        !json_is_integer(json_object_get(spec, "weight")))
        json_object_set_new(spec, "weight", json_integer(weight));
    q->weight = (int32_t)weight;
    q->reclaimable = true;
    if (field_bool(f, spec, "reclaimable", "spec.reclaimable", &q->reclaimable) &&
        !json_is_boolean(json_object_get(spec, "reclaimable")))
        json_object_set_new(spec, "reclaimable", json_true());
    bool caps_ok = parse_limits(f, spec, "capability", "spec.capability", &q->has_capability, &q->capability);
    parse_guarantee(f, spec, q);
    caps_ok = parse_limits(f, spec, "deserved", "spec.deserved", &q->has_deserved, &q->deserved) && caps_ok;
    parse_parent(f, spec, q);
    field_int(f, spec, "priority", "spec.priority", false, INT32_MIN, INT32_MAX, &priority);
    q->priority = (int32_t)priority;
    parse_dequeue_strategy(f, spec, q);
    if (caps_ok && f->st->ncauses == 0)
        check_resource_order(f, spec, q);
}

/* The queue of a document; its metadata.resourceVersion lands in q->resource_version. */
static struct queue *build(struct fields *f, json_t *root)
{
    json_t *meta, *spec;
    struct queue *q = calloc(1, sizeof *q);
    if (!q) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return NULL;
    }
    q->state = QUEUE_OPEN;
    field_check_known(f, root, "", top_fields);
    if (json_is_object(json_object_get(root, "metadata")))
        field_check_rules(f, json_object_get(root, "metadata"), "metadata", kube_object_meta_rules);
    if (object_meta_parse(f, root, NULL, &meta, &q->resource_version)) {
        q->manifest = json_pack("{s:o}", "metadata", meta);
        q->name = strdup(json_string_value(json_object_get(meta, "name")));
        if (!q->manifest || !q->name)
            api_fail(f->st, 500, "InternalError", "out of memory");
    }
    /* The spec is read even when the metadata is wrong, so one answer lists every problem. */
    if (f->st->code == 0 && field_object(f, root, "spec", "spec", false, &spec)) {
        spec = spec ? json_incref(spec) : json_object();
        parse_spec(f, spec, q);
        if (q->manifest)
            json_object_set_new(q->manifest, "spec", spec);
        else
            json_decref(spec);
    }
    if (f->st->code != 0 || f->st->ncauses > 0) {
        queue_free(q);
        return NULL;
    }
    return q;
}

int queue_from_doc(const struct intake_doc *doc, struct queue **out, struct api_status *st)
{
    *out = NULL;
    if (!json_is_object(doc->root))
        return api_fail(st, 400, "BadRequest", "the body must be a Queue object");
    if (object_check_type(doc->root, &queue_type, st) != 0)
        return -1;
    struct fields f = {doc, st};
    *out = build(&f, doc->root);
    return *out ? 0 : object_fail_invalid(st, &queue_type, doc->root);
}

struct queue *queue_new_default(int64_t now_ms)
{
    struct queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->name = strdup("default");
    uuid_v4(q->uid);
    q->created_ms = now_ms;
    q->weight = 1;
    q->reclaimable = true;
    q->state = QUEUE_OPEN;
    q->manifest = json_pack("{s:{s:s}, s:{s:i, s:b, s:s}}", "metadata", "name", "default", "spec", "weight", 1,
                            "reclaimable", 1, "dequeueStrategy", "traverse");
    if (!q->name || !q->manifest) {
        queue_free(q);
        return NULL;
    }
    return q;
}

json_t *queue_render(const struct queue *q, const struct queue_counts *c)
{
    json_t *meta = object_meta_render(json_object_get(q->manifest, "metadata"), q->uid, q->created_ms,
                                      q->resource_version);
    json_t *spec = json_deep_copy(json_object_get(q->manifest, "spec"));
    json_t *status = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:o}", "state", queue_state_name(q->state), "pending",
                               c->pending, "inqueue", c->inqueue, "running", c->running, "completed", c->completed,
                               "unknown", c->unknown, "allocated", render_resources(&q->allocated, false));
    if (status) /* Caldera's addition: the fair share proportion computed in the last cycle */
        json_object_set_new(status, "deserved", render_resources(&q->fair_share, false));
    return json_pack("{s:s, s:s, s:o, s:o, s:o}", "apiVersion", QUEUE_API_VERSION, "kind", "Queue", "metadata", meta,
                     "spec", spec, "status", status);
}

char *queue_to_store_json(const struct queue *q)
{
    json_t *meta = object_meta_render(json_object_get(q->manifest, "metadata"), q->uid, q->created_ms,
                                      q->resource_version);
    return object_store_text(json_pack("{s:s, s:s, s:o, s:O, s:{s:s}}", "apiVersion", QUEUE_API_VERSION, "kind",
                                       "Queue", "metadata", meta, "spec", json_object_get(q->manifest, "spec"),
                                       "status", "state", queue_state_name(q->state)));
}

static enum queue_state stored_state(const json_t *root)
{
    const char *s = json_string_value(json_object_get(json_object_get(root, "status"), "state"));
    if (s && strcmp(s, "Closing") == 0)
        return QUEUE_CLOSING;
    if (s && strcmp(s, "Closed") == 0)
        return QUEUE_CLOSED;
    return QUEUE_OPEN; /* queues stored before states were kept were all Open */
}

struct queue *queue_from_store_json(const char *json)
{
    json_t *root = json_loads(json, 0, NULL);
    if (!json_is_object(root)) {
        json_decref(root);
        return NULL;
    }
    struct api_status st = {0};
    struct fields f = {NULL, &st, true};
    enum queue_state state = stored_state(root);
    struct queue *q = build(&f, root);
    if (q) {
        object_meta_restore(root, q->uid, &q->created_ms);
        q->state = state;
    }
    json_decref(root);
    return q;
}
