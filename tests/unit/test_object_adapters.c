/* The adapters of the scheduler's configuration objects: Queue, PriorityClass and ResourceQuota
 * parsed with their defaults, refused field by field with the line, rendered, and read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/objects/priority_class.h"
#include "adapters/objects/queue.h"
#include "adapters/objects/resource_quota.h"
#include "model/resource.h"
#include "tests/lib/causes.h"
#include "tests/lib/test.h"

/* --- helpers ---------------------------------------------------------------------------------- */

static bool parse_doc(const char *yaml, struct intake *in, struct api_status *st)
{
    memset(st, 0, sizeof *st);
    return intake_parse(yaml, strlen(yaml), INTAKE_YAML, in, st) == 0 && in->ndocs == 1;
}

static struct queue *parse_queue(const char *yaml, struct api_status *st)
{
    struct intake in;
    struct queue *q = NULL;
    if (parse_doc(yaml, &in, st))
        queue_from_doc(&in.docs[0], &q, st);
    intake_free(&in);
    return q;
}

static struct priority_class *parse_pc(const char *yaml, struct api_status *st)
{
    struct intake in;
    struct priority_class *pc = NULL;
    if (parse_doc(yaml, &in, st))
        priority_class_from_doc(&in.docs[0], &pc, st);
    intake_free(&in);
    return pc;
}

static struct resource_quota *parse_quota(const char *yaml, struct api_status *st)
{
    struct intake in;
    struct resource_quota *q = NULL;
    if (parse_doc(yaml, &in, st))
        resource_quota_from_doc(&in.docs[0], "team-a", &q, st);
    intake_free(&in);
    return q;
}

static const char *str_at(const json_t *obj, const char *a, const char *b)
{
    const json_t *v = json_object_get(obj, a);
    return json_string_value(b ? json_object_get(v, b) : v);
}

/* --- queues ------------------------------------------------------------------------------------ */

static void queue_fields_and_defaults(void)
{
    struct api_status st;
    struct queue *q = parse_queue(
        "apiVersion: scheduling.volcano.sh/v1beta1\n"
        "kind: Queue\n"
        "metadata: {name: research, labels: {team: ml}, namespace: ignored}\n"
        "spec:\n"
        "  capability: {cpu: 8, memory: 16Gi}\n"
        "  guarantee: {resource: {cpu: 2}}\n"
        "  deserved: {cpu: 4}\n"
        "  parent: root\n"
        "  priority: 7\n"
        "  dequeueStrategy: fifo\n",
        &st);
    REQUIRE(q);
    CHECK_STR(q->name, "research");
    CHECK_INT(q->weight, 1);
    CHECK(q->reclaimable);
    CHECK(q->has_capability);
    CHECK_INT(q->capability.v[RES_CPU], 8000);
    CHECK_INT(q->capability.v[RES_MEMORY], 16LL << 30);
    CHECK(q->has_guarantee);
    CHECK_INT(q->guarantee.v[RES_CPU], 2000);
    CHECK(q->has_deserved);
    CHECK_INT(q->deserved.v[RES_CPU], 4000);
    CHECK(q->parent == NULL); /* root is the top of Volcano's hierarchy */
    CHECK_INT(q->priority, 7);
    CHECK(q->dequeue_fifo);
    CHECK_INT(q->state, QUEUE_OPEN);
    /* Volcano's defaults are written into the spec; metadata keeps what the client owns. */
    json_t *spec = json_object_get(q->manifest, "spec");
    CHECK_INT(json_integer_value(json_object_get(spec, "weight")), 1);
    CHECK(json_is_true(json_object_get(spec, "reclaimable")));
    json_t *meta = json_object_get(q->manifest, "metadata");
    CHECK(json_object_get(meta, "namespace") == NULL);
    CHECK_STR(str_at(json_object_get(meta, "labels"), "team", NULL), "ml");
    queue_free(q);

    q = parse_queue(
        "{\"metadata\": {\"name\": \"child\"}, \"spec\": {\"weight\": 65535, \"reclaimable\": false, "
        "\"parent\": \"research\"}}",
        &st);
    REQUIRE(q);
    CHECK_INT(q->weight, 65535);
    CHECK(!q->reclaimable);
    CHECK(!q->has_capability);
    CHECK_STR(q->parent, "research");
    CHECK(!q->dequeue_fifo);
    CHECK_STR(str_at(json_object_get(q->manifest, "spec"), "dequeueStrategy", NULL), "traverse");
    queue_free(q);
}

