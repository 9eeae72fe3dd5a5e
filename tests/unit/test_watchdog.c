/* The WatchDog's pure parts: its file read with every mistake at its field and line, notices routed by
 * annotation, namespace and user, the bodies of each format, and capability percentages rounded. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/notice_body.h"
#include "adapters/objects/watchdog_conf.h"
#include "tests/lib/causes.h"
#include "tests/lib/test.h"

static const char *const example =
    "webhooks:\n"
    "  - {name: ops, url: \"http://127.0.0.1:9/ops\", format: slack}\n"
    "  - {name: team, url: \"https://hooks.example.com/x\", format: lark}\n"
    "  - {name: raw, url: \"http://127.0.0.1:9/raw\"}\n"
    "routes:\n"
    "  - {webhooks: [raw]}\n"
    "  - {namespace: team-a, webhooks: [team, raw], notify: [Failed, Waste]}\n"
    "  - {user: alice, webhooks: [ops]}\n"
    "queues:\n"
    "  - name: default\n"
    "    capabilityPercent: {cpu: 50, memory: 25.5, nvidia.com/gpu: 25}\n"
    "pendingTimeout: 30m\n"
    "waste: {fraction: 0.2, period: 10m}\n"
    "delivery: {attempts: 2, backoff: 250ms, timeout: 3s, queueSize: 16}\n";

static void example_reads(void)
{
    struct watchdog_conf c;
    struct api_status st = {0};
    REQUIRE(watchdog_conf_parse(example, strlen(example), &c, &st) == 0);
    CHECK_INT(c.nwebhooks, 3);
    CHECK_INT(c.webhooks[0].format, NOTIFY_SLACK);
    CHECK_INT(c.webhooks[1].format, NOTIFY_LARK);
    CHECK_INT(c.webhooks[2].format, NOTIFY_JSON);
    CHECK_INT(c.nroutes, 3);
    CHECK_INT(c.routes[1].kinds, (1u << NOTICE_FAILED) | (1u << NOTICE_WASTE));
    CHECK_INT(c.routes[0].kinds, NOTICE_ALL);
    CHECK_INT(c.nqueues, 1);
    CHECK(c.queues[0].has[RES_CPU] && c.queues[0].has[RES_MEMORY] && c.queues[0].has[RES_GPU]);
    CHECK(!c.queues[0].has[RES_PODS]);
    CHECK(c.queues[0].percent[RES_MEMORY] == 25.5);
    CHECK_INT(c.pending_ms, 30 * 60 * 1000);
    CHECK(c.waste_fraction == 0.2);
    CHECK_INT(c.waste_period_ms, 10 * 60 * 1000);
    CHECK_INT(c.retries, 1);
    CHECK_INT(c.backoff_ms, 250);
    CHECK_INT(c.timeout_ms, 3000);
    CHECK_INT(c.queue_size, 16);
    watchdog_conf_free(&c);
    /* an empty file: nothing configured, delivery defaults */
    st = (struct api_status){0};
    REQUIRE(watchdog_conf_parse("# nothing\n", 10, &c, &st) == 0);
    CHECK_INT(c.nwebhooks, 0);
    CHECK_INT(c.retries, 3);
    CHECK_INT(c.queue_size, 1024);
    watchdog_conf_free(&c);
}

