/* The debug session (caldera.io/v1 DebugSession): the Volcano Job of one task holding its resources,
 * the companions annotation, the deadline's default and bounds, the image, the task's command, the
 * status with the companions' URLs, and every refusal with its field and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/debug/debug.h"
#include "adapters/dialects/dialect.h"
#include "common/json_patch.h"
#include "adapters/intake/intake.h"
#include "model/resource.h"
#include "tests/lib/causes.h"
#include "tests/lib/test.h"
#include "tests/lib/json_text.h"

struct adapted {
    struct intake in;
    struct api_status st;
    struct job *job;
    int rc;
};

/* Posts YAML (or JSON) to the debugsessions path of namespace "team-a". */
static void adapt(const char *text, struct adapted *a)
{
    memset(a, 0, sizeof *a);
    a->rc = intake_parse(text, strlen(text), text[0] == '{' ? INTAKE_JSON : INTAKE_YAML, &a->in, &a->st);
    if (a->rc == 0)
        a->rc = dialect_job_from_doc(dialect_by_plural("caldera.io", "v1", "debugsessions"), &a->in.docs[0], "team-a",
                                     &a->job, &a->st);
}

static void adapted_free(struct adapted *a)
{
    job_free(a->job);
    intake_free(&a->in);
}

static const json_t *pod_spec(const struct adapted *a)
{
    const json_t *task = json_array_get(json_object_get(json_object_get(job_manifest(a->job), "spec"), "tasks"), 0);
    return json_object_get(json_object_get(task, "template"), "spec");
}

static const json_t *container(const struct adapted *a)
{
    return json_array_get(json_object_get(pod_spec(a), "containers"), 0);
}

static const char *annotation(const struct adapted *a, const char *key)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(job_manifest(a->job), "metadata"), "annotations"), key));
}

#define SESSION_HEAD "apiVersion: caldera.io/v1\nkind: DebugSession\nmetadata:\n  name: dbg\n"

/* --- translation ---------------------------------------------------------------------------------- */

static void one_task_holds_the_resources(void)
{
    struct adapted a;
    adapt(SESSION_HEAD
          "  labels: {owner: alice}\n"
          "  annotations: {note: hello}\n"
          "spec:\n"
          "  resources: {cpu: \"2\", memory: 4Gi, nvidia.com/gpu: 1}\n"
          "  companions: [jupyter, terminal]\n"
          "  image: python:3.12\n"
          "  queue: team-a\n",
          &a);
    REQUIRE(a.rc == 0);
    CHECK_STR(a.job->name, "dbg");
    CHECK_STR(a.job->queue, "team-a");
    CHECK_INT(a.job->ntasks, 1);
    CHECK_STR(a.job->tasks[0].name, "session");
    CHECK_INT(a.job->tasks[0].replicas, 1);
    CHECK_INT(a.job->min_available, 1);
    CHECK_INT(a.job->tasks[0].request.v[RES_CPU], 2000);
    CHECK_INT(a.job->tasks[0].request.v[RES_MEMORY], 4LL << 30);
    CHECK_INT(a.job->tasks[0].request.v[RES_GPU], 1);
    CHECK_INT(a.job->tasks[0].limit.v[RES_GPU], 1);
    /* a real process that holds the resources until it is killed */
    CHECK(json_is_text(json_object_get(container(&a), "command"), "[\"sleep\",\"infinity\"]"));
    CHECK_STR(json_string_value(json_object_get(pod_spec(&a), "restartPolicy")), "Never");
    CHECK_STR(json_string_value(json_object_get(container(&a), "image")), "python:3.12");
    CHECK_STR(annotation(&a, "caldera.io/companions"), "jupyter,terminal");
    CHECK_STR(annotation(&a, "caldera.io/debug-session"), "true");
    CHECK_STR(annotation(&a, "note"), "hello");
    CHECK(json_is_text(json_object_get(json_object_get(job_manifest(a.job), "metadata"), "labels"),
                       "{\"owner\":\"alice\"}"));
    /* the request is kept as posted, for GET */
    CHECK_STR(json_string_value(json_object_get(a.job->source, "kind")), "DebugSession");
    CHECK(json_is_text(json_object_get(json_object_get(a.job->source, "spec"), "companions"),
                       "[\"jupyter\",\"terminal\"]"));
    adapted_free(&a);
}