static void queue_refuses_fields_by_name_with_lines(void)
{
    struct api_status st;
    struct queue *q = parse_queue(
        "apiVersion: scheduling.volcano.sh/v1beta1\n" /* 1 */
        "kind: Queue\n"                               /* 2 */
        "metadata:\n"                                 /* 3 */
        "  name: q1\n"                                /* 4 */
        "spec:\n"                                     /* 5 */
        "  weight: 0\n"                               /* 6 */
        "  type: hierarchy\n"                         /* 7 */
        "  affinity: {}\n"                            /* 8 */
        "  extendCluster: x\n"                        /* 9 */
        "  dequeueStrategy: lifo\n"                   /* 10 */
        "  parent: q1\n"                              /* 11 */
        "  reclaimable: maybe\n"                      /* 12 */
        "  capability: {cpu: 1, foo: 2}\n"            /* 13 */
        "  guarantee: {resources: {cpu: 1}}\n",       /* 14 */
        &st);
    CHECK(q == NULL);
    CHECK_INT(st.code, 422);
    CHECK_STR(st.reason, "Invalid");
    CHECK_CONTAINS(st.message, "Queue.scheduling.volcano.sh \"q1\" is invalid");
    CHECK_CAUSE(&st, "spec.weight", "FieldValueInvalid", 6, "must be between 1 and 65535");
    CHECK_CAUSE(&st, "spec.type", "FieldValueForbidden", 7, "Forbidden: Caldera does not implement queue types");
    CHECK(cause_on(&st, "spec.affinity") == NULL); /* {} asks for nothing, as omitempty drops it */
    CHECK_CAUSE(&st, "spec.extendCluster", "FieldValueNotSupported", 9, "unknown field \"spec.extendCluster\"");
    CHECK_CAUSE(&st, "spec.dequeueStrategy", "FieldValueNotSupported", 10, "\"fifo\", \"traverse\"");
    CHECK_CAUSE(&st, "spec.parent", "FieldValueInvalid", 11, "its own parent");
    CHECK_CAUSE(&st, "spec.reclaimable", "FieldValueInvalid", 12, "must be a boolean");
    CHECK_CAUSE(&st, "spec.capability.foo", "FieldValueNotSupported", 13, "no node offers this resource");
    CHECK_CAUSE(&st, "spec.guarantee.resources", "FieldValueNotSupported", 14,
                "unknown field \"spec.guarantee.resources\"");
}

static void queue_guarantee_and_deserved_within_capability(void)
{
    struct api_status st;
    struct queue *q = parse_queue(
        "metadata: {name: q}\n"
        "spec:\n"
        "  capability: {cpu: 2}\n"
        "  guarantee: {resource: {cpu: 3, memory: 1Gi}}\n"
        "  deserved: {cpu: 2500m}\n",
        &st);
    CHECK(q == NULL);
    CHECK_CAUSE(&st, "spec.guarantee.resource.cpu", "FieldValueInvalid", 4, "spec.capability.cpu");
    CHECK_CAUSE(&st, "spec.deserved.cpu", "FieldValueInvalid", 5, "less than or equal to spec.capability.cpu");
    CHECK(cause_on(&st, "spec.guarantee.resource.memory") == NULL); /* capability does not limit memory */
}

static void queue_wrong_kind_and_name(void)
{
    struct api_status st;
    CHECK(parse_queue("apiVersion: batch.volcano.sh/v1alpha1\nkind: Queue\nmetadata: {name: q}\n", &st) == NULL);
    CHECK_INT(st.code, 400);
    CHECK_CONTAINS(st.message, "does not match the expected API version (scheduling.volcano.sh/v1beta1)");
    CHECK(parse_queue("kind: Job\nmetadata: {name: q}\n", &st) == NULL);
    CHECK_INT(st.code, 400);
    CHECK(parse_queue("metadata: {name: Bad_Name}\nstatus: {state: Closed}\n", &st) == NULL);
    CHECK_CAUSE(&st, "metadata.name", "FieldValueInvalid", 1, "RFC 1123 subdomain");
    CHECK(parse_queue("metadata: {}\n", &st) == NULL);
    CHECK_CAUSE(&st, "metadata.name", "FieldValueRequired", 1, "Required value");
}

