/* Unit tests of what the Kubernetes clients read: booleans as Go's strconv.ParseBool takes them
 * (common/parse_bool.c), pod conditions as kubelet sets them (adapters/objects/pod_conditions.c),
 * events.k8s.io Events and their object references (adapters/event.c), and Namespaces
 * (adapters/objects/namespace.c). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/event.h"
#include "adapters/objects/namespace.h"
#include "adapters/objects/pod_conditions.h"
#include "common/parse_bool.h"
#include "gateway/http/status.h"
#include "tests/lib/test.h"

static void parse_bool_takes_exactly_go_spellings(void)
{
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
    static const char *const neither[] = {"", "yes", "no", "tRUE", "2", " true", "true ", "on", "y", "01"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        bool v = false;
        CHECK_INT(parse_bool(yes[i], &v), 0);
        CHECK(v);
        v = true;
        CHECK_INT(parse_bool(no[i], &v), 0);
        CHECK(!v);
    }
    for (size_t i = 0; i < sizeof neither / sizeof *neither; i++) {
        bool v = true;
        CHECK_INT(parse_bool(neither[i], &v), -1);
        CHECK(v); /* untouched */
    }
    bool v = false;
    CHECK_INT(parse_bool(NULL, &v), -1);
}

/* The condition of type in list: "status/reason" ("True/" when no reason), or NULL. */
static char *cond(const json_t *list, const char *type)
{
    size_t i;
    json_t *c;
    static char buf[128];
    json_array_foreach(list, i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "type")), type) != 0)
            continue;
        const char *reason = json_string_value(json_object_get(c, "reason"));
        snprintf(buf, sizeof buf, "%s/%s", json_string_value(json_object_get(c, "status")), reason ? reason : "");
        return buf;
    }
    return NULL;
}

static const char *transition(const json_t *list, const char *type)
{
    size_t i;
    json_t *c;
    json_array_foreach(list, i, c) if (strcmp(json_string_value(json_object_get(c, "type")), type) ==
                                       0) return json_string_value(json_object_get(c, "lastTransitionTime"));
    return NULL;
}

static void pod_conditions_follow_kubelet(void)
{
    /* 2026-01-01T00:00:00Z and a few seconds on */
    const int64_t t0 = 1767225600000LL;
    struct pod_condition_facts f = {.phase = POD_PENDING,
                                    .container = "main",
                                    .unschedulable = "1/2 tasks in gang unschedulable",
                                    .created_ms = t0};
    json_t *c = pod_conditions_render(&f);
    CHECK_INT(json_array_size(c), 1);
    CHECK_STR(cond(c, "PodScheduled"), "False/Unschedulable");
    CHECK_STR(json_string_value(json_object_get(json_array_get(c, 0), "message")), "1/2 tasks in gang unschedulable");
    CHECK_STR(transition(c, "PodScheduled"), "2026-01-01T00:00:00Z");
    json_decref(c);

    f.bound = true; /* placed, its container not started yet */
    c = pod_conditions_render(&f);
    CHECK_INT(json_array_size(c), 4);
    CHECK_STR(cond(c, "Initialized"), "True/");
    CHECK_STR(cond(c, "Ready"), "False/ContainersNotReady");
    CHECK_STR(cond(c, "ContainersReady"), "False/ContainersNotReady");
    CHECK_STR(cond(c, "PodScheduled"), "True/");
    CHECK_STR(json_string_value(json_object_get(json_array_get(c, 1), "message")),
              "containers with unready status: [main]");
    CHECK_STR(json_string_value(json_object_get(json_array_get(c, 0), "type")), "Initialized"); /* kubelet's order */
    CHECK_STR(json_string_value(json_object_get(json_array_get(c, 3), "type")), "PodScheduled");
    json_decref(c);

    f.phase = POD_RUNNING;
    f.started_ms = t0 + 2000;
    f.container_ready = true;
    c = pod_conditions_render(&f);
    CHECK_STR(cond(c, "Ready"), "True/");
    CHECK_STR(cond(c, "ContainersReady"), "True/");
    CHECK_STR(transition(c, "Ready"), "2026-01-01T00:00:02Z");
    json_decref(c);

    f.container_ready = false; /* restarting after a back-off */
    c = pod_conditions_render(&f);
    CHECK_STR(cond(c, "Ready"), "False/ContainersNotReady");
    json_decref(c);

    f.phase = POD_SUCCEEDED;
    f.ended_ms = t0 + 5000;
    c = pod_conditions_render(&f);
    CHECK_STR(cond(c, "Initialized"), "True/PodCompleted");
    CHECK_STR(cond(c, "Ready"), "False/PodCompleted");
    CHECK_STR(cond(c, "ContainersReady"), "False/PodCompleted");
    CHECK_STR(cond(c, "PodScheduled"), "True/");
    CHECK_STR(transition(c, "Ready"), "2026-01-01T00:00:05Z");
    json_decref(c);

    f.phase = POD_FAILED;
    c = pod_conditions_render(&f);
    CHECK_STR(cond(c, "Initialized"), "True/");
    CHECK_STR(cond(c, "Ready"), "False/PodFailed");
    CHECK_STR(cond(c, "ContainersReady"), "False/PodFailed");
    json_decref(c);
}

