/* Kubernetes' Table view against a real jobserver: the Table of Jobs over HTTP (columns, paging
 * with limit and continue, resourceVersion, includeObject, a bad includeObject, the rows the core
 * writes equal to those made from whole Jobs, a watch of Tables), the PodGroups' and Pods' rows
 * alike, and Debian's kubectl get, narrow and -o wide, showing the columns and values of Volcano
 * Jobs, PodGroups, Queues, Pods and Nodes. The kubectl cases skip, saying so, where kubectl is not
 * installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapters/objects/version_info.h"
#include "common/fs.h"
#include "common/sbuf.h"
#include "tests/lib/http_fetch.h"
#include "tests/lib/job_client.h"

#define NODES_FILE "examples/nodes.yaml"
#define TABLE_ACCEPT \
    "Accept: "       \
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
#define PODGROUPS "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups"
#define PODS "/api/v1/namespaces/default/pods"
#define MAX_COLUMNS 16
#define COLUMN_LEN 256

static struct test_server server;
static char kubectl_cache[64]; /* kubectl's discovery cache, a directory of this run's */

/* A server with one job that ran (done: 2 replicas, exit 0) and one that the cluster holds but no
 * node can (waits: Inqueue, its pod Pending on no node). */
static struct test_server *started(void)
{
    static bool tried;
    static const char *const args[] = {"--nodes", NODES_FILE, NULL};
    if (tried)
        return server.pid ? &server : NULL;
    tried = true;
    if (server_start(&server, NULL, args) != 0 ||
        job_submit(&server, "done", "", TASK("w", 2, "", "'true'", "")) != 201 ||
        job_submit(&server, "waits", "",
                   TASK("w", 1, "", "'true'", "          resources: {requests: {cpu: \"10\"}}\n")) != 201 ||
        job_wait(&server, "done", "status.state.phase", "Completed", 30000) != 0 ||
        job_wait(&server, "waits", "status.state.reason", "Unschedulable", 30000) != 0) {
        server_cleanup(&server);
        server.pid = 0;
    }
    return server.pid ? &server : NULL;
}

/* GET path with the Accept header kubectl sends; the parsed body, *code the status. */
static json_t *get_table(const struct test_server *s, const char *path, long *code)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", s->url, path);
    static const char *const headers[] = {TABLE_ACCEPT, NULL};
    struct http_answer a = http_fetch("GET", url, headers, NULL);
    *code = a.code;
    json_t *body = json_loads(sbuf_str(&a.body), 0, NULL);
    http_answer_free(&a);
    return body;
}

/* The name of a job's PodGroup: "<job>-<uid>", as Volcano's controller names it. */
static const char *podgroup_of(const struct test_server *s, const char *job, char *buf, size_t len)
{
    char url[512];
    snprintf(url, sizeof url, "%s/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs/%s", s->url, job);
    struct http_answer a = http_fetch("GET", url, NULL, NULL);
    json_t *body = json_loads(sbuf_str(&a.body), 0, NULL);
    http_answer_free(&a);
    snprintf(buf, len, "%s-%s", job, body && jv_str(body, "metadata.uid") ? jv_str(body, "metadata.uid") : "?");
    json_decref(body);
    return buf;
}

/* The index of the column named name in the Table, or -1. */
static int column(json_t *table, const char *name)
{
    size_t i;
    json_t *def;
    json_array_foreach(json_object_get(table, "columnDefinitions"), i, def)
    {
        if (strcmp(jv_str(def, "name") ? jv_str(def, "name") : "", name) == 0)
            return (int)i;
    }
    return -1;
}

/* The row whose first cell is name, or NULL. */
static json_t *row_named(json_t *table, const char *name)
{
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(table, "rows"), i, row)
    {
        const char *first = json_string_value(json_array_get(json_object_get(row, "cells"), 0));
        if (first && strcmp(first, name) == 0)
            return row;
    }
    return NULL;
}

static json_t *cell(json_t *table, const char *row, const char *col)
{
    int c = column(table, col);
    json_t *r = row_named(table, row);
    return c >= 0 && r ? json_array_get(json_object_get(r, "cells"), (size_t)c) : NULL;
}

