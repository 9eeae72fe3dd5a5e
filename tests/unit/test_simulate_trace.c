/* Unit tests of bin/simulate's pure pieces (durations, event order, document kinds, blanking,
 * annotations, the error line); its sources are not in the library, so they are compiled in here. */

#include "common/duration.h"
#include "tools/simulate/event_heap.h"
#include "tools/simulate/trace_internal.h"

#include "tests/lib/test.h"

static int64_t ms_of(const char *text)
{
    int64_t ms = -1;
    const char *why = NULL;
    if (duration_parse(text, &ms, &why) != 0)
        return -1;
    return ms;
}

static const char *why_of(const char *text)
{
    int64_t ms;
    const char *why = NULL;
    return duration_parse(text, &ms, &why) == 0 ? "(accepted)" : why;
}

static void test_duration_text(void)
{
    CHECK_INT(ms_of("90"), 90000);
    CHECK_INT(ms_of("1.5"), 1500);
    CHECK_INT(ms_of("0"), 0);
    CHECK_INT(ms_of("0.001"), 1);
    CHECK_INT(ms_of("+2"), 2000);
    CHECK_INT(ms_of("90s"), 90000);
    CHECK_INT(ms_of("5m"), 300000);
    CHECK_INT(ms_of("1h30m"), 5400000);
    CHECK_INT(ms_of("30m1h"), 5400000);
    CHECK_INT(ms_of("1.5h"), 5400000);
    CHECK_INT(ms_of("250ms"), 250);
    CHECK_INT(ms_of("1m0.5s"), 60500);
    CHECK_INT(ms_of(".5s"), 500);
    CHECK_INT(ms_of("0.1s"), 100);
    CHECK_INT(ms_of("0.1000000000000s"), 100);
    CHECK_INT(ms_of("720h"), 720LL * 3600 * 1000);

    CHECK_STR(why_of(""), "must not be empty");
    CHECK_STR(why_of("-5s"), "must not be negative");
    CHECK_STR(why_of("5x"), "must use the units h, m, s or ms");
    CHECK_STR(why_of("5d"), "must use the units h, m, s or ms");
    CHECK_STR(why_of("5us"), "must use the units h, m, s or ms");
    CHECK_STR(why_of("1.0005s"), "must be a whole number of milliseconds");
    CHECK_STR(why_of("0.0001"), "must be a whole number of milliseconds");
    CHECK_STR(why_of("0.1000000001s"), "must be a whole number of milliseconds");
    CHECK_STR(why_of("s"), "must be a number of seconds or a duration such as 90s, 5m or 1h30m");
    CHECK_STR(why_of("."), "must be a number of seconds or a duration such as 90s, 5m or 1h30m");
    CHECK_STR(why_of("1..2s"), "must be a number of seconds or a duration such as 90s, 5m or 1h30m");
    CHECK_STR(why_of("1h 30m"), "must be a number of seconds or a duration such as 90s, 5m or 1h30m");
    CHECK_STR(why_of("1000000h"), "must be at most 100 years");
    CHECK_STR(why_of("99999999999999999999"), "must be at most 100 years");
}

static void test_duration_as_text(void)
{
    char buf[32];
    CHECK_STR(duration_text(0, buf, sizeof buf), "0s");
    CHECK_STR(duration_text(60000, buf, sizeof buf), "60s");
    CHECK_STR(duration_text(62500, buf, sizeof buf), "62.5s");
    CHECK_STR(duration_text(1230, buf, sizeof buf), "1.23s");
    CHECK_STR(duration_text(1, buf, sizeof buf), "0.001s");
}