static void deadline_default_duration_and_max(void)
{
    struct adapted a;
    adapt(SESSION_HEAD "spec: {resources: {cpu: 1}, companions: [terminal]}\n", &a);
    REQUIRE(a.rc == 0);
    CHECK_INT(a.job->tasks[0].active_deadline_seconds, 8 * 3600);
    CHECK_INT(json_integer_value(json_object_get(json_object_get(a.job->source, "spec"), "activeDeadlineSeconds")),
              8 * 3600);
    CHECK(json_object_get(container(&a), "image") == NULL);
    adapted_free(&a);

    adapt(SESSION_HEAD "spec: {resources: {cpu: 1}, companions: [terminal], duration: 1h30m}\n", &a);
    REQUIRE(a.rc == 0);
    CHECK_INT(a.job->tasks[0].active_deadline_seconds, 5400);
    CHECK(json_object_get(json_object_get(a.job->source, "spec"), "activeDeadlineSeconds") == NULL);
    adapted_free(&a);

    adapt(SESSION_HEAD "spec: {resources: {cpu: 1}, companions: [terminal], duration: 168h}\n", &a);
    REQUIRE(a.rc == 0);
    CHECK_INT(a.job->tasks[0].active_deadline_seconds, 7 * 24 * 3600);
    adapted_free(&a);

    adapt(SESSION_HEAD "spec: {resources: {cpu: 1}, companions: [terminal], activeDeadlineSeconds: 600}\n", &a);
    REQUIRE(a.rc == 0);
    CHECK_INT(a.job->tasks[0].active_deadline_seconds, 600);
    adapted_free(&a);

    adapt(SESSION_HEAD "spec:\n  resources: {cpu: 1}\n  companions: [terminal]\n  activeDeadlineSeconds: 604801\n", &a);
    CHECK(a.rc != 0);
    CHECK_CAUSE(&a.st, "spec.activeDeadlineSeconds", "FieldValueInvalid", 8, "604800");
    adapted_free(&a);

    adapt(SESSION_HEAD "spec:\n  resources: {cpu: 1}\n  companions: [terminal]\n  duration: 169h\n", &a);
    CHECK(a.rc != 0);
    CHECK_CAUSE(&a.st, "spec.duration", "FieldValueInvalid", 8, "168h");
    adapted_free(&a);
}

static void generated_name_without_one(void)
{
    struct adapted a;
    adapt(
        "{\"apiVersion\":\"caldera.io/v1\",\"kind\":\"DebugSession\",\"spec\":{\"resources\":{\"memory\":\"1Gi\"},"
        "\"companions\":[\"jupyter\"]}}",
        &a);
    REQUIRE(a.rc == 0);
    CHECK(strncmp(a.job->name, "debug-", 6) == 0 && strlen(a.job->name) > 6);
    adapted_free(&a);
}

static void node_selector_and_tolerations_reach_the_pod(void)
{
    struct adapted a;
    adapt(SESSION_HEAD
          "spec:\n  resources: {nvidia.com/gpu: 1}\n  companions: [jupyter]\n"
          "  nodeSelector: {accelerator: a100}\n"
          "  tolerations: [{key: dedicated, value: gpu, effect: NoSchedule}]\n",
          &a);
    REQUIRE(a.rc == 0);
    CHECK(json_is_text(json_object_get(pod_spec(&a), "nodeSelector"), "{\"accelerator\":\"a100\"}"));
    CHECK(json_is_text(json_object_get(pod_spec(&a), "tolerations"),
                       "[{\"effect\":\"NoSchedule\",\"key\":\"dedicated\",\"value\":\"gpu\"}]"));
    adapted_free(&a);

    /* the pod's own checks, said on the session's fields and lines */
    adapt(SESSION_HEAD
          "spec:\n  resources: {cpu: 1}\n  companions: [jupyter]\n"
          "  tolerations:\n  - {key: k, operator: Sometimes}\n",
          &a);
    CHECK(a.rc != 0);
    CHECK_CAUSE(&a.st, "spec.tolerations[0].operator", "FieldValueNotSupported", 9, "Sometimes");
    adapted_free(&a);
    adapt(SESSION_HEAD "spec:\n  resources: {cpu: 1}\n  companions: [jupyter]\n  nodeSelector: {zone: [a]}\n", &a);
    CHECK(a.rc != 0);
    CHECK_CAUSE(&a.st, "spec.nodeSelector[zone]", "FieldValueInvalid", 8, "must be a string");
    adapted_free(&a);
}

/* --- refusals --------------------------------------------------------------------------------------- */