static void queue_render_and_store_round_trip(void)
{
    struct api_status st;
    struct queue *q = parse_queue(
        "metadata: {name: q, resourceVersion: \"41\"}\nspec: {weight: 3, capability: "
        "{cpu: 4}, parent: p, priority: -2, dequeueStrategy: fifo}\n",
        &st);
    REQUIRE(q);
    CHECK_INT(q->resource_version, 41); /* what an update expects to replace */
    snprintf(q->uid, sizeof q->uid, "%s", "uid-q");
    q->created_ms = 1763800000000LL;
    q->resource_version = 42;
    q->state = QUEUE_CLOSING;
    struct queue_counts n = {.pending = 1, .running = 2};
    json_t *r = queue_render(q, &n);
    CHECK_STR(str_at(r, "metadata", "uid"), "uid-q");
    CHECK_STR(str_at(r, "metadata", "resourceVersion"), "42");
    CHECK_STR(str_at(r, "metadata", "creationTimestamp"), "2025-11-22T08:26:40Z");
    CHECK_STR(str_at(r, "status", "state"), "Closing");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(r, "status"), "running")), 2);
    json_decref(r);

    char *stored = queue_to_store_json(q);
    REQUIRE(stored);
    struct queue *back = queue_from_store_json(stored);
    free(stored);
    REQUIRE(back);
    CHECK_STR(back->uid, "uid-q");
    CHECK_INT(back->created_ms, 1763800000000LL);
    CHECK_INT(back->resource_version, 42);
    CHECK_INT(back->state, QUEUE_CLOSING); /* a queue being closed stays so across a restart */
    CHECK_INT(back->weight, 3);
    CHECK_INT(back->capability.v[RES_CPU], 4000);
    CHECK_STR(back->parent, "p");
    CHECK_INT(back->priority, -2);
    CHECK(back->dequeue_fifo);
    CHECK(json_equal(back->manifest, q->manifest));
    queue_free(back);
    queue_free(q);

    /* What version 1 stored: the default queue's manifest, no state. */
    back = queue_from_store_json(
        "{\"metadata\":{\"name\":\"default\",\"uid\":\"u1\",\"creationTimestamp\":"
        "\"2025-11-22T08:26:40Z\"},\"spec\":{\"weight\":1,\"reclaimable\":true}}");
    REQUIRE(back);
    CHECK_STR(back->name, "default");
    CHECK_STR(back->uid, "u1");
    CHECK_INT(back->state, QUEUE_OPEN);
    queue_free(back);
    CHECK(queue_from_store_json("{\"spec\":{}}") == NULL);
    CHECK(queue_from_store_json("not json") == NULL);
}

/* --- priority classes ---------------------------------------------------------------------------- */

static void priority_class_fields_and_defaults(void)
{
    struct api_status st;
    struct priority_class *pc = parse_pc(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
        "metadata: {name: high}\nvalue: 1000000000\ndescription: urgent\n",
        &st);
    REQUIRE(pc);
    CHECK_STR(pc->name, "high");
    CHECK_INT(pc->value, PRIORITY_USER_MAX);
    CHECK(!pc->global_default);
    CHECK(!pc->preempt_never);
    CHECK(!pc->builtin);
    CHECK_STR(str_at(pc->manifest, "preemptionPolicy", NULL), "PreemptLowerPriority");
    CHECK(json_is_false(json_object_get(pc->manifest, "globalDefault")));
    CHECK_STR(str_at(pc->manifest, "description", NULL), "urgent");
    priority_class_free(pc);

    pc = parse_pc("metadata: {name: low}\nvalue: -5\nglobalDefault: true\npreemptionPolicy: Never\n", &st);
    REQUIRE(pc);
    CHECK_INT(pc->value, -5);
    CHECK(pc->global_default);
    CHECK(pc->preempt_never);
    priority_class_free(pc);
}