static void events_name_their_object_in_both_apis(void)
{
    struct event_view ev = {.seq = 42,
                            .time_ms = 1767225600123LL,
                            .kind = "Pod",
                            .ns = "team-a",
                            .name = "train-w-0",
                            .job_uid = "11111111-2222-3333-4444-555555555555",
                            .job_name = "train",
                            .from = "Pending",
                            .to = "Running",
                            .reason = "Started",
                            .message = "attempt 1 started",
                            .uid = "11111111-2222-3333-4444-000000000000"};
    json_t *v1 = event_render(&ev), *ev1 = event_render_events_v1(&ev);
    const json_t *io = json_object_get(v1, "involvedObject"), *re = json_object_get(ev1, "regarding");
    CHECK_STR(json_string_value(json_object_get(io, "uid")), "11111111-2222-3333-4444-000000000000");
    CHECK_STR(json_string_value(json_object_get(io, "kind")), "Pod");
    CHECK_STR(json_string_value(json_object_get(io, "apiVersion")), "v1");
    CHECK_STR(json_string_value(json_object_get(io, "namespace")), "team-a");
    CHECK_STR(json_string_value(json_object_get(io, "resourceVersion")), "42");
    CHECK(json_equal(io, re));
    CHECK_STR(json_string_value(json_object_get(v1, "eventTime")), "2026-01-01T00:00:00.123000Z"); /* RFC3339Micro */
    CHECK_STR(json_string_value(json_object_get(ev1, "apiVersion")), "events.k8s.io/v1");
    CHECK_STR(json_string_value(json_object_get(ev1, "note")), "attempt 1 started");
    CHECK_STR(json_string_value(json_object_get(ev1, "reason")), "Started");
    CHECK_STR(json_string_value(json_object_get(ev1, "type")), "Normal");
    CHECK_STR(json_string_value(json_object_get(ev1, "eventTime")), "2026-01-01T00:00:00.123000Z");
    CHECK_STR(json_string_value(json_object_get(ev1, "reportingController")), "caldera.io/caldera");
    CHECK(json_string_value(json_object_get(ev1, "reportingInstance")) != NULL);
    json_decref(v1);
    json_decref(ev1);

    ev.kind = "Job"; /* a job's events: its uid is the job's own */
    ev.uid = "";
    v1 = event_render(&ev);
    CHECK_STR(json_string_value(json_object_get(json_object_get(v1, "involvedObject"), "uid")),
              "11111111-2222-3333-4444-555555555555");
    json_decref(v1);
}

static void namespaces_are_checked_as_the_api_server_does(void)
{
    struct api_status st = {0};
    json_t *doc = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}}", "apiVersion", "v1", "kind", "Namespace", "metadata", "name",
                            "team-a", "labels", "tier", "gold");
    json_t *ns = NULL;
    CHECK_INT(namespace_from_json(doc, "2026-01-01T00:00:00Z", &ns, &st), 0);
    const json_t *meta = json_object_get(ns, "metadata");
    CHECK_STR(json_string_value(json_object_get(json_object_get(meta, "labels"), "kubernetes.io/metadata.name")),
              "team-a");
    CHECK_STR(json_string_value(json_object_get(json_object_get(meta, "labels"), "tier")), "gold");
    CHECK_INT(strlen(json_string_value(json_object_get(meta, "uid"))), 36);
    CHECK_STR(json_string_value(json_object_get(json_object_get(ns, "status"), "phase")), "Active");
    json_decref(ns);
    json_decref(doc);

    static const char *const bad[] = {"Team-A", "team_a", "-team", "a.b", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        st = (struct api_status){0};
        doc = json_pack("{s:{s:s}}", "metadata", "name", bad[i]);
        ns = NULL;
        CHECK_INT(namespace_from_json(doc, NULL, &ns, &st), -1);
        CHECK_INT(st.code, 422);
        CHECK(ns == NULL);
        char *text = json_dumps_status(&st);
        CHECK_CONTAINS(text, "\"field\":\"metadata.name\"");
        free(text);
        json_decref(doc);
    }

    json_t *a = namespace_render("team-b", NULL, NULL, NULL), *b = namespace_render("team-b", NULL, NULL, NULL);
    CHECK(json_equal(a, b)); /* a namespace nobody created keeps one uid */
    json_decref(a);
    json_decref(b);
}

TEST_MAIN(TEST_CASE(parse_bool_takes_exactly_go_spellings), TEST_CASE(pod_conditions_follow_kubelet),
          TEST_CASE(events_name_their_object_in_both_apis), TEST_CASE(namespaces_are_checked_as_the_api_server_does))
