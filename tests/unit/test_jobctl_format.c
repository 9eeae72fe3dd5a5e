/* Unit tests of jobctl's pure pieces: ages, tables, views (narrow, wide), Status errors, argument
 * parsing, YAML output (read back by the project's YAML reader), the Job `run` builds and the
 * settings file. jobctl's sources are not in the project library: they come from libtools. */
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "common/clock.h"
#include "tools/jobctl/args.h"
#include "tools/jobctl/config.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/run_job.h"
#include "tools/jobctl/status.h"
#include "tools/jobctl/table.h"
#include "tools/jobctl/views.h"
#include "tools/jobctl/yaml_out.h"

#include "tests/lib/test.h"

#define SEC 1000LL
#define MIN (60 * SEC)
#define HOUR (60 * MIN)
#define DAY (24 * HOUR)

static const char *fmt_age(int64_t ms)
{
    static char buf[32];
    return human_age(ms, buf, sizeof buf);
}

static void test_human_age(void)
{
    CHECK_STR(fmt_age(0), "0s");
    CHECK_STR(fmt_age(45 * SEC), "45s");
    CHECK_STR(fmt_age(-1500), "0s");
    CHECK_STR(fmt_age(-3 * SEC), "<invalid>");
    CHECK_STR(fmt_age(119 * SEC), "119s");
    CHECK_STR(fmt_age(2 * MIN + 5 * SEC), "2m5s");
    CHECK_STR(fmt_age(3 * MIN), "3m");
    CHECK_STR(fmt_age(12 * MIN + 30 * SEC), "12m");
    CHECK_STR(fmt_age(179 * MIN), "179m");
    CHECK_STR(fmt_age(3 * HOUR), "3h");
    CHECK_STR(fmt_age(3 * HOUR + 20 * MIN), "3h20m");
    CHECK_STR(fmt_age(12 * HOUR + 5 * MIN), "12h");
    CHECK_STR(fmt_age(2 * DAY), "2d");
    CHECK_STR(fmt_age(2 * DAY + 5 * HOUR), "2d5h");
    CHECK_STR(fmt_age(10 * DAY + 5 * HOUR), "10d");
    CHECK_STR(fmt_age(800 * DAY), "2y70d");
    CHECK_STR(fmt_age(3000 * DAY), "8y");
}

static void test_age_since(void)
{
    char buf[32];
    int64_t then;
    REQUIRE(rfc3339_parse("2026-11-22T08:15:00Z", &then) == 0);
    json_t *ts = json_string("2026-11-22T08:15:00Z");
    CHECK_STR(age_since(ts, then + 45 * SEC, buf, sizeof buf), "45s");
    CHECK_STR(age_since(ts, then + 3 * HOUR, buf, sizeof buf), "3h");
    json_decref(ts);
    ts = json_string("yesterday");
    CHECK_STR(age_since(ts, then, buf, sizeof buf), "<unknown>");
    CHECK_STR(age_since(NULL, then, buf, sizeof buf), "<unknown>");
    json_decref(ts);
}

static void test_json_at_and_cells(void)
{
    json_t *doc = json_loads("{\"a\":{\"b\":[{\"c\":7},{\"c\":\"x\"}],\"t\":true,\"e\":\"\",\"n\":null,\"r\":0.5}}", 0,
                             NULL);
    char buf[CELL_LEN];
    REQUIRE(doc);
    CHECK_STR(json_cell(json_at(doc, "a.b.0.c"), buf, sizeof buf), "7");
    CHECK_STR(json_cell(json_at(doc, "a.b.1.c"), buf, sizeof buf), "x");
    CHECK_STR(json_cell(json_at(doc, "a.t"), buf, sizeof buf), "true");
    CHECK_STR(json_cell(json_at(doc, "a.e"), buf, sizeof buf), "<none>");
    CHECK_STR(json_cell(json_at(doc, "a.n"), buf, sizeof buf), "<none>");
    CHECK_STR(json_cell(json_at(doc, "a.r"), buf, sizeof buf), "0.5");
    CHECK_STR(json_cell(json_at(doc, "a.b"), buf, sizeof buf), "<array>");
    CHECK_STR(json_cell(json_at(doc, "a.b.2.c"), buf, sizeof buf), "<none>");
    CHECK_STR(json_cell(json_at(doc, "a.missing.deeper"), buf, sizeof buf), "<none>");
    CHECK_STR(json_count(json_at(doc, "a.missing"), buf, sizeof buf), "0");
    CHECK_STR(json_count(json_at(doc, "a.b.0.c"), buf, sizeof buf), "7");
    json_decref(doc);
}