static void priority_class_refusals_with_lines(void)
{
    struct api_status st;
    CHECK(parse_pc("metadata: {name: x}\nglobalDefault: true\n", &st) == NULL);
    CHECK_CAUSE(&st, "value", "FieldValueRequired", 1, "Required value");
    CHECK(parse_pc("metadata:\n  name: system-mine\n"
                   "value: 1000000001\n"
                   "preemptionPolicy: Sometimes\n"
                   "spec: {value: 3}\n"
                   "globalDefault: yes please\n",
                   &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CONTAINS(st.message, "PriorityClass.scheduling.k8s.io \"system-mine\" is invalid");
    CHECK_CAUSE(&st, "metadata.name", "FieldValueForbidden", 2, "reserved for the built-in classes");
    CHECK_CAUSE(&st, "value", "FieldValueInvalid", 3, "1000000000");
    CHECK_CAUSE(&st, "preemptionPolicy", "FieldValueNotSupported", 4, "\"Never\", \"PreemptLowerPriority\"");
    CHECK_CAUSE(&st, "spec", "FieldValueNotSupported", 5, "unknown field \"spec\"");
    CHECK_CAUSE(&st, "globalDefault", "FieldValueInvalid", 6, "must be a boolean");
    CHECK(parse_pc("metadata: {name: x}\nvalue: 3000000000\n", &st) == NULL); /* not an int32 */
    CHECK_CAUSE(&st, "value", "FieldValueInvalid", 2, "must be between");
    CHECK(parse_pc("apiVersion: scheduling.k8s.io/v1beta1\nmetadata: {name: x}\nvalue: 1\n", &st) == NULL);
    CHECK_INT(st.code, 400);
}

static void priority_class_builtins(void)
{
    struct priority_class *pc = priority_class_new_builtin("system-cluster-critical", 1000);
    REQUIRE(pc);
    CHECK(pc->builtin);
    CHECK_INT(pc->value, 2000000000);
    json_t *r = priority_class_render(pc);
    CHECK_STR(str_at(r, "kind", NULL), "PriorityClass");
    CHECK_CONTAINS(str_at(r, "description", NULL), "system critical pods");
    json_decref(r);
    char *stored = priority_class_to_store_json(pc);
    struct priority_class *back = priority_class_from_store_json(stored);
    free(stored);
    REQUIRE(back);
    CHECK(back->builtin);
    CHECK_INT(back->value, 2000000000);
    CHECK_STR(back->uid, pc->uid);
    priority_class_free(back);
    priority_class_free(pc);
    CHECK(priority_class_new_builtin("high", 0) == NULL);
    CHECK_STR(priority_class_builtin_names[0], "system-node-critical");

    /* A built-in's name parses (value uncapped), so the core can answer that it is built in. */
    struct api_status st;
    pc = parse_pc("metadata: {name: system-node-critical}\nvalue: 2000001000\n", &st);
    REQUIRE(pc);
    CHECK(pc->builtin);
    priority_class_free(pc);
}

/* --- resource quotas ------------------------------------------------------------------------------ */

/* An extended resource, as a nodes file would register it at start-up (registering twice finds it). */
static void register_fpga(void) { CHECK(resource_register("example.com/fpga") >= RES_FIRST_EXTENDED); }

static void quota_keys(void)
{
    register_fpga();
    CHECK_INT(resource_quota_key_index("cpu"), RES_CPU);
    CHECK_INT(resource_quota_key_index("requests.cpu"), RES_CPU);
    CHECK_INT(resource_quota_key_index("memory"), RES_MEMORY);
    CHECK_INT(resource_quota_key_index("requests.memory"), RES_MEMORY);
    CHECK_INT(resource_quota_key_index("pods"), RES_PODS);
    CHECK_INT(resource_quota_key_index("requests.nvidia.com/gpu"), RES_GPU);
    CHECK(resource_quota_key_index("requests.example.com/fpga") >= RES_FIRST_EXTENDED);
    CHECK_INT(resource_quota_key_index("requests.pods"), -1);
    CHECK_INT(resource_quota_key_index("limits.cpu"), -1);
    CHECK_INT(resource_quota_key_index("count/pods"), -1);
    CHECK_INT(resource_quota_key_index("nvidia.com/gpu"), -1);
    CHECK_INT(resource_quota_key_index("services"), -1);
}

static void quota_fields(void)
{
    register_fpga();
    struct api_status st;
    struct resource_quota *q = parse_quota(
        "apiVersion: v1\nkind: ResourceQuota\n"
        "metadata: {name: compute, namespace: team-a}\n"
        "spec:\n"
        "  hard:\n"
        "    cpu: \"8\"\n"
        "    requests.cpu: 6\n"
        "    requests.memory: 16Gi\n"
        "    pods: 10\n"
        "    requests.example.com/fpga: 2\n",
        &st);
    REQUIRE(q);
    CHECK_STR(q->ns, "team-a");
    CHECK_STR(q->name, "compute");
    CHECK(q->limited[RES_CPU]);
    CHECK_INT(q->hard.v[RES_CPU], 6000); /* both limits hold: the lower one */
    CHECK_INT(q->hard.v[RES_MEMORY], 16LL << 30);
    CHECK(q->limited[RES_PODS]);
    CHECK_INT(q->hard.v[RES_PODS], 10);
    CHECK(!q->limited[RES_GPU]);
    CHECK_INT(q->hard.v[resource_index("example.com/fpga")], 2);

    snprintf(q->uid, sizeof q->uid, "%s", "uid-rq");
    q->resource_version = 9;
    struct resvec used = {0};
    used.v[RES_CPU] = 1500;
    used.v[RES_PODS] = 3;
    json_t *r = resource_quota_render(q, &used);
    json_t *status = json_object_get(r, "status");
    CHECK_STR(str_at(json_object_get(status, "hard"), "requests.cpu", NULL), "6");
    CHECK_STR(str_at(json_object_get(status, "hard"), "requests.memory", NULL), "16Gi");
    CHECK_STR(str_at(json_object_get(status, "used"), "cpu", NULL), "1500m");
    CHECK_STR(str_at(json_object_get(status, "used"), "requests.cpu", NULL), "1500m");
    CHECK_STR(str_at(json_object_get(status, "used"), "pods", NULL), "3");
    CHECK_STR(str_at(json_object_get(status, "used"), "requests.example.com/fpga", NULL), "0");
    CHECK_STR(str_at(r, "metadata", "namespace"), "team-a");
    CHECK_STR(str_at(r, "metadata", "resourceVersion"), "9");
    json_decref(r);

    char *stored = resource_quota_to_store_json(q);
    struct resource_quota *back = resource_quota_from_store_json(stored);
    free(stored);
    REQUIRE(back);
    CHECK_STR(back->ns, "team-a");
    CHECK_STR(back->uid, "uid-rq");
    CHECK_INT(back->resource_version, 9);
    CHECK_INT(back->hard.v[RES_CPU], 6000);
    CHECK(json_equal(back->manifest, q->manifest));
    resource_quota_free(back);
    resource_quota_free(q);
}

static void quota_refusals_with_lines(void)
{
    struct api_status st;
    CHECK(parse_quota("metadata: {name: q}\n"                                                               /* 1 */
                      "spec:\n"                                                                             /* 2 */
                      "  hard:\n"                                                                           /* 3 */
                      "    limits.cpu: 4\n"                                                                 /* 4 */
                      "    count/jobs: 3\n"                                                                 /* 5 */
                      "    services: 1\n"                                                                   /* 6 */
                      "    requests.foo/x: 1\n"                                                             /* 7 */
                      "    memory: lots\n"                                                                  /* 8 */
                      "    pods: 1.5\n"                                                                     /* 9 */
                      "  scopes: [BestEffort]\n"                                                            /* 10 */
                      "  scopeSelector: {matchExpressions: [{operator: Exists, scopeName: BestEffort}]}\n", /* 11 */
                      &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CONTAINS(st.message, "ResourceQuota \"q\" is invalid");
    CHECK_CAUSE(&st, "spec.hard[limits.cpu]", "FieldValueNotSupported", 4, "\"limits.cpu\"");
    CHECK_CAUSE(&st, "spec.hard[count/jobs]", "FieldValueNotSupported", 5, "Caldera enforces only");
    CHECK_CAUSE(&st, "spec.hard[services]", "FieldValueNotSupported", 6, "\"services\"");
    CHECK_CAUSE(&st, "spec.hard[requests.foo/x]", "FieldValueNotSupported", 7, "no node offers this resource");
    CHECK_CAUSE(&st, "spec.hard[memory]", "FieldValueInvalid", 8, "\"lots\"");
    CHECK_CAUSE(&st, "spec.hard[pods]", "FieldValueInvalid", 9, "1.5");
    CHECK_CAUSE(&st, "spec.scopes", "FieldValueForbidden", 10, "Forbidden: Caldera does not implement quota scopes");
    CHECK_CAUSE(&st, "spec.scopeSelector", "FieldValueForbidden", 11,
                "Forbidden: Caldera does not implement quota scopes");

    CHECK(parse_quota("metadata: {name: q, namespace: team-b}\n", &st) == NULL);
    CHECK_INT(st.code, 400);
    CHECK_CONTAINS(st.message, "does not match the namespace sent on the request (team-a)");
    CHECK(parse_quota("apiVersion: v1\nkind: LimitRange\nmetadata: {name: q}\n", &st) == NULL);
    CHECK_INT(st.code, 400);
}

TEST_MAIN(TEST_CASE(queue_fields_and_defaults), TEST_CASE(queue_refuses_fields_by_name_with_lines),
          TEST_CASE(queue_guarantee_and_deserved_within_capability), TEST_CASE(queue_wrong_kind_and_name),
          TEST_CASE(queue_render_and_store_round_trip), TEST_CASE(priority_class_fields_and_defaults),
          TEST_CASE(priority_class_refusals_with_lines), TEST_CASE(priority_class_builtins), TEST_CASE(quota_keys),
          TEST_CASE(quota_fields), TEST_CASE(quota_refusals_with_lines))