static void every_error_names_its_field_and_line(void)
{
    struct adapted a;
    adapt(SESSION_HEAD
          "spec:\n" /* line 5 */
          "  companions: [jupyter, jupyter, Bad_Name]\n"
          "  duration: soon\n"
          "  image: \"\"\n"
          "  replicas: 2\n"
          "  queue: [a]\n",
          &a);
    CHECK(a.rc != 0);
    CHECK_INT(a.st.code, 422);
    CHECK_CONTAINS(a.st.message, "DebugSession.caldera.io \"dbg\" is invalid");
    CHECK_CAUSE(&a.st, "spec.resources", "FieldValueRequired", 6, "Required value"); /* where it belongs */
    CHECK_CAUSE(&a.st, "spec.companions[1]", "FieldValueDuplicate", 6, "jupyter");
    CHECK_CAUSE(&a.st, "spec.companions[2]", "FieldValueInvalid", 6, "DNS-1123");
    CHECK_CAUSE(&a.st, "spec.duration", "FieldValueInvalid", 7, "soon");
    CHECK_CAUSE(&a.st, "spec.image", "FieldValueInvalid", 8, "must not be empty");
    CHECK_CAUSE(&a.st, "spec.replicas", "FieldValueNotSupported", 9, "unknown field");
    CHECK_CAUSE(&a.st, "spec.queue", "FieldValueInvalid", 10, "");
    adapted_free(&a);

    adapt(SESSION_HEAD
          "spec:\n"
          "  resources:\n"
          "    cpu: lots\n" /* line 7 */
          "    bananas: 3\n"
          "  activeDeadlineSeconds: 60\n"
          "  duration: 1h\n",
          &a);
    CHECK(a.rc != 0);
    CHECK_CAUSE(&a.st, "spec.resources.cpu", "FieldValueInvalid", 7, "invalid quantity \"lots\"");
    CHECK_CAUSE(&a.st, "spec.resources.bananas", "FieldValueNotSupported", 8, "not a resource");
    CHECK_CAUSE(&a.st, "spec.duration", "FieldValueForbidden", 10, "activeDeadlineSeconds");
    CHECK_CAUSE(&a.st, "spec.companions", "FieldValueRequired", 6, "Required value");
    adapted_free(&a);

    adapt(SESSION_HEAD "spec:\n  resources: {}\n  companions: []\n", &a);
    CHECK(a.rc != 0);
    CHECK_CAUSE(&a.st, "spec.resources", "FieldValueInvalid", 6, "holds resources");
    CHECK_CAUSE(&a.st, "spec.companions", "FieldValueInvalid", 7, "at least one");
    adapted_free(&a);

    adapt(
        "apiVersion: caldera.io/v1\nkind: DebugSession\nmetadata:\n  name: dbg\n  finalizers: [x]\n"
        "replicas: 3\n",
        &a);
    CHECK(a.rc != 0);
    CHECK_CAUSE(&a.st, "spec", "FieldValueRequired", 1, "Required value");
    CHECK_CAUSE(&a.st, "replicas", "FieldValueNotSupported", 6, "unknown field");
    CHECK_CAUSE(&a.st, "metadata.finalizers", "FieldValueForbidden", 5, "finalizer");
    adapted_free(&a);

    /* a companion's name, <job>-<type>, must stay a DNS label */
    adapt(
        "apiVersion: caldera.io/v1\nkind: DebugSession\nmetadata:\n"
        "  name: a-long-session-name-of-fifty-three-characters-abcdefg\n"
        "spec:\n  resources: {cpu: 1}\n  companions: [terminal, code-server]\n",
        &a);
    CHECK(a.rc != 0);
    CHECK_CAUSE(&a.st, "spec.companions[1]", "FieldValueInvalid", 7, "longer than 63");
    CHECK(cause_on(&a.st, "spec.companions[0]") == NULL);
    adapted_free(&a);
}

/* The name is the Volcano Job's: refused as a DNS-1123 label, on the session's own line. */
static void bad_name_refused_on_its_line(void)
{
    struct adapted a;
    adapt(
        "apiVersion: caldera.io/v1\nkind: DebugSession\nmetadata:\n  name: Not_A_Name\n"
        "spec: {resources: {cpu: 1}, companions: [jupyter]}\n",
        &a);
    CHECK(a.rc != 0);
    CHECK_INT(a.st.code, 422);
    CHECK_CONTAINS(a.st.message, "DebugSession.caldera.io");
    CHECK_CAUSE(&a.st, "metadata.name", "FieldValueInvalid", 4, "Not_A_Name");
    adapted_free(&a);
}

/* --- status ----------------------------------------------------------------------------------------- */