/* The Jobs' Table: Volcano's CRD columns and Caldera's wide ones, each job's values, and the
 * rows' PartialObjectMetadata. */
static void jobs_table_has_the_crd_columns(void)
{
    struct test_server *s = started();
    REQUIRE(s);
    long code = 0;
    json_t *t = get_table(s, JOBS, &code);
    CHECK_INT(code, 200);
    REQUIRE(t);
    CHECK_STR(jv_str(t, "kind"), "Table");
    CHECK_STR(jv_str(t, "apiVersion"), "meta.k8s.io/v1");
    static const char *const names[] = {"Name",    "STATUS",    "minAvailable", "RUNNINGS", "AGE",           "QUEUE",
                                        "PENDING", "SUCCEEDED", "FAILED",       "REPLICAS", "PENDING REASON"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CHECK_INT(column(t, names[i]), (long)i);
    CHECK_INT(jv_num(t, "columnDefinitions.5.priority"), 1);
    CHECK_INT(jv_num(t, "columnDefinitions.4.priority"), 0);
    CHECK_STR(jv_str(t, "columnDefinitions.4.type"), "date");
    CHECK_STR(json_string_value(cell(t, "done", "STATUS")), "Completed");
    CHECK_INT(json_integer_value(cell(t, "done", "SUCCEEDED")), 2);
    CHECK_INT(json_integer_value(cell(t, "done", "REPLICAS")), 2);
    CHECK_INT(json_integer_value(cell(t, "done", "minAvailable")), 2);
    CHECK_STR(json_string_value(cell(t, "done", "PENDING REASON")), "");
    CHECK_STR(json_string_value(cell(t, "waits", "STATUS")), "Pending");
    CHECK_STR(json_string_value(cell(t, "waits", "QUEUE")), "default");
    CHECK_INT(json_integer_value(cell(t, "waits", "PENDING")), 1);
    const char *reason = json_string_value(cell(t, "waits", "PENDING REASON"));
    CHECK(reason && strstr(reason, "cpu"));
    json_t *waits = job_get(s, "waits");
    json_t *row = row_named(t, "waits");
    CHECK_STR(jv_str(row, "object.kind"), "PartialObjectMetadata");
    CHECK_STR(jv_str(row, "object.metadata.uid"), jv_str(waits, "metadata.uid"));
    CHECK_STR(jv_str(row, "object.metadata.resourceVersion"), jv_str(waits, "metadata.resourceVersion"));
    CHECK_STR(jv_str(row, "object.metadata.creationTimestamp"), jv_str(waits, "metadata.creationTimestamp"));
    CHECK(!jv_at(row, "object.spec"));
    json_t *list = server_request(s, "GET", JOBS, NULL, NULL, &code); /* plain JSON stays a JobList */
    CHECK_STR(jv_str(list, "kind"), "JobList");
    CHECK(atoll(jv_str(t, "metadata.resourceVersion")) > 0);
    json_decref(list);
    json_decref(waits);
    json_decref(t);
}

/* limit and continue page a Table as they page the list; includeObject=None leaves the objects
 * out, Object gives whole Jobs with the same cells; anything else is a 400 naming includeObject. */
static void jobs_table_pages_and_include_object(void)
{
    struct test_server *s = started();
    REQUIRE(s);
    long code = 0;
    json_t *first = get_table(s, JOBS "?limit=1", &code), *second = NULL;
    CHECK_INT(code, 200);
    REQUIRE(first);
    CHECK_INT((long)json_array_size(json_object_get(first, "rows")), 1);
    const char *token = jv_str(first, "metadata.continue");
    REQUIRE(token);
    char path[600];
    snprintf(path, sizeof path, JOBS "?limit=1&continue=%s", token);
    second = get_table(s, path, &code);
    CHECK_INT(code, 200);
    CHECK_INT((long)json_array_size(json_object_get(second, "rows")), 1);
    CHECK(!jv_at(second, "metadata.continue"));
    CHECK_STR(jv_str(first, "rows.0.cells.0"), "done");
    CHECK_STR(jv_str(second, "rows.0.cells.0"), "waits");

    json_t *none = get_table(s, JOBS "?includeObject=None", &code);
    CHECK_INT(code, 200);
    CHECK_INT((long)json_array_size(json_object_get(none, "rows")), 2);
    CHECK(!jv_at(none, "rows.0.object"));
    json_t *whole = get_table(s, JOBS "?includeObject=Object", &code);
    CHECK_INT(code, 200);
    CHECK_STR(jv_str(whole, "rows.1.object.kind"), "Job");
    CHECK_STR(jv_str(whole, "rows.1.object.spec.queue"), "default");
    /* a set-based selector is filtered by the gateway: those rows are made from whole Jobs */
    json_t *filtered = get_table(s, JOBS "?labelSelector=!nothere", &code);
    json_t *rows = get_table(s, JOBS, &code);
    for (size_t i = 0; i < 2; i++) {
        json_t *a = json_object_get(json_array_get(json_object_get(rows, "rows"), i), "cells");
        json_t *b = json_object_get(json_array_get(json_object_get(whole, "rows"), i), "cells");
        json_t *c = json_object_get(json_array_get(json_object_get(filtered, "rows"), i), "cells");
        CHECK_INT((long)json_array_size(a), 11);
        for (size_t k = 0; k < json_array_size(a); k++) {
            if (k == 4) /* AGE: the requests may fall either side of a second */
                continue;
            CHECK(json_equal(json_array_get(a, k), json_array_get(b, k)));
            CHECK(json_equal(json_array_get(a, k), json_array_get(c, k)));
        }
        CHECK(json_equal(json_object_get(json_array_get(json_object_get(rows, "rows"), i), "object"),
                         json_object_get(json_array_get(json_object_get(filtered, "rows"), i), "object")));
    }
    json_t *bad = get_table(s, JOBS "?includeObject=Everything", &code);
    CHECK_INT(code, 400);
    CHECK_STR(jv_str(bad, "kind"), "Status");
    CHECK_STR(jv_str(bad, "details.causes.0.field"), "includeObject");
    json_t *one = get_table(s, JOBS "/waits", &code); /* one object: a Table of one row */
    CHECK_INT(code, 200);
    CHECK_INT((long)json_array_size(json_object_get(one, "rows")), 1);
    CHECK_STR(jv_str(one, "rows.0.cells.1"), "Pending");
    json_decref(one);
    json_decref(bad);
    json_decref(rows);
    json_decref(filtered);
    json_decref(whole);
    json_decref(none);
    json_decref(second);
    json_decref(first);
}

/* A watch asked for as a Table (kubectl get -w) shows each object as a Table of one row. */
static void watch_shows_tables_of_one_row(void)
{
    struct test_server *s = started();
    REQUIRE(s);
    char url[512];
    snprintf(url, sizeof url, "%s" JOBS "?watch=true&timeoutSeconds=1", s->url);
    static const char *const headers[] = {TABLE_ACCEPT, NULL};
    struct http_answer a = http_fetch("GET", url, headers, NULL);
    CHECK_INT(a.code, 200);
    int events = 0;
    for (const char *line = sbuf_str(&a.body); line && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *end = strchr(line, '\n');
        json_t *ev = json_loadb(line, end ? (size_t)(end - line) : strlen(line), 0, NULL);
        if (!ev)
            continue; /* a keep-alive newline */
        CHECK_STR(jv_str(ev, "type"), "ADDED");
        CHECK_STR(jv_str(ev, "object.kind"), "Table");
        CHECK_INT((long)json_array_size(jv_at(ev, "object.rows")), 1);
        CHECK_STR(jv_str(ev, "object.columnDefinitions.1.name"), "STATUS");
        CHECK_STR(jv_str(ev, "object.rows.0.object.kind"), "PartialObjectMetadata");
        events++;
        json_decref(ev);
    }
    CHECK_INT(events, 2); /* done and waits */
    http_answer_free(&a);
}

/* The PodGroups' Table the core writes reads as the one made from whole PodGroups (a set-based
 * selector, filtered by the gateway, takes that way). */
static void podgroup_rows_match_the_podgroups(void)
{
    struct test_server *s = started();
    REQUIRE(s);
    long code = 0;
    json_t *rows = get_table(s, PODGROUPS, &code);
    CHECK_INT(code, 200);
    json_t *filtered = get_table(s, PODGROUPS "?labelSelector=!nothere", &code);
    json_t *whole = get_table(s, PODGROUPS "?includeObject=Object", &code);
    REQUIRE(rows && filtered && whole);
    CHECK_INT((long)json_array_size(json_object_get(rows, "rows")), 2);
    char done[128], waits[128];
    podgroup_of(s, "done", done, sizeof done);
    podgroup_of(s, "waits", waits, sizeof waits);
    CHECK_STR(json_string_value(cell(rows, done, "STATUS")), "Completed");
    CHECK_INT(json_integer_value(cell(rows, done, "minMember")), 2);
    CHECK_STR(json_string_value(cell(rows, waits, "STATUS")), "Inqueue");
    CHECK_STR(json_string_value(cell(rows, waits, "QUEUE")), "default");
    for (size_t i = 0; i < 2; i++) {
        json_t *a = json_array_get(json_object_get(rows, "rows"), i);
        json_t *c = json_array_get(json_object_get(filtered, "rows"), i);
        json_t *w = json_array_get(json_object_get(whole, "rows"), i);
        for (size_t k = 0; k < 6; k++) {
            if (k == 4) /* AGE: the requests may fall either side of a second */
                continue;
            CHECK(json_equal(json_array_get(json_object_get(a, "cells"), k),
                             json_array_get(json_object_get(c, "cells"), k)));
        }
        CHECK(json_equal(json_object_get(a, "object"), json_object_get(c, "object")));
        CHECK(json_equal(jv_at(a, "object.metadata"), jv_at(w, "object.metadata")));
    }
    json_decref(whole);
    json_decref(filtered);
    json_decref(rows);
}

/* The same for Pods: finished ones, one on no node and a running one. */
static void pod_rows_match_the_pods(void)
{
    struct test_server *s = started();
    REQUIRE(s);
    CHECK_INT(job_submit(s, "runs", "", TASK("w", 1, "", "'sleep 600'", "")), 201);
    REQUIRE(job_wait(s, "runs", "status.state.phase", "Running", 30000) == 0);
    long code = 0;
    json_t *rows = get_table(s, PODS, &code);
    CHECK_INT(code, 200);
    json_t *filtered = get_table(s, PODS "?labelSelector=!nothere", &code);
    json_t *whole = get_table(s, PODS "?includeObject=Object", &code);
    REQUIRE(rows && filtered && whole);
    CHECK_INT((long)json_array_size(json_object_get(rows, "rows")), 4);
    CHECK_STR(json_string_value(cell(rows, "runs-w-0", "Status")), "Running");
    CHECK_STR(json_string_value(cell(rows, "runs-w-0", "Ready")), "1/1");
    CHECK_STR(json_string_value(cell(rows, "done-w-0", "Status")), "Completed");
    CHECK_STR(json_string_value(cell(rows, "done-w-0", "Ready")), "0/1");
    CHECK_STR(json_string_value(cell(rows, "waits-w-0", "Status")), "Pending");
    CHECK_STR(json_string_value(cell(rows, "waits-w-0", "Node")), "<none>");
    for (size_t i = 0; i < 4; i++) {
        json_t *a = json_array_get(json_object_get(rows, "rows"), i);
        json_t *c = json_array_get(json_object_get(filtered, "rows"), i);
        json_t *w = json_array_get(json_object_get(whole, "rows"), i);
        CHECK_INT((long)json_array_size(json_object_get(a, "cells")), 9);
        for (size_t k = 0; k < 9; k++) {
            if (k == 4) /* Age: the requests may fall either side of a second */
                continue;
            CHECK(json_equal(json_array_get(json_object_get(a, "cells"), k),
                             json_array_get(json_object_get(c, "cells"), k)));
        }
        CHECK(json_equal(json_object_get(a, "object"), json_object_get(c, "object")));
        CHECK(json_equal(jv_at(a, "object.metadata"), jv_at(w, "object.metadata")));
    }
    json_decref(whole);
    json_decref(filtered);
    json_decref(rows);
}

static bool have_kubectl(void) { return system("command -v kubectl >/dev/null 2>&1") == 0; }

/* `kubectl --server URL get args` (stderr too), or NULL when it failed (said on stderr). */
static char *kubectl_get(const struct test_server *s, const char *args)
{
    if (!kubectl_cache[0]) {
        snprintf(kubectl_cache, sizeof kubectl_cache, "/tmp/caldera-kubectl-XXXXXX");
        if (!mkdtemp(kubectl_cache)) {
            kubectl_cache[0] = '\0';
            return NULL;
        }
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "kubectl --server %s --cache-dir %s get %s 2>&1", s->url, kubectl_cache, args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    char *out = NULL;
    size_t cap = 0;
    if (getdelim(&out, &cap, '\0', p) < 0) {
        free(out);
        out = NULL;
    }
    if (pclose(p) != 0) {
        fprintf(stderr, "# %s: %s\n", cmd, out ? out : "");
        free(out);
        out = NULL;
    }
    return out;
}

/* The columns of the line of text starting with first (the header when first is "NAME"): runs of
 * two or more spaces part them. Returns how many, 0 when no line starts so. */
static int line_columns(const char *text, const char *first, char cols[MAX_COLUMNS][COLUMN_LEN])
{
    size_t first_len = strlen(first);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, first, first_len) != 0 || (line[first_len] != ' ' && line[first_len] != '\n'))
            continue;
        int n = 0;
        const char *p = line;
        while (*p && *p != '\n' && n < MAX_COLUMNS) {
            const char *end = p;
            while (*end && *end != '\n' && !(end[0] == ' ' && end[1] == ' '))
                end++;
            snprintf(cols[n++], COLUMN_LEN, "%.*s", (int)(end - p), p);
            while (*end == ' ')
                end++;
            p = end;
        }
        return n;
    }
    return 0;
}