static void test_url_escape(void)
{
    struct sbuf b = {0};
    url_escape(&b, "volcano.sh/job-name=a b~_");
    CHECK_STR(sbuf_str(&b), "volcano.sh%2Fjob-name%3Da%20b~_");
    sbuf_free(&b);
}

static void test_slice_keeping_lines(void)
{
    const char *file = "# c\nkind: Job\n---\nkind: Queue\nx: 1\n";
    size_t start = strlen("# c\nkind: Job\n"), len;
    char *body = slice_keeping_lines(file, start, strlen(file), &len);
    CHECK_STR(body, "\n\n---\nkind: Queue\nx: 1\n");
    CHECK_INT(len, strlen(body));
    free(body);
    body = slice_keeping_lines(file, 0, 4, &len);
    CHECK_STR(body, "# c\n");
    free(body);
}

static void test_table_render(void)
{
    static const char *const headers[] = {"NAME", "PHASE", "AGE"};
    struct table t;
    table_init(&t, 3, headers);
    table_add(&t, (const char *const[]){"train-resnet", "Running", "45s"});
    table_add(&t, (const char *const[]){"x", NULL, "2d"});
    table_add(&t, (const char *const[]){"multi\nline", "", "3h"});
    CHECK_INT(table_rows(&t), 3);
    char *text = table_render(&t);
    CHECK_STR(text,
              "NAME           PHASE     AGE\n"
              "train-resnet   Running   45s\n"
              "x              <none>    2d\n"
              "multi line     <none>    3h\n");
    free(text);
    table_free(&t);
}

static void test_table_utf8_width(void)
{
    static const char *const headers[] = {"A", "B"};
    struct table t;
    table_init(&t, 2, headers);
    table_add(&t, (const char *const[]){"d\xc3\xa9j\xc3\xa0", "1"});
    table_add(&t, (const char *const[]){"abcd", "2"});
    char *text = table_render(&t);
    CHECK_STR(text, "A      B\nd\xc3\xa9j\xc3\xa0   1\nabcd   2\n");
    free(text);
    table_free(&t);
}

static void test_status_already_exists(void)
{
    const char *body =
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
        "\"message\":\"jobs.batch.volcano.sh \\\"x\\\" already exists\",\"reason\":\"AlreadyExists\","
        "\"details\":{\"name\":\"x\",\"group\":\"batch.volcano.sh\",\"kind\":\"jobs\"},\"code\":409}";
    char *text = status_describe(409, body);
    CHECK_STR(text, "jobctl: jobs.batch.volcano.sh \"x\" already exists (409 AlreadyExists)\n");
    free(text);
}

static void test_status_causes_not_repeated(void)
{
    const char *body =
        "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"Invalid\",\"code\":422,"
        "\"message\":\"Job.batch.volcano.sh \\\"x\\\" is invalid: [spec.tasks[0].replicas: Required value "
        "(line 9, column 7)]\",\"details\":{\"causes\":["
        "{\"reason\":\"FieldValueRequired\",\"message\":\"Required value\",\"field\":\"spec.tasks[0].replicas\"},"
        "{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: \\\"-1\\\"\",\"field\":\"spec.minAvailable\","
        "\"line\":4,\"column\":17}]}}";
    char *text = status_describe(422, body);
    CHECK_STR(text,
              "jobctl: Job.batch.volcano.sh \"x\" is invalid: [spec.tasks[0].replicas: Required value "
              "(line 9, column 7)] (422 Invalid)\n"
              "  spec.minAvailable: Invalid value: \"-1\" (line 4, column 17)\n");
    free(text);
}