static void mistakes_name_their_field_and_line(void)
{
    const char *yaml =
        "webhooks:\n"                                           /* 1 */
        "  - {name: ops, url: \"http://x\"}\n"                  /* 2 */
        "  - {name: ops, url: \"ftp://x\", format: teams}\n"    /* 3 */
        "routes:\n"                                             /* 4 */
        "  - {webhooks: [nobody]}\n"                            /* 5 */
        "  - {webhooks: [ops], notify: [Finished]}\n"           /* 6 */
        "queues:\n"                                             /* 7 */
        "  - name: default\n"                                   /* 8 */
        "    capabilityPercent: {cpu: 150, example.com/x: 5}\n" /* 9 */
        "waste: {fraction: 2}\n"                                /* 10 */
        "pendingTimeout: soon\n"                                /* 11 */
        "colour: blue\n";                                       /* 12 */
    struct watchdog_conf c;
    struct api_status st = {0};
    CHECK(watchdog_conf_parse(yaml, strlen(yaml), &c, &st) != 0);
    CHECK_INT(st.code, 422);
    CHECK_CAUSE(&st, "webhooks[1].url", "FieldValueInvalid", 3, "http:// or https://");
    CHECK_CAUSE(&st, "webhooks[1].name", "FieldValueDuplicate", 3, "ops");
    CHECK_CAUSE(&st, "webhooks[1].format", "FieldValueNotSupported", 3, "slack");
    CHECK_CAUSE(&st, "routes[0].webhooks[0]", "FieldValueNotFound", 5, "no such webhook");
    CHECK(cause_on(&st, "routes[1].webhooks[0]") == NULL); /* ops is known */
    CHECK_CAUSE(&st, "routes[1].notify[0]", "FieldValueNotSupported", 6, "Finished");
    CHECK_CAUSE(&st, "queues[0].capabilityPercent.cpu", "FieldValueInvalid", 9, "at most 100");
    CHECK_CAUSE(&st, "queues[0].capabilityPercent.example.com/x", "FieldValueNotSupported", 9, "not a resource");
    CHECK_CAUSE(&st, "waste.fraction", "FieldValueInvalid", 10, "below 1");
    CHECK(cause_on(&st, "pendingTimeout") != NULL);
    CHECK(cause_on(&st, "colour") != NULL);
    CHECK_CONTAINS(st.message, "line 3");
    CHECK_INT(c.nwebhooks, 0); /* nothing kept */
    st = (struct api_status){0};
    CHECK(watchdog_conf_parse("- a\n", 4, &c, &st) != 0);
    CHECK_INT(st.code, 400);
}

static void notices_are_routed(void)
{
    struct watchdog_conf c;
    struct api_status st = {0};
    REQUIRE(watchdog_conf_parse(example, strlen(example), &c, &st) == 0);
    int out[WATCHDOG_TARGETS_MAX], unknown;
    /* every job: raw; team-a's failures also team; alice's also ops */
    CHECK_INT(watchdog_targets(&c, NOTICE_COMPLETED, "other", "bob", NULL, out, WATCHDOG_TARGETS_MAX, &unknown), 1);
    CHECK_INT(out[0], 2);
    CHECK_INT(watchdog_targets(&c, NOTICE_COMPLETED, "team-a", "bob", NULL, out, WATCHDOG_TARGETS_MAX, &unknown), 1);
    CHECK_INT(watchdog_targets(&c, NOTICE_FAILED, "team-a", "bob", NULL, out, WATCHDOG_TARGETS_MAX, &unknown), 2);
    CHECK_INT(out[0], 2); /* raw once, though two routes name it */
    CHECK_INT(out[1], 1);
    CHECK_INT(watchdog_targets(&c, NOTICE_FAILED, "team-a", "alice", NULL, out, WATCHDOG_TARGETS_MAX, &unknown), 3);
    /* the job's annotation replaces the routes */
    CHECK_INT(watchdog_targets(&c, NOTICE_FAILED, "team-a", "alice", "none", out, WATCHDOG_TARGETS_MAX, &unknown), 0);
    CHECK_INT(watchdog_targets(&c, NOTICE_FAILED, "x", "y", " ops , ghost,ops", out, WATCHDOG_TARGETS_MAX, &unknown),
              1);
    CHECK_INT(out[0], 0);
    CHECK_INT(unknown, 1);
    watchdog_conf_free(&c);
}

static const struct notice failed = {
    .kind = NOTICE_FAILED,
    .ns = "team-a",
    .job = "train",
    .uid = "u-1",
    .user = "alice",
    .queue = "default",
    .phase = "Failed",
    .reason = "PodFailed",
    .message = "say \"why\"",
    .pod = "train-w-0",
    .exit_code = 3,
    .has_exit_code = true,
    .created_ms = 1700000000000,
    .started_ms = 1700000001000,
    .finished_ms = 1700000002000,
    .time_ms = 1700000002000,
};