/* kubectl get's header and the row of name hold want_header and want_row, in order ("" skips a
 * value; "*" matches any). */
static void check_kubectl(const char *args, const char *name, const char *const *want_header,
                          const char *const *want_row)
{
    struct test_server *s = started();
    REQUIRE(s);
    char *out = kubectl_get(s, args);
    REQUIRE(out);
    char header[MAX_COLUMNS][COLUMN_LEN], row[MAX_COLUMNS][COLUMN_LEN];
    int nh = line_columns(out, "NAME", header), nr = line_columns(out, name, row);
    int i = 0;
    for (; want_header[i]; i++) {
        CHECK(i < nh && strcmp(header[i], want_header[i]) == 0);
        if (strcmp(want_row[i], "*") != 0)
            CHECK(i < nr && strcmp(row[i], want_row[i]) == 0);
    }
    bool rows_match = nh == i && nr >= i;
    for (int k = 0; rows_match && k < i; k++)
        rows_match = strcmp(header[k], want_header[k]) == 0 &&
                     (strcmp(want_row[k], "*") == 0 || strcmp(row[k], want_row[k]) == 0);
    CHECK_INT(nh, i);
    if (!rows_match)
        fprintf(stderr, "# kubectl get %s:\n%s", args, out);
    free(out);
}