static void test_status_odd_answers(void)
{
    char *text = status_describe(405,
                                 "{\"kind\":\"Status\",\"code\":405,\"reason\":\"MethodNotAllowed\","
                                 "\"message\":\"line one\\nline two\"}");
    CHECK_STR(text, "jobctl: line one line two (405 MethodNotAllowed)\n");
    free(text);
    text = status_describe(500, "{\"kind\":\"Status\"}");
    CHECK_STR(text, "jobctl: the request failed (500)\n");
    free(text);
    text = status_describe(502, "\n  <html>Bad gateway</html>\nmore");
    CHECK_STR(text, "jobctl: the server answered HTTP 502: <html>Bad gateway</html>\n");
    free(text);
    text = status_describe(404, "");
    CHECK_STR(text, "jobctl: the server answered HTTP 404\n");
    free(text);
}

/* Who you are and what you may do: one line each, saying which. */
static void test_status_unauthorized_and_forbidden(void)
{
    char *text = status_describe(401,
                                 "{\"kind\":\"Status\",\"code\":401,\"reason\":\"Unauthorized\","
                                 "\"message\":\"Unauthorized: the bearer token is not valid\"}");
    CHECK_STR(text,
              "jobctl: not authenticated: Unauthorized: the bearer token is not valid (401 Unauthorized); give "
              "a token with --token or $CALDERA_TOKEN\n");
    free(text);
    text = status_describe(403,
                           "{\"kind\":\"Status\",\"code\":403,\"reason\":\"Forbidden\",\"message\":"
                           "\"jobs.batch.volcano.sh \\\"x\\\" is forbidden: User \\\"bob\\\" cannot get resource\"}");
    CHECK_STR(text,
              "jobctl: not allowed: jobs.batch.volcano.sh \"x\" is forbidden: User \"bob\" cannot get resource "
              "(403 Forbidden)\n");
    free(text);
}

static int parse(struct jobctl_args *a, char *err, const char *const *line)
{
    int argc = 0;
    while (line[argc])
        argc++;
    return args_parse(argc, (char *const *)line, a, err, 200);
}

static void test_args_anywhere(void)
{
    struct jobctl_args a;
    char err[200] = "";
    const char *line[] = {"jobctl", "-nteam", "get", "train", "--server=http://h:1", "-o", "json", NULL};
    REQUIRE(parse(&a, err, line) == 0);
    CHECK_STR(a.ns, "team");
    CHECK_STR(a.server, "http://h:1");
    CHECK(a.json);
    CHECK_STR(a.command, "get");
    CHECK_INT(a.npos, 1);
    CHECK_STR(a.pos[0], "train");

    const char *line2[] = {"jobctl", "logs", "p-0", "--attempt", "3", "-p", "--namespace", "x", NULL};
    REQUIRE(parse(&a, err, line2) == 0);
    CHECK_INT(a.attempt, 3);
    CHECK(a.previous);
    CHECK_STR(a.ns, "x");
    CHECK(!a.tail && !a.timestamps && !a.limit_bytes);

    const char *line_logs[] = {"jobctl",  "logs", "p-0",           "--tail=5", "--timestamps",
                               "--since", "2m",   "--limit-bytes", "9",        NULL};
    REQUIRE(parse(&a, err, line_logs) == 0);
    CHECK_STR(a.tail, "5");
    CHECK(a.timestamps);
    CHECK_STR(a.since, "2m");
    CHECK_STR(a.limit_bytes, "9");

    const char *line3[] = {"jobctl", "submit", "-", "--", "-weird", NULL};
    REQUIRE(parse(&a, err, line3) == 0);
    CHECK_INT(a.npos, 2);
    CHECK_STR(a.pos[0], "-");
    CHECK_STR(a.pos[1], "-weird");
    CHECK(a.server == NULL && a.ns == NULL && a.attempt == -1);
}