static void check_json_duration(const char *json, int64_t want_ms, const char *want_why, int line)
{
    json_t *v = json_loads(json, JSON_DECODE_ANY, NULL);
    int64_t ms = -1;
    const char *why = "(accepted)";
    int rc = v ? duration_from_json(v, &ms, &why) : -2;
    json_decref(v);
    if (want_why ? rc == 0 || strcmp(why, want_why) != 0 : rc != 0 || ms != want_ms)
        test_fail(__FILE__, line, "%s: rc %d, %lld ms, \"%s\"", json, rc, (long long)ms, rc == 0 ? "" : why);
}
#define CHECK_JSON_DURATION(json, ms, why) check_json_duration(json, ms, why, __LINE__)

static void test_duration_json(void)
{
    CHECK_JSON_DURATION("90", 90000, NULL);
    CHECK_JSON_DURATION("1.5", 1500, NULL);
    CHECK_JSON_DURATION("0.25", 250, NULL);
    CHECK_JSON_DURATION("\"5m\"", 300000, NULL);
    CHECK_JSON_DURATION("\"90\"", 90000, NULL);
    CHECK_JSON_DURATION("-1", 0, "must not be negative");
    CHECK_JSON_DURATION("-0.5", 0, "must not be negative");
    CHECK_JSON_DURATION("0.0001", 0, "must be a whole number of milliseconds");
    CHECK_JSON_DURATION("1e30", 0, "must be at most 100 years");
    CHECK_JSON_DURATION("true", 0, "must be a number of seconds or a duration such as 90s, 5m or 1h30m");
    CHECK_JSON_DURATION("null", 0, "must be a number of seconds or a duration such as 90s, 5m or 1h30m");
    CHECK_JSON_DURATION("{}", 0, "must be a number of seconds or a duration such as 90s, 5m or 1h30m");
}