static void kubectl_gets_jobs(void)
{
    SKIP_IF(!have_kubectl(), "kubectl is not installed (apt-get install -y kubectl)");
    check_kubectl("vcjob", "done", (const char *const[]){"NAME", "STATUS", "MINAVAILABLE", "RUNNINGS", "AGE", NULL},
                  (const char *const[]){"done", "Completed", "2", "0", "*"});
    check_kubectl("vcjob -o wide", "waits",
                  (const char *const[]){"NAME", "STATUS", "MINAVAILABLE", "RUNNINGS", "AGE", "QUEUE", "PENDING",
                                        "SUCCEEDED", "FAILED", "REPLICAS", "PENDING REASON", NULL},
                  (const char *const[]){"waits", "Pending", "1", "0", "*", "default", "1", "0", "0", "1", "*"});
    check_kubectl("jobs.batch.volcano.sh waits", "waits",
                  (const char *const[]){"NAME", "STATUS", "MINAVAILABLE", "RUNNINGS", "AGE", NULL},
                  (const char *const[]){"waits", "Pending", "1", "0", "*"});
    char *wide = kubectl_get(started(), "vcjob waits -o wide");
    CHECK(wide && strstr(wide, "insufficient cpu")); /* the pending reason, as the job's status says */
    free(wide);
}