static void bodies_in_each_format(void)
{
    char *slack = notice_body(&failed, NOTIFY_SLACK), *lark = notice_body(&failed, NOTIFY_LARK);
    char *plain = notice_body(&failed, NOTIFY_JSON);
    REQUIRE(slack && lark && plain);
    json_t *s = json_loads(slack, 0, NULL), *l = json_loads(lark, 0, NULL), *p = json_loads(plain, 0, NULL);
    REQUIRE(s && l && p);
    CHECK_INT(json_object_size(s), 1);
    CHECK_STR(json_string_value(json_object_get(s, "text")),
              "[Caldera] Job team-a/train Failed (PodFailed, exit code 3, pod train-w-0): say \"why\"");
    CHECK_STR(json_string_value(json_object_get(l, "msg_type")), "text");
    CHECK_STR(json_string_value(json_object_get(json_object_get(l, "content"), "text")),
              json_string_value(json_object_get(s, "text")));
    CHECK_STR(json_string_value(json_object_get(p, "event")), "Failed");
    CHECK_STR(json_string_value(json_object_get(p, "namespace")), "team-a");
    CHECK_STR(json_string_value(json_object_get(p, "job")), "train");
    CHECK_STR(json_string_value(json_object_get(p, "user")), "alice");
    CHECK_STR(json_string_value(json_object_get(p, "phase")), "Failed");
    CHECK_STR(json_string_value(json_object_get(p, "reason")), "PodFailed");
    CHECK_INT(json_integer_value(json_object_get(p, "exitCode")), 3);
    CHECK_STR(json_string_value(json_object_get(p, "creationTimestamp")), "2023-11-14T22:13:20Z");
    CHECK_STR(json_string_value(json_object_get(p, "completionTime")), "2023-11-14T22:13:22Z");
    json_decref(s);
    json_decref(l);
    json_decref(p);
    free(slack);
    free(lark);
    free(plain);
    struct notice done = failed;
    done.kind = NOTICE_COMPLETED;
    done.has_exit_code = false;
    done.finished_ms = 0;
    plain = notice_body(&done, NOTIFY_JSON);
    p = json_loads(plain, 0, NULL);
    CHECK(json_is_null(json_object_get(p, "exitCode")));
    CHECK(json_is_null(json_object_get(p, "completionTime")));
    json_decref(p);
    free(plain);
}

static void percentages_of_the_cluster(void)
{
    CHECK_INT(watchdog_percent_of(RES_CPU, 50, 8000), 4000);
    CHECK_INT(watchdog_percent_of(RES_CPU, 33.3, 1000), 333);                   /* rounded down */
    CHECK_INT(watchdog_percent_of(RES_GPU, 25, 3), 1);                          /* 0.75: one device, never 0 */
    CHECK_INT(watchdog_percent_of(RES_GPU, 25, 0), 0);                          /* none to give */
    CHECK_INT(watchdog_percent_of(RES_MEMORY, 100, 1LL << 40), 1LL << 40);      /* all of it */
    CHECK_INT(watchdog_percent_of(RES_MEMORY, 50, (1LL << 35) + 1), 1LL << 34); /* bytes stay whole */
    struct watchdog_queue q = {0};
    q.has[RES_CPU] = q.has[RES_GPU] = true;
    q.percent[RES_CPU] = 50;
    q.percent[RES_GPU] = 50;
    struct resvec total = {0}, cap;
    total.v[RES_CPU] = 16000;
    total.v[RES_MEMORY] = 64LL << 30;
    total.v[RES_GPU] = 4;
    watchdog_capability(&q, &total, &cap);
    CHECK_INT(cap.v[RES_CPU], 8000);
    CHECK_INT(cap.v[RES_GPU], 2);
    CHECK_INT(cap.v[RES_MEMORY], 0); /* not named: not limited */
    total.v[RES_GPU] = 2;            /* a GPU fell off the bus */
    watchdog_capability(&q, &total, &cap);
    CHECK_INT(cap.v[RES_GPU], 1);
}

TEST_MAIN(TEST_CASE(example_reads), TEST_CASE(mistakes_name_their_field_and_line), TEST_CASE(notices_are_routed),
          TEST_CASE(bodies_in_each_format), TEST_CASE(percentages_of_the_cluster))