static void test_args_debug_options(void)
{
    struct jobctl_args a;
    char err[200] = "";
    const char *line[] = {"jobctl",  "debug",   "--cpu",       "2",         "--memory=4Gi",
                          "--gpu",   "1",       "--companion", "jupyter",   "--companion=terminal",
                          "--image", "img:1",   "--for",       "8h",        "--name",
                          "mine",    "--queue", "q",           "--no-wait", NULL};
    REQUIRE(parse(&a, err, line) == 0);
    CHECK_STR(a.command, "debug");
    CHECK_INT(a.npos, 0);
    CHECK_STR(a.cpu, "2");
    CHECK_STR(a.memory, "4Gi");
    CHECK_STR(a.gpu, "1");
    CHECK_INT(a.ncompanions, 2);
    CHECK_STR(a.companions[0], "jupyter");
    CHECK_STR(a.companions[1], "terminal");
    CHECK_STR(a.image, "img:1");
    CHECK_STR(a.duration, "8h");
    CHECK_STR(a.name, "mine");
    CHECK_STR(a.queue, "q");
    CHECK(a.no_wait);
    CHECK(parse(&a, err, (const char *[]){"jobctl", "debug", "--no-wait=1", NULL}) == -1);
    CHECK_CONTAINS(err, "takes no value");
    const char *many[2 + 2 * (JOBCTL_MAX_COMPANIONS + 1) + 1] = {"jobctl", "debug"};
    for (int i = 0; i <= JOBCTL_MAX_COMPANIONS; i++) {
        many[2 + 2 * i] = "--companion";
        many[3 + 2 * i] = "x";
    }
    CHECK(parse(&a, err, many) == -1);
    CHECK_CONTAINS(err, "--companion");
}

static void test_args_errors(void)
{
    struct jobctl_args a;
    char err[200];
    CHECK(parse(&a, err, (const char *[]){"jobctl", "get", "--bogus", NULL}) == -1);
    CHECK_STR(err, "unknown option \"--bogus\"");
    CHECK(parse(&a, err, (const char *[]){"jobctl", "get", "-n", NULL}) == -1);
    CHECK_STR(err, "option \"-n\" needs a value");
    CHECK(parse(&a, err, (const char *[]){"jobctl", "-o", "xml", "get", NULL}) == -1);
    CHECK_CONTAINS(err, "unsupported output format \"xml\" (-o json, yaml, wide or name, or -o manifest for one job)");
    CHECK(parse(&a, err, (const char *[]){"jobctl", "logs", "p", "--attempt=x", NULL}) == -1);
    CHECK_CONTAINS(err, "--attempt");
    CHECK(parse(&a, err, (const char *[]){"jobctl", "logs", "--previous=1", NULL}) == -1);
    CHECK_CONTAINS(err, "takes no value");
}

static char *render_view(const struct view *v, const char *items_json, int64_t now)
{
    json_t *items = json_loads(items_json, 0, NULL);
    struct table t;
    view_table(&t, v, items, now);
    char *text = table_render(&t);
    table_free(&t);
    json_decref(items);
    return text;
}

static void test_view_jobs(void)
{
    int64_t then;
    REQUIRE(rfc3339_parse("2026-11-22T08:15:00Z", &then) == 0);
    char *text = render_view(&VIEW_JOBS,
                             "[{\"metadata\":{\"name\":\"train\",\"creationTimestamp\":\"2026-11-22T08:15:00Z\"},"
                             "\"spec\":{\"minAvailable\":4},\"status\":{\"state\":{\"phase\":\"Running\"},"
                             "\"running\":4,\"retryCount\":1}},"
                             "{\"metadata\":{\"name\":\"new\"},\"spec\":{\"minAvailable\":1}}]",
                             then + 12 * MIN);
    CHECK_STR(text,
              "NAME    PHASE     MIN   PENDING   RUNNING   SUCCEEDED   FAILED   RETRIES   AGE         REASON\n"
              "train   Running   4     0         4         0           0        1         12m         <none>\n"
              "new     <none>    1     0         0         0           0        0         <unknown>   <none>\n");
    free(text);
}