static void kubectl_gets_podgroups_and_queues(void)
{
    SKIP_IF(!have_kubectl(), "kubectl is not installed (apt-get install -y kubectl)");
    char done[128], waits[128];
    podgroup_of(started(), "done", done, sizeof done);
    podgroup_of(started(), "waits", waits, sizeof waits);
    check_kubectl("podgroups", done, (const char *const[]){"NAME", "STATUS", "MINMEMBER", "RUNNINGS", "AGE", NULL},
                  (const char *const[]){done, "Completed", "2", "0", "*"});
    check_kubectl("podgroups -o wide", waits,
                  (const char *const[]){"NAME", "STATUS", "MINMEMBER", "RUNNINGS", "AGE", "QUEUE", NULL},
                  (const char *const[]){waits, "Inqueue", "1", "0", "*", "default"});
    check_kubectl("queues", "default", (const char *const[]){"NAME", "AGE", NULL},
                  (const char *const[]){"default", "*"});
    check_kubectl("queues -o wide", "default", (const char *const[]){"NAME", "AGE", "STATE", "WEIGHT", NULL},
                  (const char *const[]){"default", "*", "Open", "1"});
}

static void kubectl_gets_pods_and_nodes(void)
{
    SKIP_IF(!have_kubectl(), "kubectl is not installed (apt-get install -y kubectl)");
    check_kubectl("pods", "done-w-1", (const char *const[]){"NAME", "READY", "STATUS", "RESTARTS", "AGE", NULL},
                  (const char *const[]){"done-w-1", "0/1", "Completed", "0", "*"});
    check_kubectl(
        "pods -o wide", "done-w-0",
        (const char *const[]){"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE",
                              "READINESS GATES", NULL},
        (const char *const[]){"done-w-0", "0/1", "Completed", "0", "*", "127.0.0.1", "*", "<none>", "<none>"});
    check_kubectl(
        "pods -o wide", "waits-w-0",
        (const char *const[]){"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE",
                              "READINESS GATES", NULL},
        (const char *const[]){"waits-w-0", "0/1", "Pending", "0", "*", "<none>", "<none>", "<none>", "<none>"});
    check_kubectl("nodes", "node-c", (const char *const[]){"NAME", "STATUS", "ROLES", "AGE", "VERSION", NULL},
                  (const char *const[]){"node-c", "Ready", "<none>", "*", "*"});
    check_kubectl("nodes -o wide", "node-a",
                  (const char *const[]){"NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP",
                                        "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME", NULL},
                  (const char *const[]){"node-a", "Ready", "<none>", "*", "*", "127.0.0.1", "<none>", "*", "*",
                                        CONTAINER_RUNTIME_VERSION});
}

static void stop_server(void)
{
    if (server.pid)
        server_stop(&server);
    server_cleanup(&server);
    if (kubectl_cache[0])
        remove_tree(kubectl_cache);
}

TEST_MAIN(TEST_CASE(jobs_table_has_the_crd_columns), TEST_CASE(jobs_table_pages_and_include_object),
          TEST_CASE(watch_shows_tables_of_one_row), TEST_CASE(podgroup_rows_match_the_podgroups),
          TEST_CASE(pod_rows_match_the_pods), TEST_CASE(kubectl_gets_jobs),
          TEST_CASE(kubectl_gets_podgroups_and_queues), TEST_CASE(kubectl_gets_pods_and_nodes), TEST_CASE(stop_server))