static void test_heap_order_at_one_instant(void)
{
    struct event_heap h = {0};
    struct sim_event ev;
    CHECK(event_heap_peek(&h) == NULL);
    CHECK(!event_heap_pop(&h, &ev));
    /* Pushed in the reverse of the order they must come out in. */
    REQUIRE(event_heap_push(&h, 5000, SIM_EVENT_SAMPLE, 0, 0) == 0);
    REQUIRE(event_heap_push(&h, 5000, SIM_EVENT_CYCLE, 0, 0) == 0);
    REQUIRE(event_heap_push(&h, 5000, SIM_EVENT_JOB_ARRIVAL, 7, 0) == 0);
    REQUIRE(event_heap_push(&h, 5000, SIM_EVENT_JOB_ARRIVAL, 3, 0) == 0);
    REQUIRE(event_heap_push(&h, 5000, SIM_EVENT_QUEUE_ARRIVAL, 1, 0) == 0);
    REQUIRE(event_heap_push(&h, 5000, SIM_EVENT_OBJECT_ARRIVAL, 2, 0) == 0);
    REQUIRE(event_heap_push(&h, 5000, SIM_EVENT_EXIT, 9, 4) == 0);
    REQUIRE(event_heap_push(&h, 4999, SIM_EVENT_SAMPLE, 0, 0) == 0);
    static const struct {
        int64_t t;
        enum sim_event_kind kind;
        int32_t ref;
    } want[] = {
        {4999, SIM_EVENT_SAMPLE, 0},        {5000, SIM_EVENT_EXIT, 9},        {5000, SIM_EVENT_OBJECT_ARRIVAL, 2},
        {5000, SIM_EVENT_QUEUE_ARRIVAL, 1}, {5000, SIM_EVENT_JOB_ARRIVAL, 7}, {5000, SIM_EVENT_JOB_ARRIVAL, 3},
        {5000, SIM_EVENT_CYCLE, 0},         {5000, SIM_EVENT_SAMPLE, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        REQUIRE(event_heap_peek(&h) != NULL);
        CHECK_INT(event_heap_peek(&h)->time_ms, want[i].t);
        REQUIRE(event_heap_pop(&h, &ev));
        CHECK_INT(ev.time_ms, want[i].t);
        CHECK_INT(ev.kind, want[i].kind);
        CHECK_INT(ev.ref, want[i].ref);
    }
    CHECK(!event_heap_pop(&h, &ev));
    event_heap_free(&h);
}

static void test_heap_many(void)
{
    struct event_heap h = {0};
    uint32_t x = 12345;
    for (int i = 0; i < 5000; i++) {
        x = x * 1103515245u + 12345u;
        REQUIRE(event_heap_push(&h, (x >> 8) % 200, (enum sim_event_kind)((x >> 4) % 6), i, (uint32_t)i) == 0);
    }
    struct sim_event prev, ev;
    REQUIRE(event_heap_pop(&h, &prev));
    int popped = 1;
    while (event_heap_pop(&h, &ev)) {
        bool same_kind_later = prev.kind == ev.kind && prev.seq < ev.seq;
        bool ordered = prev.time_ms < ev.time_ms ||
                       (prev.time_ms == ev.time_ms && (prev.kind < ev.kind || same_kind_later));
        if (!ordered) {
            test_fail(__FILE__, __LINE__, "event %d out of order", popped);
            break;
        }
        CHECK_INT(ev.gen, ev.ref); /* the payload travels with its event */
        prev = ev;
        popped++;
    }
    CHECK_INT(popped, 5000);
    event_heap_free(&h);
}

static enum trace_doc_kind classify(const char *json)
{
    json_t *root = json_loads(json, 0, NULL);
    enum trace_doc_kind k = trace_classify(root);
    json_decref(root);
    return k;
}

static void test_classify(void)
{
    CHECK_INT(classify("{\"apiVersion\":\"v1\",\"kind\":\"Node\"}"), TRACE_DOC_NODE);
    CHECK_INT(classify("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[]}"), TRACE_DOC_NODE_LIST);
    CHECK_INT(classify("{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"Queue\"}"), TRACE_DOC_QUEUE);
    CHECK_INT(classify("{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\"}"), TRACE_DOC_JOB);
    CHECK_INT(classify("{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\"}"),
              TRACE_DOC_PRIORITY_CLASS);
    CHECK_INT(classify("{\"apiVersion\":\"v1\",\"kind\":\"ResourceQuota\"}"), TRACE_DOC_RESOURCE_QUOTA);
    CHECK_INT(classify("{\"apiVersion\":\"caldera.io/v1\",\"kind\":\"Simulation\"}"), TRACE_DOC_SIMULATION);
    /* The pair decides: Kubernetes' batch/v1 Job is not a Volcano Job. */
    CHECK_INT(classify("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\"}"), TRACE_DOC_UNKNOWN);
    CHECK_INT(classify("{\"apiVersion\":\"v1\",\"kind\":\"Queue\"}"), TRACE_DOC_UNKNOWN);
    CHECK_INT(classify("{\"kind\":\"Node\"}"), TRACE_DOC_UNKNOWN);
    CHECK_INT(classify("{\"apiVersion\":\"v1\"}"), TRACE_DOC_UNKNOWN);
    CHECK_INT(classify("{\"apiVersion\":\"v1\",\"kind\":7}"), TRACE_DOC_UNKNOWN);
    CHECK_INT(classify("[1, 2]"), TRACE_DOC_UNKNOWN);
    CHECK_STR(trace_doc_kind_name(TRACE_DOC_QUEUE), "Queue");
    CHECK_STR(trace_doc_kind_name(TRACE_DOC_SIMULATION), "Simulation");
    CHECK_STR(trace_doc_kind_name(TRACE_DOC_UNKNOWN), "document");
}

static const char *const four_docs =
    "# a comment before everything\n" /* line 1 */
    "a: 1\n"                          /* 2: document 1, no marker */
    "---\n"                           /* 3: document 2 */
    "b: 2\n"                          /* 4 */
    "c:\n"                            /* 5 */
    "  d: 3\n"                        /* 6 */
    "...\n"                           /* 7: its end marker */
    "--- # three\n"                   /* 8: document 3 */
    "e: 5\n"                          /* 9 */
    "---\n"                           /* 10: an empty document, skipped */
    "--- {f: 6}";                     /* 11: document 4, on its marker's line, no newline at the end */

static int member_line(const struct intake_doc *doc, const char *key)
{
    struct intake_pos pos = {0, 0};
    return intake_member_pos(doc, doc->root, key, &pos) ? pos.line : -1;
}

static void test_keep_documents(void)
{
    struct intake in, kept;
    struct api_status st = {0};
    REQUIRE(intake_parse(four_docs, strlen(four_docs), INTAKE_YAML, &in, &st) == 0);
    REQUIRE(in.ndocs == 4);
    CHECK_INT(trace_doc_at_line(four_docs, &in, 1), 0);
    CHECK_INT(trace_doc_at_line(four_docs, &in, 2), 1);
    CHECK_INT(trace_doc_at_line(four_docs, &in, 5), 2);
    CHECK_INT(trace_doc_at_line(four_docs, &in, 9), 3);
    CHECK_INT(trace_doc_at_line(four_docs, &in, 11), 4);
    CHECK_INT(trace_doc_at_line(four_docs, &in, 99), 4);

    /* Keeping 1 and 3: document 2 becomes "---" and newlines, document 4 a bare "---". */
    const bool keep[] = {true, false, true, false};
    size_t len = 0;
    char *text = trace_keep_documents(four_docs, strlen(four_docs), &in, keep, &len);
    REQUIRE(text != NULL);
    CHECK_INT(len, strlen(text));
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    CHECK_INT(lines, 10);
    REQUIRE(intake_parse(text, len, INTAKE_YAML, &kept, &st) == 0);
    CHECK_INT(kept.ndocs, 2);
    if (kept.ndocs == 2) {
        CHECK_INT(member_line(&kept.docs[0], "a"), 2);
        CHECK_INT(member_line(&kept.docs[1], "e"), 9);
        CHECK(json_object_get(kept.docs[1].root, "b") == NULL);
    }
    intake_free(&kept);
    free(text);

    /* Keeping only the last one, which shares its line with its marker. */
    const bool last[] = {false, false, false, true};
    text = trace_keep_documents(four_docs, strlen(four_docs), &in, last, &len);
    REQUIRE(text != NULL);
    REQUIRE(intake_parse(text, len, INTAKE_YAML, &kept, &st) == 0);
    CHECK_INT(kept.ndocs, 1);
    if (kept.ndocs == 1)
        CHECK_INT(member_line(&kept.docs[0], "f"), 11);
    intake_free(&kept);
    free(text);
    intake_free(&in);
}

static int read_annotations(const char *yaml, bool job, struct trace_annotations *a, struct api_status *st,
                            char **rewritten)
{
    struct intake in;
    memset(st, 0, sizeof *st);
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, st) != 0)
        return -1;
    bool ok = trace_read_annotations(&in.docs[0], job, a, st);
    if (a->ns)
        a->ns = "(set)"; /* it pointed into the document */
    *rewritten = json_dumps(json_object_get(in.docs[0].root, "metadata"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    intake_free(&in);
    return ok ? 0 : -1;
}

static void test_annotations(void)
{
    struct trace_annotations a;
    struct api_status st;
    char *meta;
    REQUIRE(read_annotations("metadata:\n"
                             "  name: j\n"
                             "  annotations:\n"
                             "    caldera.io/arrival: 90\n"
                             "    caldera.io/duration: 1h30m\n"
                             "    caldera.io/exit-code: 3\n"
                             "    caldera.io/namespace: team-a\n"
                             "    other.io/kept: x\n",
                             true, &a, &st, &meta) == 0);
    CHECK_INT(a.arrival_ms, 90000);
    CHECK(a.has_duration);
    CHECK_INT(a.duration_ms, 5400000);
    CHECK_INT(a.exit_code, 3);
    CHECK_STR(a.ns, "(set)");
    /* Numbers became strings, as annotations are for the adapters. */
    CHECK_CONTAINS(meta, "\"caldera.io/arrival\":\"90\"");
    CHECK_CONTAINS(meta, "\"caldera.io/exit-code\":\"3\"");
    free(meta);

    REQUIRE(read_annotations("metadata:\n  name: j\n", true, &a, &st, &meta) != 0);
    CHECK_INT(st.ncauses, 1);
    CHECK_STR(st.causes[0].field, "metadata.annotations[caldera.io/duration]");
    CHECK_CONTAINS(st.causes[0].message, "Required value");
    CHECK_INT(st.causes[0].line, 2);
    free(meta);

    REQUIRE(read_annotations("metadata:\n"
                             "  annotations:\n"
                             "    caldera.io/duration: 5\n"
                             "    caldera.io/exit-code: 256\n"
                             "    caldera.io/arival: 1\n"
                             "    caldera.io/namespace: Team_A\n",
                             true, &a, &st, &meta) != 0);
    CHECK_INT(st.ncauses, 3);
    CHECK_STR(st.causes[0].field, "metadata.annotations[caldera.io/exit-code]");
    CHECK_CONTAINS(st.causes[0].message, "between 0 and 255");
    CHECK_INT(st.causes[0].line, 4);
    CHECK_STR(st.causes[1].field, "metadata.annotations[caldera.io/arival]");
    CHECK_CONTAINS(st.causes[1].message, "Unsupported value: \"caldera.io/arival\"");
    CHECK_STR(st.causes[2].field, "metadata.annotations[caldera.io/namespace]");
    free(meta);

    /* A queue takes only the arrival and needs no duration. */
    REQUIRE(read_annotations("metadata:\n  annotations:\n    caldera.io/arrival: 1m\n", false, &a, &st, &meta) == 0);
    CHECK_INT(a.arrival_ms, 60000);
    free(meta);
    REQUIRE(read_annotations("metadata:\n  annotations:\n    caldera.io/duration: 1m\n", false, &a, &st, &meta) != 0);
    CHECK_CONTAINS(st.causes[0].message, "caldera.io/arrival on a Queue");
    free(meta);
}

static void test_error_line(void)
{
    struct api_status st = {0};
    char err[1024];
    api_add_cause(&st, "spec.queue", "FieldValueNotFound", 16, 10, "Not found: \"nope\"");
    api_add_cause(&st, "metadata.name", "FieldValueRequired", 0, 0, "Required value");
    api_fail_invalid(&st, "Job.batch.volcano.sh", "j1");
    trace_format_error(err, sizeof err, "t.yaml", 2, "Job", "j1", &st);
    CHECK_STR(err,
              "t.yaml: document 2 (Job j1): spec.queue: Not found: \"nope\" (line 16, column 10); "
              "metadata.name: Required value");

    struct api_status plain = {0};
    api_fail(&plain, 400, "BadRequest", "yaml: line 2, column 1: did not find expected node content");
    trace_format_error(err, sizeof err, "t.yaml", 0, "", "", &plain);
    CHECK_STR(err, "t.yaml: yaml: line 2, column 1: did not find expected node content");
    trace_format_error(err, sizeof err, "t.yaml", 3, "Simulation", "", &plain);
    CHECK_STR(err, "t.yaml: document 3 (Simulation): yaml: line 2, column 1: did not find expected node content");
}

TEST_MAIN(TEST_CASE(test_duration_text), TEST_CASE(test_duration_as_text), TEST_CASE(test_duration_json),
          TEST_CASE(test_heap_order_at_one_instant), TEST_CASE(test_heap_many), TEST_CASE(test_classify),
          TEST_CASE(test_keep_documents), TEST_CASE(test_annotations), TEST_CASE(test_error_line))