/* A Pending job's REASON is why it waits, cut in the narrow table and whole in the wide one. */
static void test_view_jobs_pending_reason_and_wide(void)
{
    const char *job =
        "{\"metadata\":{\"name\":\"big\"},\"spec\":{\"minAvailable\":1,\"queue\":\"q\"},"
        "\"status\":{\"state\":{\"phase\":\"Pending\",\"reason\":\"Unschedulable\","
        "\"message\":\"pod group is Pending: the cluster cannot hold the job's minimum: cpu 1000 "
        "needed, 2400m free\"},\"pending\":1,\"version\":2}}";
    char *text = render_view(&VIEW_JOBS, job, 0);
    CHECK_CONTAINS(text, "   pod group is Pending: the cluster cannot hold the job's mini...\n");
    free(text);
    REQUIRE(VIEW_JOBS.wide == &VIEW_JOBS_WIDE);
    text = render_view(&VIEW_JOBS_WIDE, job, 0);
    CHECK_STR(text,
              "NAME   PHASE     MIN   PENDING   RUNNING   SUCCEEDED   FAILED   RETRIES   QUEUE   VERSION   AGE    "
              "     REASON\n"
              "big    Pending   1     1         0         0           0        0         q       2         "
              "<unknown>   pod group is Pending: the cluster cannot hold the job's minimum: cpu 1000 needed, 2400m "
              "free\n");
    free(text);
    json_t *running = json_loads("{\"status\":{\"state\":{\"phase\":\"Running\",\"message\":\"x\"}}}", 0, NULL);
    CHECK_STR(job_reason(running), ""); /* a running job has nothing to explain */
    json_decref(running);
    text = render_view(&VIEW_PODS_WIDE,
                       "{\"metadata\":{\"name\":\"bad-t-0\"},\"spec\":{\"nodeName\":\"vm\"},\"status\":{"
                       "\"phase\":\"Failed\",\"podIP\":\"127.0.0.1\",\"containerStatuses\":[{\"restartCount\":2,"
                       "\"state\":{\"terminated\":{\"exitCode\":128,\"reason\":\"StartError\",\"message\":"
                       "\"exec: no such file\"}}}]}}",
                       0);
    CHECK_STR(text,
              "POD       NODE   PHASE    EXIT   REASON       RESTARTS   IP          STARTED   AGE         MESSAGE\n"
              "bad-t-0   vm     Failed   128    StartError   2          127.0.0.1   <none>    <unknown>   exec: no "
              "such file\n");
    free(text);
}

/* The YAML of a document reads back as the same document, keys in the same order. */
static void check_yaml_round_trip(const char *json)
{
    json_t *v = json_loads(json, 0, NULL);
    REQUIRE(v);
    char *yaml = yaml_from_json(v);
    REQUIRE(yaml);
    struct intake in;
    struct api_status st = {0};
    REQUIRE(intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) == 0);
    char *back = json_dumps(in.docs[0].root, JSON_COMPACT);
    char *orig = json_dumps(v, JSON_COMPACT);
    CHECK_STR(back, orig);
    free(back);
    free(orig);
    intake_free(&in);
    free(yaml);
    json_decref(v);
}

static void test_yaml_output(void)
{
    json_t *v = json_loads(
        "{\"kind\":\"Job\",\"metadata\":{\"name\":\"a\",\"uid\":\"5629785f-dd91\"},"
        "\"spec\":{\"tasks\":[{\"name\":\"t\",\"replicas\":2}],\"empty\":{}},\"on\":true}",
        0, NULL);
    char *yaml = yaml_from_json(v);
    CHECK_STR(yaml,
              "kind: Job\n"
              "metadata:\n"
              "  name: a\n"
              "  uid: 5629785f-dd91\n"
              "spec:\n"
              "  tasks:\n"
              "  - name: t\n"
              "    replicas: 2\n"
              "  empty: {}\n"
              "\"on\": true\n");
    free(yaml);
    json_decref(v);
    /* strings YAML would read as something else stay strings */
    check_yaml_round_trip(
        "{\"a\":\"true\",\"b\":\"1.5\",\"c\":\"0x1F\",\"d\":\"2026-01-01\",\"e\":\"\",\"f\":\"~\","
        "\"g\":\"null\",\"h\":\"yes\",\"i\":\"0755\",\"j\":\"1_000\",\"k\":\"12:30\",\"l\":\"-3\"}");
    /* and the rest keeps its type, order and text */
    check_yaml_round_trip(
        "{\"z\":1,\"y\":-2.5,\"x\":false,\"w\":null,\"v\":[\"a b\",\"line1\\nline2\",\"#c\","
        "\"k: v\",\"- d\",\"\\u00e9t\\u00e9\"],\"u\":{\"n\":[[1,2],[]]}}");
}