static json_t *volcano_job_with(const struct adapted *a, const char *phase, const char *reason, const char *message,
                                const char *since)
{
    json_t *vj = json_pack("{s:{s:s,s:s,s:s},s:O,s:{s:{s:s}}}", "metadata", "name", "dbg", "namespace", "team-a", "uid",
                           "u-1", "spec", json_object_get(job_manifest(a->job), "spec"), "status", "state", "phase",
                           phase);
    json_t *state = json_object_get(json_object_get(vj, "status"), "state");
    if (reason)
        json_object_set_new(state, "reason", json_string(reason));
    if (message)
        json_object_set_new(state, "message", json_string(message));
    if (since)
        json_object_set_new(json_object_get(vj, "status"), "runningSince", json_string(since));
    json_object_set_new(state, "lastTransitionTime", json_string("2026-11-26T18:00:00Z"));
    return vj;
}

static void status_pending_running_ended(void)
{
    struct adapted a;
    adapt(SESSION_HEAD "spec: {resources: {cpu: 1}, companions: [jupyter, terminal], duration: 8h}\n", &a);
    REQUIRE(a.rc == 0);
    const struct dialect *d = dialect_of_source(a.job->source);
    REQUIRE(d != NULL);
    CHECK_STR(d->kind, "DebugSession");
    CHECK(!d->answer_as_volcano);

    json_t *vj = volcano_job_with(&a, "Pending", "Unschedulable", "0/1 nodes are available: 1 Insufficient cpu", NULL);
    json_t *obj = dialect_render(d, a.job->source, vj);
    REQUIRE(obj != NULL);
    const json_t *st = json_object_get(obj, "status");
    CHECK_STR(json_string_value(json_object_get(obj, "kind")), "DebugSession");
    CHECK_STR(json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid")), "u-1");
    CHECK_STR(json_string_value(json_object_get(st, "phase")), "Pending");
    CHECK_STR(json_string_value(json_object_get(st, "reason")), "Unschedulable");
    CHECK_CONTAINS(json_string_value(json_object_get(st, "message")), "Insufficient cpu");
    CHECK(json_object_get(st, "deadline") == NULL);
    CHECK(json_is_text(json_object_get(st, "companions"),
                       "[{\"name\":\"dbg-jupyter\",\"type\":\"jupyter\",\"url\":\"/proxy/team-a/dbg-jupyter/\"},"
                       "{\"name\":\"dbg-terminal\",\"type\":\"terminal\",\"url\":\"/proxy/team-a/dbg-terminal/\"}]"));
    json_decref(obj);
    json_decref(vj);

    vj = volcano_job_with(&a, "Running", NULL, NULL, "2026-11-26T10:00:00Z");
    json_t *s = debug_render_status(a.job->source, vj);
    CHECK_STR(json_string_value(json_object_get(s, "phase")), "Running");
    CHECK_STR(json_string_value(json_object_get(s, "startTime")), "2026-11-26T10:00:00Z");
    CHECK_STR(json_string_value(json_object_get(s, "deadline")), "2026-11-26T18:00:00Z");
    CHECK(json_object_get(s, "endTime") == NULL);
    json_decref(s);
    json_decref(vj);

    vj = volcano_job_with(&a, "Terminated", NULL, NULL, "2026-11-26T10:00:00Z");
    s = debug_render_status(a.job->source, vj);
    CHECK_STR(json_string_value(json_object_get(s, "phase")), "Ended");
    CHECK_STR(json_string_value(json_object_get(s, "jobPhase")), "Terminated");
    CHECK_STR(json_string_value(json_object_get(s, "endTime")), "2026-11-26T18:00:00Z");
    json_decref(s);
    json_decref(vj);

    /* failed at its deadline (8h after it started): ended, as it was told to */
    vj = volcano_job_with(&a, "Failed", "Sync", "a task has fewer succeeded replicas", "2026-11-26T10:00:00Z");
    s = debug_render_status(a.job->source, vj);
    CHECK_STR(json_string_value(json_object_get(s, "phase")), "Ended");
    CHECK_STR(json_string_value(json_object_get(s, "reason")), "DeadlineExceeded");
    CHECK_CONTAINS(json_string_value(json_object_get(s, "message")), "28800");
    json_decref(s);
    json_decref(vj);
    /* failed before it: a failure */
    vj = volcano_job_with(&a, "Failed", "Sync", "a task has fewer succeeded replicas", "2026-11-26T12:00:00Z");
    s = debug_render_status(a.job->source, vj);
    CHECK_STR(json_string_value(json_object_get(s, "phase")), "Failed");
    CHECK_STR(json_string_value(json_object_get(s, "reason")), "Sync");
    json_decref(s);
    json_decref(vj);
    adapted_free(&a);
}

/* The update rule on a stored object: changes from `patch` (a JSON merge patch); rc, the new deadline,
 * the first cause's field. */
static int update_with(const char *stored_text, const char *patch_text, struct dialect_change *ch,
                       struct api_status *st, json_t **out)
{
    json_t *stored = json_loads(stored_text, 0, NULL), *patch = json_loads(patch_text, 0, NULL);
    json_t *updated = json_merge_patch(stored, patch);
    memset(st, 0, sizeof *st);
    int rc = debug_session_dialect.update(stored, updated, ch, st);
    json_decref(stored);
    json_decref(patch);
    if (out)
        *out = updated;
    else
        json_decref(updated);
    return rc;
}

#define STORED                                                                               \
    "{\"apiVersion\":\"caldera.io/"                                                          \
    "v1\",\"kind\":\"DebugSession\",\"metadata\":{\"name\":\"s\",\"labels\":{\"a\":\"b\"}}," \
    "\"spec\":{\"resources\":{\"cpu\":\"1\"},\"companions\":[\"jupyter\"],\"activeDeadlineSeconds\":28800}}"

static void update_may_change_only_the_deadline(void)
{
    struct dialect_change ch;
    struct api_status st;
    json_t *out = NULL;
    /* a duration replaces the stored activeDeadlineSeconds */
    CHECK_INT(update_with(STORED, "{\"spec\":{\"duration\":\"10h\"}}", &ch, &st, &out), 0);
    CHECK_INT(ch.active_deadline_seconds, 36000);
    CHECK(json_object_get(json_object_get(out, "spec"), "activeDeadlineSeconds") == NULL);
    CHECK_CONTAINS(ch.what, "28800s to 36000s");
    json_decref(out);
    CHECK_INT(update_with(STORED, "{\"spec\":{\"activeDeadlineSeconds\":60}}", &ch, &st, NULL), 0);
    CHECK_INT(ch.active_deadline_seconds, 60);
    /* no change, the server's own fields and the status ignored */
    CHECK_INT(
        update_with(STORED, "{\"metadata\":{\"uid\":\"x\",\"resourceVersion\":\"9\"},\"status\":{}}", &ch, &st, NULL),
        0);
    CHECK_INT(ch.active_deadline_seconds, 0);
    /* anything else: 422 naming the field */
    CHECK_INT(update_with(STORED, "{\"spec\":{\"resources\":{\"cpu\":\"2\"}}}", &ch, &st, NULL), -1);
    CHECK_INT(st.code, 422);
    CHECK_STR(st.causes[0].field, "spec.resources");
    CHECK_CONTAINS(st.causes[0].message, "field is immutable");
    CHECK_INT(update_with(STORED, "{\"spec\":{\"image\":\"x\"}}", &ch, &st, NULL), -1);
    CHECK_STR(st.causes[0].field, "spec.image");
    CHECK_INT(update_with(STORED, "{\"metadata\":{\"labels\":{\"a\":\"c\"}}}", &ch, &st, NULL), -1);
    CHECK_STR(st.causes[0].field, "metadata.labels");
    CHECK_INT(update_with(STORED, "{\"extra\":1}", &ch, &st, NULL), -1);
    CHECK_STR(st.causes[0].field, "extra");
    /* the deadline's own bounds */
    CHECK_INT(update_with(STORED, "{\"spec\":{\"duration\":\"30d\"}}", &ch, &st, NULL), -1);
    CHECK_STR(st.causes[0].field, "spec.duration");
    CHECK_INT(update_with(STORED, "{\"spec\":{\"activeDeadlineSeconds\":0}}", &ch, &st, NULL), -1);
    CHECK_STR(st.causes[0].field, "spec.activeDeadlineSeconds");
    /* both changed at once: give one */
    CHECK_INT(update_with(STORED, "{\"spec\":{\"duration\":\"1h\",\"activeDeadlineSeconds\":60}}", &ch, &st, NULL), -1);
    CHECK_STR(st.causes[0].field, "spec.duration");
    /* the other dialects change nothing */
    CHECK(dialect_by_plural("kubeflow.org", "v1", "pytorchjobs")->update == NULL);
}

TEST_MAIN(TEST_CASE(update_may_change_only_the_deadline), TEST_CASE(one_task_holds_the_resources),
          TEST_CASE(deadline_default_duration_and_max), TEST_CASE(generated_name_without_one),
          TEST_CASE(node_selector_and_tolerations_reach_the_pod), TEST_CASE(every_error_names_its_field_and_line),
          TEST_CASE(bad_name_refused_on_its_line), TEST_CASE(status_pending_running_ended))