static void test_args_new_options(void)
{
    struct jobctl_args a;
    char err[200] = "";
    REQUIRE(parse(&a, err, (const char *[]){"jobctl", "get", "-o", "yaml", NULL}) == 0);
    CHECK(a.json && a.yaml && !a.wide);
    REQUIRE(parse(&a, err, (const char *[]){"jobctl", "get", "-o", "yaml", "-o", "wide", NULL}) == 0);
    CHECK(!a.json && !a.yaml && a.wide); /* the last -o wins */
    REQUIRE(parse(&a, err, (const char *[]){"jobctl", "get", "-oname", NULL}) == 0);
    CHECK(a.names && !a.json);
    REQUIRE(parse(&a, err, (const char *[]){"jobctl", "logs", "-f", "p-0", NULL}) == 0);
    CHECK(a.follow);
    const char *run[] = {
        "jobctl", "run",    "--name", "n",    "-e", "A=1", "--env=B=2", "--per-day", "2026-01-01..2026-01-02",
        "--",     "python", "x.py",   "--lr", "1",  "-n",  "5",         "a",         "b",
        "c",      "d",      "e",      NULL};
    REQUIRE(parse(&a, err, run) == 0);
    CHECK_STR(a.command, "run");
    CHECK_INT(a.nenv, 2);
    CHECK_STR(a.env[1], "B=2");
    CHECK(a.has_rest);
    CHECK_INT(a.nrest, 11); /* more words than positional room: all of them in rest */
    CHECK_STR(a.rest[0], "python");
    CHECK_STR(a.rest[4], "-n");
    CHECK_STR(a.rest[10], "e");
    CHECK(a.ns == NULL); /* -n after -- belongs to the command */
}

static json_t *build(const char *const *line, char *err)
{
    struct jobctl_args a;
    if (parse(&a, err, line) != 0)
        return NULL;
    a.ns = "team";
    return run_build_job(&a, err, 300);
}

static void test_run_job(void)
{
    char err[300] = "";
    json_t *job = build((const char *[]){"jobctl",
                                         "run",
                                         "--name",
                                         "etl",
                                         "--per-day",
                                         "2026-01-30..2026-02-02",
                                         "--cpu",
                                         "1",
                                         "--memory",
                                         "2Gi",
                                         "--gpu",
                                         "1",
                                         "-e",
                                         "K=V",
                                         "--queue",
                                         "q",
                                         "--min-success",
                                         "3",
                                         "--auto-memory-scale",
                                         "1.5,64Gi",
                                         "--",
                                         "./etl.sh",
                                         "--fast",
                                         NULL},
                        err);
    REQUIRE(job);
    CHECK_STR(json_string_value(json_at(job, "metadata.name")), "etl");
    CHECK_STR(json_string_value(json_at(job, "metadata.namespace")), "team");
    CHECK_STR(json_string_value(json_at(job, "spec.queue")), "q");
    CHECK_INT(json_integer_value(json_at(job, "spec.minAvailable")), 1);
    CHECK_INT(json_integer_value(json_at(job, "spec.minSuccess")), 3);
    CHECK(json_real_value(json_at(job, "spec.autoMemoryScale.rate")) == 1.5);
    CHECK_STR(json_string_value(json_at(job, "spec.autoMemoryScale.maxMemory")), "64Gi");
    CHECK_INT(json_array_size(json_at(job, "spec.tasks")), 4); /* one task per date, month end crossed */
    CHECK_STR(json_string_value(json_at(job, "spec.tasks.0.name")), "2026-01-30");
    CHECK_STR(json_string_value(json_at(job, "spec.tasks.3.name")), "2026-02-02");
    json_t *c = json_at(job, "spec.tasks.3.template.spec.containers.0");
    CHECK_STR(json_string_value(json_at(c, "env.0.name")), "K");
    CHECK_STR(json_string_value(json_at(c, "env.1.name")), "CALDERA_DATE");
    CHECK_STR(json_string_value(json_at(c, "env.1.value")), "2026-02-02");
    CHECK_STR(json_string_value(json_at(c, "command.1")), "--fast");
    CHECK_STR(json_string_value(json_object_get(json_at(c, "resources.limits"), "nvidia.com/gpu")), "1");
    CHECK_STR(json_string_value(json_at(c, "resources.requests.memory")), "2Gi");
    json_decref(job);

    job = build((const char *[]){"jobctl", "run", "--replicas", "4", "--", "sleep", "1", NULL}, err);
    REQUIRE(job);
    CHECK_STR(json_string_value(json_at(job, "metadata.generateName")), "run-");
    CHECK_INT(json_integer_value(json_at(job, "spec.minAvailable")), 4); /* a gang, as Volcano's default */
    CHECK_INT(json_integer_value(json_at(job, "spec.tasks.0.replicas")), 4);
    CHECK_STR(json_string_value(json_at(job, "spec.tasks.0.name")), "main");
    json_decref(job);

    static const struct {
        const char *flag, *value, *says;
    } bad[] = {
        {"--replicas", "0", "--replicas wants a whole number from 1 to 10000, not \"0\""},
        {"--per-day", "2026-01-05", "--per-day wants FROM..TO"},
        {"--per-day", "2026-02-30..2026-03-01", "--per-day wants two dates YYYY-MM-DD"},
        {"--per-day", "2026-03-01..2026-02-01", "ends before it starts"},
        {"--per-day", "2026-01-01..2027-06-01", "spans 517 days; at most 366"},
        {"--env", "NOEQUALS", "--env wants NAME=VALUE"},
        {"--env", "1X=2", "--env wants NAME=VALUE"},
        {"--min-success", "2", "--min-success 2 is more than the job's 1 replicas"},
        {"--auto-memory-scale", "0.9", "--auto-memory-scale wants RATE or RATE,MAX"},
        {"--auto-memory-scale", "2,", "--auto-memory-scale wants RATE or RATE,MAX"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK(build((const char *[]){"jobctl", "run", bad[i].flag, bad[i].value, "--", "x", NULL}, err) == NULL);
        CHECK_CONTAINS(err, bad[i].says);
    }
    CHECK(build((const char *[]){"jobctl", "run", "--name", "x", NULL}, err) == NULL);
    CHECK_CONTAINS(err, "run needs the command after --");
    CHECK(build((const char *[]){"jobctl", "run", "sleep", "--", "1", NULL}, err) == NULL);
    CHECK_CONTAINS(err, "run takes no argument before --");
}

static void test_config_file(void)
{
    char path[300], err[300] = "";
    config_path("/x/cfg", "/home/u", path, sizeof path);
    CHECK_STR(path, "/x/cfg/caldera/config");
    config_path("", "/home/u", path, sizeof path);
    CHECK_STR(path, "/home/u/.config/caldera/config");
    config_path(NULL, NULL, path, sizeof path);
    CHECK_STR(path, "");

    struct config_file cf;
    REQUIRE(config_parse("# mine\n\nserver = http://jobs:8080\n  namespace=team-a  \ntoken = \"abc def\"\n", &cf, err,
                         sizeof err) == 0);
    CHECK_STR(cf.server, "http://jobs:8080");
    CHECK_STR(cf.ns, "team-a");
    CHECK_STR(cf.token, "abc def");
    CHECK(config_parse("server = a\nsevrer = b\n", &cf, err, sizeof err) == -1);
    CHECK_STR(err, "line 2: unknown key \"sevrer\" (server, token or namespace)");
    CHECK(config_parse("server: a\n", &cf, err, sizeof err) == -1);
    CHECK_STR(err, "line 1: expected key = value");
    CHECK(config_parse("token =\n", &cf, err, sizeof err) == -1);
    CHECK_CONTAINS(err, "line 1: token wants a value");
}

static void test_view_pods_and_nodes(void)
{
    char *text = render_view(&VIEW_PODS,
                             "{\"metadata\":{\"name\":\"train-worker-0\"},\"spec\":{\"nodeName\":\"local\"},"
                             "\"status\":{\"phase\":\"Failed\",\"containerStatuses\":[{\"restartCount\":2,"
                             "\"state\":{\"terminated\":{\"exitCode\":137,\"reason\":\"OOMKilled\"}}}]}}",
                             0);
    CHECK_STR(text,
              "POD              NODE    PHASE    EXIT   REASON      AGE\n"
              "train-worker-0   local   Failed   137    OOMKilled   <unknown>\n");
    free(text);
    text = render_view(&VIEW_NODES,
                       "[{\"metadata\":{\"name\":\"n1\"},\"spec\":{\"unschedulable\":true},\"status\":{"
                       "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],"
                       "\"allocatable\":{\"cpu\":\"8\",\"memory\":\"32Gi\",\"nvidia.com/gpu\":\"2\"}}}]",
                       0);
    CHECK_STR(text,
              "NAME   STATUS                     CPU   MEMORY   GPU   AGE\n"
              "n1     Ready,SchedulingDisabled   8     32Gi     2     <unknown>\n");
    free(text);
}

static void test_view_history(void)
{
    char *text = render_view(&VIEW_ATTEMPTS,
                             "[{\"pod\":\"j-w-0\",\"task\":\"w\",\"index\":0,\"attempt\":1,\"jobVersion\":0,"
                             "\"node\":\"local\",\"pid\":4242,\"startTime\":\"2026-11-22T08:15:00Z\","
                             "\"finishTime\":null,\"exitCode\":null,\"reason\":\"\",\"message\":\"\"}]",
                             0);
    CHECK_STR(text,
              "POD     ATTEMPT   VERSION   NODE    PID    START                  FINISH   EXIT     REASON   "
              "MESSAGE\n"
              "j-w-0   1         0         local   4242   2026-11-22T08:15:00Z   <none>   <none>   <none>   "
              "<none>\n");
    free(text);
}

static void test_args_token_options(void)
{
    struct jobctl_args a;
    char err[200] = "";
    const char *line[] = {"jobctl", "--token", "abc123.x",           "token", "create", "--user",     "alice",
                          "-n",     "team-a",  "--namespace=team-b", "--uid", "1001",   "--gid=1002", "--role",
                          "viewer", NULL};
    REQUIRE(parse(&a, err, line) == 0);
    CHECK_STR(a.token, "abc123.x");
    CHECK_STR(a.user, "alice");
    CHECK_INT(a.nnamespaces, 2);
    CHECK_STR(a.namespaces[0], "team-a");
    CHECK_STR(a.namespaces[1], "team-b");
    CHECK_STR(a.ns, "team-b"); /* the last, for every other command */
    CHECK_STR(a.uid, "1001");
    CHECK_STR(a.gid, "1002");
    CHECK_STR(a.role, "viewer");
}

static void test_view_tokens(void)
{
    char *text = render_view(&VIEW_TOKENS,
                             "[{\"metadata\":{\"name\":\"abc123\",\"creationTimestamp\":\"2026-11-22T08:00:00Z\"},"
                             "\"spec\":{\"user\":\"alice\",\"namespaces\":[\"team-a\",\"team-b\"],\"uid\":1001,"
                             "\"gid\":1001,\"role\":\"user\"}},{\"metadata\":{\"name\":\"root01\"},\"spec\":{"
                             "\"user\":\"admin\",\"namespaces\":[\"*\"],\"role\":\"admin\"}}]",
                             1795334400000);
    CHECK_CONTAINS(text, "ID       USER    ROLE    NAMESPACES      UID      GID      AGE");
    CHECK_CONTAINS(text, "abc123   alice   user    team-a,team-b   1001     1001");
    CHECK_CONTAINS(text, "root01   admin   admin   *               <none>   <none>");
    free(text);
}

TEST_MAIN(TEST_CASE(test_human_age), TEST_CASE(test_age_since), TEST_CASE(test_json_at_and_cells),
          TEST_CASE(test_url_escape), TEST_CASE(test_slice_keeping_lines), TEST_CASE(test_table_render),
          TEST_CASE(test_table_utf8_width), TEST_CASE(test_status_already_exists),
          TEST_CASE(test_status_causes_not_repeated), TEST_CASE(test_status_odd_answers), TEST_CASE(test_args_anywhere),
          TEST_CASE(test_args_errors), TEST_CASE(test_args_debug_options), TEST_CASE(test_view_jobs),
          TEST_CASE(test_view_pods_and_nodes), TEST_CASE(test_view_history),
          TEST_CASE(test_status_unauthorized_and_forbidden), TEST_CASE(test_args_token_options),
          TEST_CASE(test_view_tokens), TEST_CASE(test_view_jobs_pending_reason_and_wide), TEST_CASE(test_yaml_output),
          TEST_CASE(test_args_new_options), TEST_CASE(test_run_job), TEST_CASE(test_config_file))
